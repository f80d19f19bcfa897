//! Package keys: unique within a layout, derived from the package name, stable
//! whatever the order files arrive in. Used in skill collision ids
//! `<id>.<sourceSlug>.<packageKey>`.

use std::collections::HashMap;

use crate::layout::Package;

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

/// FNV-1a: a small, fixed hash of the root path, so a disambiguated key does not
/// depend on which other packages exist.
fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// Sets `key` on every package: the slug of its name, or the slug and a hash of its
/// root when several packages share that slug. Packages must be sorted by root.
pub(crate) fn assign_keys(packages: &mut [Package]) {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for package in packages.iter() {
        *counts.entry(slug(&package.name)).or_default() += 1;
    }
    let mut taken: HashMap<String, usize> = HashMap::new();
    for package in packages.iter_mut() {
        let base = slug(&package.name);
        let mut key = if counts.get(&base).copied().unwrap_or_default() > 1 {
            format!("{base}-{:08x}", fnv1a(&package.root))
        } else {
            base
        };
        let seen = taken.entry(key.clone()).or_default();
        *seen += 1;
        if *seen > 1 {
            key = format!("{key}-{seen}");
        }
        package.key = key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::RootRule;

    fn package(name: &str, root: &str) -> Package {
        Package {
            name: name.into(),
            key: String::new(),
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

    #[test]
    fn keys_are_unique_and_disambiguated_by_root_only_on_collision() {
        let mut packages = vec![
            package(".claude", "a/.claude"),
            package(".claude", "b/.claude"),
            package("helper", "packages/helper"),
        ];
        assign_keys(&mut packages);
        assert_eq!(packages[2].key, "helper");
        assert!(packages[0].key.starts_with("claude-"));
        assert_ne!(packages[0].key, packages[1].key);
        // the key of a colliding package depends on its own root only
        let mut alone = vec![
            package(".claude", "a/.claude"),
            package(".claude", "c/.claude"),
        ];
        assign_keys(&mut alone);
        assert_eq!(alone[0].key, packages[0].key);
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

    /// A package whose own name spells another's disambiguated key still gets a key of
    /// its own.
    #[test]
    fn keys_stay_unique_when_a_name_spells_a_disambiguated_key() {
        let spelled = format!("claude-{:08x}", fnv1a("a/.claude"));
        let mut packages = vec![
            package(".claude", "a/.claude"),
            package(".claude", "b/.claude"),
            package(&spelled, "z"),
        ];
        assign_keys(&mut packages);
        let keys: Vec<&str> = packages.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys[0], spelled);
        assert_eq!(keys[2], format!("{spelled}-2"));
        assert_ne!(keys[0], keys[1]);
    }
}
