//! Package keys: derived from the package's own root and name, never from what else
//! exists in the source (issue 10: a key that moves when an unrelated package appears
//! orphans the package states and agent-scope offs stored under it, and seed 000 says a
//! sync must never silently change agent behavior). Used in `Package.policy_key =
//! <source_id>/<key>` and in skill collision ids `<id>.<sourceSlug>.<packageKey>`.
//!
//! A key is the name's slug when the root is the source's canonical place for that
//! name, otherwise the slug and a hash of the root path (docs/decisions/layout.md):
//! - the source root (`""`): the slug of its name (the source slug, the root
//!   manifest's id, or an installed package's name);
//! - a top-level marker directory named by itself (`.claude`): `claude`;
//! - anything else: `<slug>-<fnv1a32(root) as 8 hex>`.
//!
//! Roots are unique within a source, so two keys can only meet through a 32-bit hash
//! collision between two roots whose names share a slug; a source-root name that
//! slugs to a marker's name (`claude`) takes the hashed form so it cannot meet the
//! marker package.

use std::collections::{HashMap, HashSet};

use crate::layout::Package;
use crate::vocabulary::{MARKER_DIRS, is_marker};

/// A lowercase `[a-z0-9-]` slug of a name (`.claude` → `claude`, `@acme/Helper` →
/// `acme-helper`); `package` when nothing is left.
pub fn slug(name: &str) -> String {
    let mut slug = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    while slug.ends_with('-') {
        slug.pop();
    }
    if slug.is_empty() {
        "package".to_owned()
    } else {
        slug
    }
}

/// FNV-1a 32: a small, fixed hash of the root path, the same across releases and
/// platforms (and the one earlier releases used for colliding names, so those keys
/// carry over unchanged).
fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

fn hashed(name: &str, root: &str) -> String {
    format!("{}-{:08x}", slug(name), fnv1a(root))
}

/// Whether `slug` is what a top-level marker directory's key spells.
fn is_marker_slug(slug: &str) -> bool {
    MARKER_DIRS.iter().any(|marker| marker[1..] == *slug)
}

/// The key of the package named `name` rooted at `root` (relative to the source root,
/// `""` for the source root). A function of these two only.
pub fn package_key(root: &str, name: &str) -> String {
    if root.is_empty() {
        let base = slug(name);
        return if is_marker_slug(&base) {
            hashed(name, root)
        } else {
            base
        };
    }
    if !root.contains('/') && is_marker(root) && name == root {
        return slug(name);
    }
    hashed(name, root)
}

/// Sets `key` on every package from its own root and name. A duplicate can only come
/// from a 32-bit hash collision; it gets a counter so keys stay unique (packages are
/// sorted by root, so the counter is deterministic).
pub(crate) fn assign_keys(packages: &mut [Package]) {
    let mut taken: HashMap<String, usize> = HashMap::new();
    for package in packages.iter_mut() {
        let mut key = package_key(&package.root, &package.name);
        let seen = taken.entry(key.clone()).or_default();
        *seen += 1;
        if *seen > 1 {
            key = format!("{key}-{seen}");
        }
        package.key = key;
    }
}

/// One stored key to move: what earlier releases called a package, and its key now.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct KeyMove {
    pub legacy: String,
    pub key: String,
}

