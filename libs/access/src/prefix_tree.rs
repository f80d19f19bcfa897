//! Rules filed under the literal prefix of their patterns: `team1/pkg7/rules/**` sits
//! at `team1` → `pkg7` → `rules`, `**/secret/**` at the root. Deciding a path visits
//! only the nodes along its own leading segments, so the rules of other subtrees are
//! never tried, however many a policy holds; every rule filed at a visited node has a
//! prefix the path starts with, and only the rest of its pattern is matched.

/// A tree of literal segments; each node holds a `T` (what is filed there).
#[derive(Debug, Clone)]
pub(crate) struct PrefixTree<'a, T> {
    /// The root first. A node's children are sorted by segment, so a step is a binary
    /// search: no hashing of the path's segments.
    nodes: Vec<Node<'a, T>>,
}

#[derive(Debug, Clone)]
struct Node<'a, T> {
    children: Vec<(&'a str, usize)>,
    filed: T,
}

impl<'a, T: Default> PrefixTree<'a, T> {
    /// A tree with its root only.
    pub(crate) fn new() -> Self {
        PrefixTree {
            nodes: vec![Node {
                children: Vec::new(),
                filed: T::default(),
            }],
        }
    }

    /// What is filed under `prefix`, the node created when missing.
    pub(crate) fn at(&mut self, prefix: impl IntoIterator<Item = &'a str>) -> &mut T {
        let mut node = 0;
        for segment in prefix {
            let children = &self.nodes[node].children;
            node = match children.binary_search_by(|(name, _)| (*name).cmp(segment)) {
                Ok(found) => children[found].1,
                Err(slot) => {
                    let child = self.nodes.len();
                    self.nodes.push(Node {
                        children: Vec::new(),
                        filed: T::default(),
                    });
                    self.nodes[node].children.insert(slot, (segment, child));
                    child
                }
            };
        }
        &mut self.nodes[node].filed
    }
}

impl<T> PrefixTree<'_, T> {
    /// What is filed along `path`: the root (depth 0), then the node of each leading
    /// segment of `path` that has one, with its depth (how many segments it consumed).
    pub(crate) fn along<'s>(&'s self, path: &'s [&str]) -> impl Iterator<Item = (&'s T, usize)> {
        let mut next = Some(0);
        let mut depth = 0;
        std::iter::from_fn(move || {
            let node = &self.nodes[next?];
            let at = depth;
            next = path.get(depth).and_then(|segment| {
                node.children
                    .binary_search_by(|(name, _)| (*name).cmp(segment))
                    .ok()
                    .map(|found| node.children[found].1)
            });
            depth += 1;
            Some((&node.filed, at))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_visits_the_nodes_of_its_leading_segments_only() {
        let mut tree: PrefixTree<'_, Vec<&str>> = PrefixTree::new();
        tree.at([]).push("**");
        tree.at(["a"]).push("a/**");
        tree.at(["a", "b"]).push("a/b");
        tree.at(["a", "c"]).push("a/c/*");
        tree.at(["b"]).push("b/**");
        let visited = |path: &[&str]| -> Vec<(Vec<&str>, usize)> {
            tree.along(path)
                .map(|(filed, depth)| (filed.clone(), depth))
                .collect()
        };
        assert_eq!(visited(&[]), vec![(vec!["**"], 0)]);
        assert_eq!(
            visited(&["a", "b", "x"]),
            vec![(vec!["**"], 0), (vec!["a/**"], 1), (vec!["a/b"], 2)]
        );
        assert_eq!(
            visited(&["a", "x", "b"]),
            vec![(vec!["**"], 0), (vec!["a/**"], 1)]
        );
        assert_eq!(visited(&["c"]), vec![(vec!["**"], 0)]);
    }
}
