//! [`PackageRoots::can_move_package`] for paths asked in ascending order: each folder's
//! binding is decided once, when the walk enters it, from its parent's and one lookup
//! of its own, instead of one lookup per folder of every path (a cold fill asks this of
//! every row of a source, in path order, and the per-path form was a fifth of its time).

use super::{PackageRoots, could_form_or_feed_a_package};

/// The answers for one ascending walk of paths; see [`PackageRoots::in_order`].
#[derive(Debug)]
pub struct InOrder<'a> {
    roots: &'a PackageRoots,
    /// The folder the last path lay in, as text.
    folder: String,
    /// The folders of `folder` from the outermost, each as its length in `folder` and
    /// whether it or a folder above it is a root.
    stack: Vec<(usize, bool)>,
}

impl PackageRoots {
    /// Answers [`PackageRoots::can_move_package`] for paths given in ascending byte
    /// order; the answer for each path is the same as asking it alone, in any order
    /// (a path out of order is only slower: the walk climbs to the common folder).
    pub fn in_order(&self) -> InOrder<'_> {
        InOrder {
            roots: self,
            folder: String::new(),
            stack: Vec::new(),
        }
    }
}

impl InOrder<'_> {
    /// Whether writing the file at `path` can change which packages exist or what
    /// they hold.
    pub fn can_move_package(&mut self, path: &str) -> bool {
        self.binds(path) || could_form_or_feed_a_package(path)
    }

    fn binds(&mut self, path: &str) -> bool {
        let roots = self.roots;
        if roots.source_root_binds_all || path.is_empty() {
            return true;
        }
        if roots.nested.is_empty() {
            return false;
        }
        let parent = path.rfind('/').map_or("", |at| &path[..at]);
        self.enter(parent) || roots.is_root(path)
    }

    /// Moves the walk into `parent` (`""` is the source root): keeps the folders it
    /// shares with the last one, decides the new ones; whether `parent` or a folder
    /// above it is a root.
    fn enter(&mut self, parent: &str) -> bool {
        // Keep the deepest kept folder that is `parent` or a folder of it.
        while let Some(&(len, _)) = self.stack.last() {
            let kept = &self.folder[..len];
            if parent.len() >= len
                && parent.as_bytes()[..len] == *kept.as_bytes()
                && (parent.len() == len || parent.as_bytes()[len] == b'/')
            {
                break;
            }
            self.stack.pop();
        }
        let (from, mut bound) = match self.stack.last() {
            Some(&(len, bound)) => (len + 1, bound),
            None => (0, false),
        };
        // The kept folders are prefixes of `parent`: only the deeper ones are new.
        if from <= parent.len() && !parent.is_empty() {
            self.folder.clear();
            self.folder.push_str(parent);
            let mut end = from;
            for segment in parent[from..].split('/') {
                end += segment.len();
                bound = bound || self.roots.is_root(&parent[..end]);
                self.stack.push((end, bound));
                end += 1;
            }
        }
        bound
    }
}

impl PackageRoots {
    /// Whether `dir` is one of the nested roots (they are sorted).
    pub(super) fn is_root(&self, dir: &str) -> bool {
        self.nested
            .binary_search_by(|root| root.as_str().cmp(dir))
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn answers_alone(roots: &PackageRoots, paths: &[String]) -> Vec<bool> {
        paths.iter().map(|p| roots.can_move_package(p)).collect()
    }

    fn answers_in_order(roots: &PackageRoots, paths: &[String]) -> Vec<bool> {
        let mut walk = roots.in_order();
        paths.iter().map(|p| walk.can_move_package(p)).collect()
    }

    /// A walk in order answers each path as asking it alone would, also across
    /// folders that share a prefix without being nested (`a` and `a-b`, `ab`).
    #[test]
    fn a_walk_in_order_answers_as_each_path_alone() {
        let roots = PackageRoots::new(["a", "a/b/c", "ab", "x/y"], false);
        let mut paths: Vec<String> = [
            "a",
            "a-b/f.txt",
            "a/f.txt",
            "a/b/f.txt",
            "a/b/c",
            "a/b/c/d/e.txt",
            "a/bc/f.txt",
            "ab",
            "ab/f.txt",
            "abc/f.txt",
            "f.txt",
            "x/f.txt",
            "x/y",
            "x/y/z/f.txt",
            "x/yz/f.txt",
            "x/y-z/f.txt",
            "z/a/f.txt",
        ]
        .map(str::to_owned)
        .to_vec();
        paths.sort();
        assert_eq!(
            answers_in_order(&roots, &paths),
            answers_alone(&roots, &paths)
        );
        // Spot answers, so the comparison above cannot pass by both being wrong alike.
        let mut walk = roots.in_order();
        assert!(walk.can_move_package("a/b/f.txt"));
        assert!(!walk.can_move_package("a-b/f.txt"));
        assert!(walk.can_move_package("x/y/z/f.txt"));
        assert!(!walk.can_move_package("x/yz/f.txt"));
        assert!(walk.can_move_package("x/y"));
    }

    /// A folder is entered a segment at a time from the end of the folder kept: a
    /// name of several bytes per character must not be cut inside a character.
    #[test]
    fn a_walk_in_order_enters_folders_named_in_any_script() {
        let roots = PackageRoots::new(["é/x", "技能/工具"], false);
        let mut paths: Vec<String> = [
            "é/a.txt",
            "é/x/f.txt",
            "é/y/f.txt",
            "技能/a.txt",
            "技能/工具/f.txt",
            "技能/其他/f.txt",
        ]
        .map(str::to_owned)
        .to_vec();
        paths.sort();
        let answers = answers_in_order(&roots, &paths);
        assert_eq!(answers, answers_alone(&roots, &paths));
        assert_eq!(
            answers.iter().filter(|a| **a).count(),
            2,
            "{paths:?}: {answers:?}"
        );
    }

    fn segment() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("a".to_owned()),
            Just("b".to_owned()),
            Just("a-b".to_owned()),
            Just("ab".to_owned()),
            Just("skills".to_owned()),
            Just(".claude".to_owned()),
            Just("SKILL.md".to_owned()),
            Just("f.txt".to_owned()),
        ]
    }

    fn path() -> impl Strategy<Value = String> {
        proptest::collection::vec(segment(), 1..5).prop_map(|parts| parts.join("/"))
    }

    proptest! {
        /// The same answers as one path at a time, for paths in order and, more
        /// slowly, out of order.
        #[test]
        fn in_order_agrees_with_each_path_alone(
            roots in proptest::collection::vec(path(), 0..6),
            binds_all in proptest::bool::weighted(0.1),
            mut paths in proptest::collection::vec(path(), 0..40),
        ) {
            let roots = PackageRoots::new(roots.iter().map(String::as_str), binds_all);
            prop_assert_eq!(answers_in_order(&roots, &paths), answers_alone(&roots, &paths));
            paths.sort();
            prop_assert_eq!(answers_in_order(&roots, &paths), answers_alone(&roots, &paths));
        }
    }
}
