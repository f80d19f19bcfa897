//! The import graph of one crate: files that name each other's items, loops among them,
//! and the floors its top-level modules stand on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::modules::Crate;

/// One file naming an item written in another.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Import {
    pub from: PathBuf,
    pub to: PathBuf,
    /// The path as written, for the report.
    pub named: String,
}

/// A reference resolved to the module whose file writes the item it names.
const MAX_HOPS: usize = 16;

impl Crate {
    /// The file-to-file imports of the crate. A file naming its own ancestor or
    /// descendant module is containment, not layering, and is left out.
    pub fn imports(&self) -> BTreeSet<Import> {
        let mut imports = BTreeSet::new();
        for (id, module) in self.modules.iter().enumerate() {
            for path in &module.references {
                let Some(target) = self.resolve(id, path, 0) else {
                    continue;
                };
                let to = &self.modules[target];
                if to.file == module.file
                    || is_prefix(&to.path, &module.path)
                    || is_prefix(&module.path, &to.path)
                {
                    continue;
                }
                imports.insert(Import {
                    from: module.file.clone(),
                    to: to.file.clone(),
                    named: path.join("::"),
                });
            }
        }
        imports
    }

    /// The module holding what `path`, written in module `at`, names; `None` for
    /// another crate's item.
    fn resolve(&self, at: usize, path: &[String], hops: usize) -> Option<usize> {
        if hops > MAX_HOPS || path.is_empty() {
            return None;
        }
        let module = &self.modules[at];
        let (mut current, rest) = match path[0].as_str() {
            "crate" => (0, &path[1..]),
            "self" => (at, &path[1..]),
            "super" => {
                let mut current = at;
                let mut rest = path;
                while rest.first().is_some_and(|s| s == "super") {
                    current = self.modules[current].parent?;
                    rest = &rest[1..];
                }
                (current, rest)
            }
            first => {
                if let Some(child) = module.children.get(first) {
                    (*child, &path[1..])
                } else if let Some(bound) = module.uses.get(first) {
                    return self.resolve(at, &joined(bound, &path[1..]), hops + 1);
                } else {
                    return None;
                }
            }
        };
        for (i, segment) in rest.iter().enumerate() {
            let here = &self.modules[current];
            if let Some(child) = here.children.get(segment) {
                current = *child;
                continue;
            }
            if here.items.contains(segment) {
                return Some(current);
            }
            if let Some(bound) = here.uses.get(segment) {
                return self.resolve(current, &joined(bound, &rest[i + 1..]), hops + 1);
            }
            let through_glob = here
                .uses
                .iter()
                .filter(|(name, _)| name.starts_with('*'))
                .find_map(|(_, glob)| self.resolve(current, &joined(glob, &rest[i..]), hops + 1));
            return through_glob.or(Some(current));
        }
        Some(current)
    }
}

fn joined(head: &[String], tail: &[String]) -> Vec<String> {
    head.iter().chain(tail).cloned().collect()
}

fn is_prefix(prefix: &[String], path: &[String]) -> bool {
    path.len() >= prefix.len() && path[..prefix.len()] == *prefix
}

/// The strongly connected parts of a graph with more than one node: its loops.
pub fn loops<N: Ord + Clone>(edges: &BTreeMap<N, BTreeSet<N>>) -> Vec<Vec<N>> {
    // Kosaraju: order by finish time, then walk the reversed graph in that order.
    let nodes: BTreeSet<N> = edges
        .iter()
        .flat_map(|(from, tos)| std::iter::once(from.clone()).chain(tos.iter().cloned()))
        .collect();
    let mut finished = Vec::new();
    let mut seen = BTreeSet::new();
    for node in &nodes {
        finish(node, edges, &mut seen, &mut finished);
    }
    let mut reversed: BTreeMap<N, BTreeSet<N>> = BTreeMap::new();
    for (from, tos) in edges {
        for to in tos {
            reversed.entry(to.clone()).or_default().insert(from.clone());
        }
    }
    let mut assigned = BTreeSet::new();
    let mut found = Vec::new();
    for node in finished.iter().rev() {
        let mut part = Vec::new();
        finish(node, &reversed, &mut assigned, &mut part);
        if part.len() > 1 {
            part.sort();
            found.push(part);
        }
    }
    found
}

/// Depth-first from `node`, pushing each node once all it reaches is done (iterative:
/// import chains can be deep).
fn finish<N: Ord + Clone>(
    node: &N,
    edges: &BTreeMap<N, BTreeSet<N>>,
    seen: &mut BTreeSet<N>,
    out: &mut Vec<N>,
) {
    if !seen.insert(node.clone()) {
        return;
    }
    let empty = BTreeSet::new();
    let mut stack = vec![(node.clone(), edges.get(node).unwrap_or(&empty).iter())];
    while let Some((current, next)) = stack.last_mut() {
        match next.find(|n| !seen.contains(*n)) {
            Some(n) => {
                seen.insert(n.clone());
                let onward = edges.get(n).unwrap_or(&empty).iter();
                stack.push((n.clone(), onward));
            }
            None => {
                out.push(current.clone());
                stack.pop();
            }
        }
    }
}

/// Floor of each node of a graph without loops: 1 for a node that imports nothing, else
/// one above the highest node it imports.
pub fn floors<N: Ord + Clone>(edges: &BTreeMap<N, BTreeSet<N>>) -> BTreeMap<N, usize> {
    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    for node in edges.keys() {
        finish(node, edges, &mut seen, &mut order);
    }
    let mut floor = BTreeMap::new();
    for node in order {
        let below = edges
            .get(&node)
            .into_iter()
            .flatten()
            .filter_map(|n| floor.get(n).copied())
            .max()
            .unwrap_or(0);
        floor.insert(node, below + 1);
    }
    floor
}
