//! Per-file overrides at two scopes (seed 000, "Defaults and per-file control"): the
//! agent scope (the packages editor in the agent settings) and the conversation scope
//! (the composer's package selector). A delegate child run inherits the parent
//! conversation's overrides: the nearest override walking child, parent, grandparent wins.

use std::collections::HashMap;

/// Where an override was set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OverrideScope {
    /// On an agent's configuration; an off here is final.
    Agent,
    /// On one conversation; inherited by its delegate child runs.
    Conversation,
}

/// The explicit per-file switches of one agent or one conversation: package key, then
/// file path, to on (`true`) or off (`false`). A file without an entry has no override.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOverrides {
    by_package: HashMap<String, PackageOverrides>,
}

/// The switches of one package's files, by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackageOverrides(HashMap<String, bool>);

impl PackageOverrides {
    /// The override of `path`, if any.
    pub fn get(&self, path: &str) -> Option<bool> {
        self.0.get(path).copied()
    }
}

impl FileOverrides {
    /// Records the override of `path` in `package`.
    pub fn insert(&mut self, package: impl Into<String>, path: impl Into<String>, enabled: bool) {
        self.by_package
            .entry(package.into())
            .or_default()
            .0
            .insert(path.into(), enabled);
    }

    /// The override of `path` in `package`, if any.
    pub fn get(&self, package: &str, path: &str) -> Option<bool> {
        self.package(package)?.get(path)
    }

    /// The overrides of `package`'s files, when it has any (evaluation looks a package
    /// up once, then each of its files).
    pub fn package(&self, package: &str) -> Option<&PackageOverrides> {
        self.by_package
            .get(package)
            .filter(|overrides| !overrides.0.is_empty())
    }

    /// Whether no override is recorded.
    pub fn is_empty(&self) -> bool {
        self.by_package
            .values()
            .all(|overrides| overrides.0.is_empty())
    }
}

impl<P: Into<String>, F: Into<String>> FromIterator<(P, F, bool)> for FileOverrides {
    fn from_iter<I: IntoIterator<Item = (P, F, bool)>>(entries: I) -> Self {
        let mut overrides = FileOverrides::default();
        for (package, path, enabled) in entries {
            overrides.insert(package, path, enabled);
        }
        overrides
    }
}

/// The nearest conversation override of a file along a delegate chain given child first.
pub fn nearest(chain: &[FileOverrides], package: &str, path: &str) -> Option<bool> {
    chain
        .iter()
        .find_map(|overrides| overrides.get(package, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delegate_child_takes_the_nearest_override_walking_child_parent_grandparent() {
        let set = |state: Option<bool>| -> FileOverrides {
            state
                .map(|on| ("pkg", "rules/a.md", on))
                .into_iter()
                .collect()
        };
        let cases = [
            ([None, None, None], None),
            ([None, None, Some(true)], Some(true)),
            ([None, Some(false), Some(true)], Some(false)),
            ([Some(true), Some(false), Some(false)], Some(true)),
            ([None, Some(true), None], Some(true)),
        ];
        for (states, expected) in cases {
            let chain: Vec<FileOverrides> = states.into_iter().map(set).collect();
            assert_eq!(nearest(&chain, "pkg", "rules/a.md"), expected, "{states:?}");
            assert_eq!(nearest(&chain, "pkg", "rules/b.md"), None);
        }
    }
}