/// The keys earlier releases gave these packages (all of one layout) that differ from
/// their keys now. Earlier releases keyed a package by its name's slug, or by the slug
/// and the root hash when another package of the layout shared the slug; which one
/// applied depended on the other packages, so:
/// - the hashed form is the package's own (it names the root) and always moves;
/// - the bare slug moves only when exactly one package of the layout has that slug and
///   no package is keyed by it now (otherwise whose state it was cannot be told, and
///   it is left where it is rather than given to the wrong package).
pub fn legacy_key_moves(packages: &[Package]) -> Vec<KeyMove> {
    let mut by_slug: HashMap<String, usize> = HashMap::new();
    for package in packages {
        *by_slug.entry(slug(&package.name)).or_default() += 1;
    }
    let current: HashSet<&str> = packages.iter().map(|p| p.key.as_str()).collect();
    let mut moves = Vec::new();
    for package in packages {
        let base = slug(&package.name);
        let old_hashed = hashed(&package.name, &package.root);
        if old_hashed != package.key && !current.contains(old_hashed.as_str()) {
            moves.push(KeyMove {
                legacy: old_hashed,
                key: package.key.clone(),
            });
        }
        let alone = by_slug.get(&base).copied() == Some(1);
        if base != package.key && alone && !current.contains(base.as_str()) {
            moves.push(KeyMove {
                legacy: base,
                key: package.key.clone(),
            });
        }
    }
    moves.sort();
    moves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::RootRule;

    fn package(name: &str, root: &str) -> Package {
        Package {
            name: name.into(),
            key: package_key(root, name),
            rule: RootRule::Category,
            root: root.into(),
            files: Vec::new(),
        }
    }

    #[test]
    fn slugs_are_lowercase_ascii_with_single_dashes() {
        for (name, expected) in [
            (".claude", "claude"),
            ("@acme/Helper", "acme-helper"),
            ("My  Package!", "my-package"),
            ("", "package"),
            ("日本", "package"),
        ] {
            assert_eq!(slug(name), expected, "{name}");
        }
    }

    /// The scheme, case by case (docs/decisions/layout.md, "Package keys").
    #[test]
    fn a_key_is_the_name_at_its_canonical_place_and_hashed_elsewhere() {
        let h = |root: &str| format!("{:08x}", fnv1a(root));
        for (root, name, expected) in [
            ("", "docs-repo", "docs-repo".to_owned()),
            ("", "@acme/Helper", "acme-helper".to_owned()),
            ("", "claude", format!("claude-{}", h(""))),
            (".claude", ".claude", "claude".to_owned()),
            (".github", ".github", "github".to_owned()),
            ("a/.claude", ".claude", format!("claude-{}", h("a/.claude"))),
            (".claude", "kit", format!("kit-{}", h(".claude"))),
            ("claude", "claude", format!("claude-{}", h("claude"))),
            (
                "packages/helper",
                "helper",
                format!("helper-{}", h("packages/helper")),
            ),
            ("helper", "helper", format!("helper-{}", h("helper"))),
        ] {
            assert_eq!(package_key(root, name), expected, "{root:?} {name:?}");
        }
    }

    /// The disambiguating hash is FNV-1a 32 (published test vectors), so a key stays
    /// the same across releases and platforms.
    #[test]
    fn the_root_hash_is_fnv1a_32() {
        for (text, hash) in [
            ("", 0x811c_9dc5),
            ("a", 0xe40c_292c),
            ("foobar", 0xbf9c_f968),
        ] {
            assert_eq!(fnv1a(text), hash, "{text:?}");
        }
    }

    /// A package whose own name spells another's hashed key still gets a key of its own
    /// (the counter only ever fires on such a spelling or a hash collision).
    #[test]
    fn keys_stay_unique_when_a_name_spells_a_hashed_key() {
        let spelled = format!("claude-{:08x}", fnv1a("a/.claude"));
        let mut packages = vec![
            package(&spelled, ""),
            package(".claude", "a/.claude"),
            package(".claude", "b/.claude"),
        ];
        assign_keys(&mut packages);
        let keys: Vec<&str> = packages.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys[0], spelled);
        assert_eq!(keys[1], format!("{spelled}-2"));
        assert_ne!(keys[1], keys[2]);
    }

    /// A package's hashed legacy key that another package is keyed by now (its name
    /// spells it) stays with that package: it is not moved to the first one.
    #[test]
    fn a_legacy_key_another_package_is_keyed_by_now_stays_where_it_is() {
        let spelled = format!("claude-{:08x}", fnv1a(".claude"));
        let packages = vec![package(&spelled, ""), package(".claude", ".claude")];
        assert_eq!(packages[0].key, spelled);
        assert_eq!(
            legacy_key_moves(&packages),
            [KeyMove {
                legacy: format!("{spelled}-{:08x}", fnv1a("")),
                key: spelled.clone()
            }]
        );
    }

    /// What earlier releases stored moves to the key now, only where it is the
    /// package's own: its hashed form always, its bare slug when it is alone with it.
    #[test]
    fn legacy_keys_move_only_where_their_owner_is_certain() {
        let packages = vec![
            package(".claude", ".claude"),
            package(".claude", "a/.claude"),
            package("helper", "packages/helper"),
            package("kit", "x/kit"),
            package("kit", "y/kit"),
        ];
        let moves = legacy_key_moves(&packages);
        let helper = package_key("packages/helper", "helper");
        let top = format!("claude-{:08x}", fnv1a(".claude"));
        assert_eq!(
            moves,
            [
                KeyMove {
                    legacy: top,
                    key: "claude".into()
                },
                KeyMove {
                    legacy: "helper".into(),
                    key: helper
                },
            ]
        );
    }
}
