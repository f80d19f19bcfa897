//! [`PackageRoots::can_move_package`] for paths asked in ascending order: each folder is
//! decided once, when the walk enters it, from its parent's and one lookup of its own
//! (whether it is a root, and what it says of the files below it whatever the roots),
//! instead of once per path below it (a cold fill asks this of every row of a source,
//! in path order: the per-path form was a fifth of its time, and reading each path's
//! folders again was most of what was left, issue 31).

use std::cmp::Ordering;

use super::{FoldersAbove, PackageRoots, could_form_or_feed_a_package};
use crate::vocabulary::split_parent;

/// The answers for one ascending walk of paths; see [`PackageRoots::in_order`].
#[derive(Debug)]
pub struct InOrder<'a> {
    roots: &'a PackageRoots,
    /// The folder the last path lay in, as text.
    folder: String,
    /// The folders of `folder` from the outermost: each as its length in `folder`.
    stack: Vec<Entered>,
}

/// One folder the walk is in.
#[derive(Debug, Clone, Copy)]
struct Entered {
    /// Its length in [`InOrder::folder`].
    len: usize,
    /// Whether it or a folder above it is a root.
    bound: bool,
    /// What it and the folders above it say of the files below.
    above: FoldersAbove,
    /// The roots that lie below it, as a range of the sorted roots: a folder with none
    /// below it (most of a tree) answers every lookup below it without a search.
    below: (usize, usize),
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
        let roots = self.roots;
        if roots.source_root_binds_all || path.is_empty() {
            return true;
        }
        let (parent, base) = split_parent(path);
        if parent.is_empty() {
            // A file at the source root: no folder to walk (and none to keep).
            return roots.is_root(path) || could_form_or_feed_a_package(path);
        }
        let folder = self.enter(parent);
        folder.bound
            || roots.is_root_in(folder.below, path)
            || folder.above.could_form_or_feed(parent, base, path)
    }

    /// Moves the walk into `parent` (not the source root): keeps the folders it shares
    /// with the last one, decides the new ones; what is known of `parent`.
    fn enter(&mut self, parent: &str) -> Entered {
        // Keep the deepest kept folder that is `parent` or a folder of it.
        while let Some(&Entered { len, .. }) = self.stack.last() {
            let kept = &self.folder[..len];
            if parent.len() >= len
                && parent.as_bytes()[..len] == *kept.as_bytes()
                && (parent.len() == len || parent.as_bytes()[len] == b'/')
            {
                break;
            }
            self.stack.pop();
        }
        let (from, mut last) = match self.stack.last() {
            Some(&entered) => (entered.len + 1, entered),
            None => (
                0,
                Entered {
                    len: 0,
                    bound: false,
                    above: FoldersAbove::default(),
                    below: (0, self.roots.nested.len()),
                },
            ),
        };
        // The kept folders are prefixes of `parent`: only the deeper ones are new.
        if from <= parent.len() {
            self.folder.clear();
            self.folder.push_str(parent);
            let mut end = from;
            for segment in parent[from..].split('/') {
                end += segment.len();
                let folder = &parent[..end];
                last = Entered {
                    len: end,
                    bound: last.bound || self.roots.is_root_in(last.below, folder),
                    above: last.above.enter(segment),
                    below: self.roots.below_in(last.below, folder),
                };
                self.stack.push(last);
                end += 1;
            }
        }
        last
    }
}

impl PackageRoots {
    /// Whether `dir` is one of the nested roots (they are sorted).
    pub(super) fn is_root(&self, dir: &str) -> bool {
        self.is_root_in((0, self.nested.len()), dir)
    }

    /// [`PackageRoots::is_root`] for a `dir` that, if a root, is one of `range`.
    fn is_root_in(&self, (from, to): (usize, usize), dir: &str) -> bool {
        self.nested[from..to]
            .binary_search_by(|root| root.as_str().cmp(dir))
            .is_ok()
    }

    /// The roots of `range` that lie below `dir`: sorted, they are the ones between
    /// those before every path below `dir` and those after it.
    fn below_in(&self, (from, to): (usize, usize), dir: &str) -> (usize, usize) {
        if from == to {
            return (from, to);
        }
        let roots = &self.nested[from..to];
        let start = roots.partition_point(|root| below_order(root, dir) == Ordering::Less);
        let end = roots.partition_point(|root| below_order(root, dir) != Ordering::Greater);
        (from + start, from + end)
    }
}

