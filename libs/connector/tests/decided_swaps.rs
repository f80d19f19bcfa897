//! The property behind every caller-facing read: after any swaps made since the sync
//! (file ↔ link ↔ directory, links inside and out of the root, between agents' trees),
//! `read_decided` returns bytes only when they are the bytes decided on, read from a
//! regular file reached without any link; and then it does return them.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use neuralis_connector::{ConnectorError, ConnectorLimits, LocalConnector, fingerprint};
use proptest::prelude::*;

/// The files a sync decided on (its rows), each with its fingerprint.
const FILES: &[&str] = &[
    "docs/t3.md",
    "vault/secret.md",
    "skills/s/SKILL.md",
    "skills/s/ref.md",
    "agents/a1/SKILL.md",
    "agents/a2/private.md",
];
/// The directories of the tree: swapped too.
const DIRS: &[&str] = &[
    "docs",
    "vault",
    "skills",
    "skills/s",
    "agents/a1",
    "agents/a2",
];
/// Outside the root: what a link out of it would reach.
const OUTSIDE: &[&str] = &["secret.md", "s/SKILL.md", "s"];
/// Few contents, so two files often hold the same bytes: a link to a file with the
/// decided bytes must still be refused (it is not the decided file).
const CONTENTS: &[&[u8]] = &[b"alpha", b"beta", b"SECRET", b""];

/// What a swap puts at a node of the tree.
#[derive(Debug, Clone)]
enum Swap {
    /// A regular file with these contents (an edit, or a directory become a file).
    File(usize),
    /// A link to another node of the tree (absolute or relative).
    InRootLink { to: usize, relative: bool },
    /// A link out of the root.
    OutsideLink(usize),
    /// An empty directory.
    Directory,
    /// Nothing.
    Removed,
}

fn nodes() -> Vec<&'static str> {
    FILES.iter().chain(DIRS).copied().collect()
}

fn swap() -> impl Strategy<Value = Swap> {
    let nodes = nodes().len();
    prop_oneof![
        (0..CONTENTS.len()).prop_map(Swap::File),
        (0..nodes, any::<bool>()).prop_map(|(to, relative)| Swap::InRootLink { to, relative }),
        (0..OUTSIDE.len()).prop_map(Swap::OutsideLink),
        Just(Swap::Directory),
        Just(Swap::Removed),
    ]
}

/// Replaces whatever is at `path` (a link is removed, never followed).
fn clear(path: &Path) {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => drop(fs::remove_dir_all(path)),
        Ok(_) => drop(fs::remove_file(path)),
        Err(_) => {}
    }
}

/// Applies one swap; a swap the tree cannot take now (its parent is a file) is a no-op.
fn apply(root: &Path, outside: &Path, at: &str, swap: &Swap) {
    let path = root.join(at);
    clear(&path);
    if let Some(parent) = path.parent() {
        // May create through a linked parent: that is a tree an attacker can make too.
        let _ = fs::create_dir_all(parent);
    }
    let _ = match swap {
        Swap::File(content) => fs::write(&path, CONTENTS[*content]),
        Swap::InRootLink { to, relative } => {
            let to = nodes()[*to];
            let target = if *relative {
                let depth = at.matches('/').count();
                PathBuf::from("../".repeat(depth)).join(to)
            } else {
                root.join(to)
            };
            symlink(target, &path)
        }
        Swap::OutsideLink(to) => symlink(outside.join(OUTSIDE[*to]), &path),
        Swap::Directory => fs::create_dir(&path),
        Swap::Removed => Ok(()),
    };
}

/// What a correct read of `path` decided as `expected` answers now, from the tree
/// itself: a link or non-directory on the way, or no regular file at the end, is not
/// found; a regular file holding other bytes is changed; else its bytes.
fn oracle(root: &Path, path: &str, expected: u64) -> Result<Vec<u8>, &'static str> {
    let segments: Vec<&str> = path.split('/').collect();
    let mut at = root.to_path_buf();
    for (i, segment) in segments.iter().enumerate() {
        at.push(segment);
        let meta = fs::symlink_metadata(&at).map_err(|_| "not found")?;
        let last = i + 1 == segments.len();
        let fits = if last { meta.is_file() } else { meta.is_dir() };
        if !fits {
            return Err("not found");
        }
    }
    let content = fs::read(&at).unwrap();
    if fingerprint(&content) == expected {
        Ok(content)
    } else {
        Err("changed")
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn no_read_returns_bytes_the_decision_did_not_admit(
        initial in proptest::collection::vec(0..CONTENTS.len(), FILES.len()),
        swaps in proptest::collection::vec((0..nodes().len(), swap()), 0..6),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, content) in FILES.iter().zip(&initial) {
            let full = root.join(path);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, CONTENTS[*content]).unwrap();
        }
        fs::create_dir_all(outside.path().join("s")).unwrap();
        fs::write(outside.path().join("secret.md"), b"SECRET").unwrap();
        fs::write(outside.path().join("s/SKILL.md"), b"alpha").unwrap();
        // The decisions: every file's bytes as the sync read them.
        let decided: Vec<u64> = initial.iter().map(|c| fingerprint(CONTENTS[*c])).collect();
        let connector = LocalConnector::new(root, ConnectorLimits::default()).unwrap();
        let all = nodes();
        for (node, swap) in &swaps {
            apply(root, outside.path(), all[*node], swap);
        }
        for (path, expected) in FILES.iter().zip(&decided) {
            let read = connector.read_decided(path, *expected);
            if let Ok(bytes) = &read {
                prop_assert_eq!(fingerprint(bytes), *expected, "{} served other bytes", path);
            }
            match (oracle(root, path, *expected), read) {
                (Ok(want), Ok(got)) => prop_assert_eq!(want, got),
                (Err("changed"), Err(ConnectorError::Changed { .. }))
                | (Err("not found"), Err(ConnectorError::NotFound { .. })) => {}
                (want, got) => prop_assert!(false, "{path}: expected {want:?}, got {got:?} after {swaps:?}"),
            }
        }
    }
}
