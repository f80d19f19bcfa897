//! Binding sorted paths to the deepest root enclosing them, in one merge-like pass
//! (seed 000: "each file binds to the deepest root enclosing it").
//!
//! A root `r` encloses `p` when `p` starts with the key `r/` (the source root "" has
//! the empty key). All strings starting with a key form one contiguous run in sorted
//! order, so walking the paths in order beside the keys in order, a stack of the keys
//! passed that still prefix the current path is exactly the chain of roots enclosing
//! it: a key that stops prefixing the paths never prefixes a later one. This replaces a
//! hash lookup per ancestor folder of every folder with one comparison per path.

use std::cmp::Ordering;

use crate::roots::Root;

/// Binds paths, given in ascending byte order, to root indices.
pub(crate) struct Binding<'r> {
    /// Root indices ordered by key (`dir/`), which differs from `dir` order when a
    /// name continues with a byte below `/` (`a/b-c/` sorts before `a/b/`).
    by_key: Vec<(&'r str, usize)>,
    next: usize,
    /// The roots whose key prefixes the last path, shallowest first.
    stack: Vec<(&'r str, usize)>,
}

impl<'r> Binding<'r> {
    /// `roots[0]` must be the source root "".
    pub(crate) fn new(roots: &'r [Root<'_>]) -> Self {
        let mut by_key: Vec<(&str, usize)> = roots
            .iter()
            .enumerate()
            .skip(1)
            .map(|(index, root)| (root.dir, index))
            .collect();
        by_key.sort_unstable_by(|a, b| key_cmp(a.0, b.0));
        Self {
            by_key,
            next: 0,
            stack: vec![("", 0)],
        }
    }

    /// The index of the deepest root enclosing `path`; paths must come in ascending
    /// order.
    pub(crate) fn nearest(&mut self, path: &str) -> usize {
        while let Some(&(dir, index)) = self.by_key.get(self.next) {
            if key_cmp_path(dir, path) == Ordering::Greater {
                break;
            }
            self.pop_until_enclosing(dir);
            self.stack.push((dir, index));
            self.next += 1;
        }
        self.pop_until_enclosing(path);
        self.stack.last().map_or(0, |&(_, index)| index)
    }

    fn pop_until_enclosing(&mut self, path: &str) {
        while let Some(&(dir, _)) = self.stack.last() {
            if encloses(dir, path) {
                return;
            }
            self.stack.pop();
        }
    }
}

/// Whether the root folder `dir` encloses `path` (a file or a folder).
fn encloses(dir: &str, path: &str) -> bool {
    dir.is_empty()
        || (path.len() > dir.len() && path.as_bytes()[dir.len()] == b'/' && path.starts_with(dir))
}

/// Orders two non-empty root folders by their keys `a/` and `b/`.
fn key_cmp(a: &str, b: &str) -> Ordering {
    let slash = std::iter::once(b'/');
    a.bytes().chain(slash.clone()).cmp(b.bytes().chain(slash))
}

/// Compares the key `dir/` with `path`.
fn key_cmp_path(dir: &str, path: &str) -> Ordering {
    let (key, path) = (dir.as_bytes(), path.as_bytes());
    let shared = key.len().min(path.len());
    match key.cmp(&path[..shared]) {
        Ordering::Equal if path.len() > key.len() => b'/'.cmp(&path[key.len()]),
        Ordering::Equal => Ordering::Greater,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::RootRule;
    use crate::roots::nearest_root;
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn root(dir: &str) -> Root<'_> {
        Root {
            dir,
            rule: RootRule::Marker,
            name: String::new(),
        }
    }

    /// The deepest enclosing root, found by the merge, is the one found by looking up
    /// every ancestor folder, whatever the names (bytes below `/` included).
    #[test]
    fn binding_in_sorted_order_finds_the_deepest_enclosing_root() {
        let segment = prop::sample::select(vec!["a", "b", "a-b", "a.b", "b0", "a b"]);
        let path = prop::collection::vec(segment, 1..5).prop_map(|s| s.join("/"));
        let paths = prop::collection::btree_set(path, 1..40);
        let dirs = prop::collection::btree_set(
            prop::collection::vec(
                prop::sample::select(vec!["a", "b", "a-b", "a.b", "b0", "a b"]),
                1..4,
            )
            .prop_map(|s| s.join("/")),
            0..12,
        );
        proptest!(|(paths in paths, dirs in dirs)| {
            let mut roots = vec![root("")];
            roots.extend(dirs.iter().map(|d| root(d)));
            let by_dir: HashMap<&str, usize> =
                roots.iter().enumerate().map(|(i, r)| (r.dir, i)).collect();
            let mut binding = Binding::new(&roots);
            for path in &paths {
                prop_assert_eq!(binding.nearest(path), nearest_root(path, &by_dir), "{}", path);
            }
        });
    }
}