/// Where `root` sorts against the paths below `dir` (those that begin `dir/`): `Equal`
/// when it is one of them. Byte order, as `str` sorts: every path below `dir` sorts
/// after `dir` and before the next folder name that is not below it.
fn below_order(root: &str, dir: &str) -> Ordering {
    let (root, dir) = (root.as_bytes(), dir.as_bytes());
    let shared = root.len().min(dir.len());
    match root[..shared].cmp(&dir[..shared]) {
        Ordering::Equal if root.len() <= dir.len() => Ordering::Less, // `dir` or above it
        Ordering::Equal => root[dir.len()].cmp(&b'/'),
        unequal => unequal,
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

    /// What a folder says of the files below it is kept while the walk is in it and
    /// dropped when it leaves: a templates/ folder closes only its own files, and a
    /// category folder forms a root only for the files below it.
    #[test]
    fn a_walk_in_order_keeps_what_a_folder_says_only_below_it() {
        let roots = PackageRoots::new(["x/y"], false);
        let cases = [
            ("kit/skills/templates/f.md", true),
            ("kit/skills/x.md", true),
            ("kit/templates/skills/f.md", false),
            ("kit/templates/skills/g/f.md", false),
            ("kit/templatesx/skills/f.md", true),
            ("kit/tools/f.md", false),
            ("kit/tools/skills", true),
            ("kit/workflows/a/SKILL.md", false),
            ("kit/z/SKILL.md", true),
            ("x/y/templates/f.md", true),
            ("x/z/templates/f.md", false),
        ];
        let paths: Vec<String> = cases.iter().map(|(p, _)| (*p).to_owned()).collect();
        let expected: Vec<bool> = cases.iter().map(|(_, moves)| *moves).collect();
        assert!(paths.is_sorted(), "the cases are a walk in order");
        assert_eq!(answers_alone(&roots, &paths), expected);
        assert_eq!(answers_in_order(&roots, &paths), expected);
    }

    /// The walk holds one entry per folder of the last path: the files of one folder
    /// add none, however many there are (a cache that grew with every file would
    /// answer the same but hold a cold fill's every row).
    #[test]
    fn a_walk_holds_one_entry_per_folder_it_is_in() {
        let roots = PackageRoots::new(["a/b"], false);
        let mut walk = roots.in_order();
        for file in 0..10 {
            walk.can_move_package(&format!("a/b/c/f{file}.txt"));
            assert_eq!(walk.stack.len(), 3, "after the file {file} of a/b/c");
        }
        walk.can_move_package("a/x.txt");
        assert_eq!(walk.stack.len(), 1, "back in a");
        walk.can_move_package("top.txt");
        walk.can_move_package("z/y/f.txt");
        assert_eq!(walk.stack.len(), 2, "in z/y");
    }

    /// The roots below a folder are the run of the sorted roots that begin with the
    /// folder and a slash: not the folder itself, not a sibling that shares its
    /// name's start (`a-b`, `ab`, `a0`), not a folder above it.
    #[test]
    fn the_roots_below_a_folder_are_those_that_begin_with_it_and_a_slash() {
        let all = ["", "a", "a-b", "a/b", "a/b/c", "a/bc", "a0", "ab", "b/a"];
        let roots = PackageRoots::new(all, false);
        for (dir, expected) in [
            ("a", &["a/b", "a/b/c", "a/bc"][..]),
            ("a/b", &["a/b/c"][..]),
            ("a/b/c", &[][..]),
            ("ab", &[][..]),
            ("b", &["b/a"][..]),
            ("c", &[][..]),
        ] {
            let (from, to) = roots.below_in((0, roots.nested.len()), dir);
            assert_eq!(&roots.nested[from..to], expected, "below {dir:?}");
            // Asked again within the range of a folder above, the same run.
            let (above_from, above_to) = roots.below_in((0, roots.nested.len()), "a");
            if dir.starts_with("a/") {
                assert_eq!(roots.below_in((above_from, above_to), dir), (from, to));
            }
        }
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
            // What the folders above a file say of it whatever the roots: a category
            // folder forms a root, template(s)/ and workflows/ close what is below.
            Just("rules".to_owned()),
            Just("templates".to_owned()),
            Just("workflows".to_owned()),
            Just(".claude-plugin".to_owned()),
            Just("plugin.json".to_owned()),
            Just("package.json".to_owned()),
            Just("CLAUDE.md".to_owned()),
            Just(String::new()),
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
