//! Rules filed under the literal prefix of their patterns: `team1/pkg7/rules/**` sits
//! at `team1` → `pkg7` → `rules`, `**/secret/**` at the root. Deciding a path visits
//! only the nodes along its own leading segments, so the rules of other subtrees are
//! never tried, however many a policy holds; every rule filed at a visited node has a
//! prefix the path starts with, and only the rest of its pattern is matched.

/// A tree of literal segments; each node holds a `T` (what is filed there). It owns its
/// segments, so a compiled policy can outlive the request that compiled it.
#[derive(Debug, Clone)]
pub(crate) struct PrefixTree<T> {
    /// The root first. A node's children are sorted by segment, so a step is a binary
    /// search: no hashing of the path's segments.
    nodes: Vec<Node<T>>,
}

#[derive(Debug, Clone)]
struct Node<T> {
    children: Vec<(Box<str>, usize)>,
    /// The node one segment up (`None` at the root): the walk climbs back through it.
    parent: Option<usize>,
    filed: T,
}

impl<T: Default> PrefixTree<T> {
    /// A tree with its root only.
    pub(crate) fn new() -> Self {
        PrefixTree {
            nodes: vec![Node {
                children: Vec::new(),
                parent: None,
                filed: T::default(),
            }],
        }
    }

    /// What is filed under `prefix`, the node created when missing.
    pub(crate) fn at<'p>(&mut self, prefix: impl IntoIterator<Item = &'p str>) -> &mut T {
        let mut node = 0;
        for segment in prefix {
            node = match self.child(node, segment) {
                Ok(found) => found,
                Err(slot) => {
                    let child = self.nodes.len();
                    self.nodes.push(Node {
                        children: Vec::new(),
                        parent: Some(node),
                        filed: T::default(),
                    });
                    self.nodes[node]
                        .children
                        .insert(slot, (segment.into(), child));
                    child
                }
            };
        }
        &mut self.nodes[node].filed
    }
}

impl<T> PrefixTree<T> {
    /// The child of `node` named `segment`, or where it would be inserted.
    fn child(&self, node: usize, segment: &str) -> Result<usize, usize> {
        let children = &self.nodes[node].children;
        children
            .binary_search_by(|(name, _)| (**name).cmp(segment))
            .map(|found| children[found].1)
    }

    /// What is filed along `path`, deepest first: the node of the longest run of
    /// leading segments of `path` that has one, then each node above it up to the root,
    /// each with its depth (how many segments it consumed). Climbing by parent links
    /// needs no buffer, so a decision allocates nothing.
    #[cfg(test)]
    pub(crate) fn deepest_first<'s>(
        &'s self,
        path: &[&str],
    ) -> impl Iterator<Item = (&'s T, usize)> + use<'s, T> {
        self.climb(self.descend(Position::ROOT, path))
    }

    /// The deepest node along `path`, starting from `from`, which must be where the
    /// descent along a leading part of `path` stopped (the root always is): the paths
    /// under one package root share the descent along the root's segments.
    pub(crate) fn descend(&self, from: Position, path: &[&str]) -> Position {
        let Position {
            mut node,
            mut depth,
        } = from;
        while let Some(Ok(child)) = path.get(depth).map(|segment| self.child(node, segment)) {
            node = child;
            depth += 1;
        }
        Position { node, depth }
    }

    /// What is filed at `at` and at each node above it, with their depths.
    pub(crate) fn climb<'s>(
        &'s self,
        at: Position,
    ) -> impl Iterator<Item = (&'s T, usize)> + use<'s, T> {
        let (mut next, mut depth) = (Some(at.node), at.depth);
        std::iter::from_fn(move || {
            let node = &self.nodes[next?];
            next = node.parent;
            let at = depth;
            depth = depth.saturating_sub(1);
            Some((&node.filed, at))
        })
    }
}

/// A node of a tree with its depth: where a descent stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    node: usize,
    depth: usize,
}

impl Position {
    /// The root, at depth 0.
    pub(crate) const ROOT: Position = Position { node: 0, depth: 0 };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_visits_the_nodes_of_its_leading_segments_only_deepest_first() {
        let mut tree: PrefixTree<Vec<&str>> = PrefixTree::new();
        tree.at([]).push("**");
        tree.at(["a"]).push("a/**");
        tree.at(["a", "b"]).push("a/b");
        tree.at(["a", "c"]).push("a/c/*");
        tree.at(["b"]).push("b/**");
        let visited = |path: &[&str]| -> Vec<(Vec<&str>, usize)> {
            tree.deepest_first(path)
                .map(|(filed, depth)| (filed.clone(), depth))
                .collect()
        };
        assert_eq!(visited(&[]), vec![(vec!["**"], 0)]);
        assert_eq!(
            visited(&["a", "b", "x"]),
            vec![(vec!["a/b"], 2), (vec!["a/**"], 1), (vec!["**"], 0)]
        );
        assert_eq!(
            visited(&["a", "x", "b"]),
            vec![(vec!["a/**"], 1), (vec!["**"], 0)]
        );
        assert_eq!(visited(&["c"]), vec![(vec!["**"], 0)]);
        // A descent may resume where the descent along a leading part stopped.
        for path in [&["a", "b", "x"][..], &["a", "x", "b"], &["c", "a"], &["a"]] {
            for known in 0..=path.len() {
                let part = tree.descend(Position::ROOT, &path[..known]);
                assert_eq!(
                    tree.descend(part, path),
                    tree.descend(Position::ROOT, path),
                    "{path:?} from {known}"
                );
            }
        }
    }
}
