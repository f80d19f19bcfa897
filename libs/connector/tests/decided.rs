//! `read_decided`: the one read behind every caller-facing file read. What it returns is
//! provably the file whose row was decided on: reached without following any link,
//! a regular file, and holding the very bytes the fingerprint names. Every attack here
//! is a swap made after the sync (the row's decision stands, the tree moved under it).
#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use neuralis_connector::{ConnectorError, ConnectorLimits, LocalConnector, fingerprint};

fn write(root: &Path, path: &str, content: &[u8]) {
    let full = root.join(path);
    fs::create_dir_all(full.parent().unwrap()).unwrap();
    fs::write(full, content).unwrap();
}

fn connector(root: &Path) -> LocalConnector {
    LocalConnector::new(root, ConnectorLimits::default()).unwrap()
}

/// A tree as a sync saw it: a public doc, a hidden vault, two agents' skills.
fn synced_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "docs/t3.md", b"public doc");
    write(root, "vault/secret.md", b"VAULT SECRET");
    write(root, "skills/s/SKILL.md", b"---\nname: s\n---\nskill body");
    write(root, "agents/a1/skills/k/SKILL.md", b"agent one skill");
    write(root, "agents/a2/private/notes.md", b"AGENT TWO PRIVATE");
    dir
}

fn is_not_found(outcome: &Result<Vec<u8>, ConnectorError>) -> bool {
    matches!(outcome, Err(ConnectorError::NotFound { .. }))
}

#[test]
fn an_unchanged_file_is_read_as_decided() {
    let dir = synced_tree();
    let c = connector(dir.path());
    let read = c.read_decided("docs/t3.md", fingerprint(b"public doc"));
    assert_eq!(read.unwrap(), b"public doc");
}

#[test]
fn a_file_rewritten_since_its_row_is_changed_never_served() {
    let dir = synced_tree();
    let c = connector(dir.path());
    let decided = fingerprint(b"public doc");
    // In place (same inode): an identity check would let this through.
    fs::write(dir.path().join("docs/t3.md"), b"VAULT SECRET").unwrap();
    let read = c.read_decided("docs/t3.md", decided);
    assert!(
        matches!(read, Err(ConnectorError::Changed { .. })),
        "{read:?}"
    );
}

#[test]
fn a_last_component_swapped_for_a_link_to_a_hidden_file_is_not_found() {
    let dir = synced_tree();
    let root = dir.path();
    let c = connector(root);
    fs::remove_file(root.join("docs/t3.md")).unwrap();
    symlink("../vault/secret.md", root.join("docs/t3.md")).unwrap();
    assert!(is_not_found(
        &c.read_decided("docs/t3.md", fingerprint(b"public doc"))
    ));
    // Not even with the target's own fingerprint: the link is never followed.
    let target = fingerprint(b"VAULT SECRET");
    assert!(is_not_found(&c.read_decided("docs/t3.md", target)));
}

#[test]
fn a_directory_component_swapped_for_a_link_into_the_vault_is_not_found() {
    let dir = synced_tree();
    let root = dir.path();
    let c = connector(root);
    fs::remove_dir_all(root.join("skills/s")).unwrap();
    fs::create_dir_all(root.join("vault/s")).unwrap();
    fs::write(root.join("vault/s/SKILL.md"), b"VAULT SKILL").unwrap();
    symlink("../vault/s", root.join("skills/s")).unwrap();
    for expected in [b"---\nname: s\n---\nskill body".as_slice(), b"VAULT SKILL"] {
        let read = c.read_decided("skills/s/SKILL.md", fingerprint(expected));
        assert!(is_not_found(&read), "{read:?}");
    }
}

#[test]
fn an_agent_s_skill_linked_into_another_agent_s_private_tree_is_not_found() {
    let dir = synced_tree();
    let root = dir.path();
    let c = connector(root);
    let own = root.join("agents/a1/skills/k/SKILL.md");
    fs::remove_file(&own).unwrap();
    symlink("../../../a2/private/notes.md", &own).unwrap();
    let private = fingerprint(b"AGENT TWO PRIVATE");
    for expected in [fingerprint(b"agent one skill"), private] {
        let read = c.read_decided("agents/a1/skills/k/SKILL.md", expected);
        assert!(is_not_found(&read), "{read:?}");
    }
}

#[test]
fn links_out_of_the_root_are_not_found() {
    let dir = synced_tree();
    let root = dir.path();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("key.pem"), b"PRIVATE KEY").unwrap();
    let c = connector(root);
    fs::remove_file(root.join("docs/t3.md")).unwrap();
    symlink("/etc/passwd", root.join("docs/t3.md")).unwrap();
    assert!(is_not_found(
        &c.read_decided("docs/t3.md", fingerprint(b"public doc"))
    ));
    let passwd = fs::read("/etc/passwd").unwrap_or_default();
    assert!(is_not_found(
        &c.read_decided("docs/t3.md", fingerprint(&passwd))
    ));
    fs::remove_dir_all(root.join("skills")).unwrap();
    symlink(outside.path(), root.join("skills")).unwrap();
    let key = fingerprint(b"PRIVATE KEY");
    assert!(is_not_found(&c.read_decided("skills/key.pem", key)));
}

#[test]
fn paths_that_are_not_plain_relative_are_not_found() {
    let dir = synced_tree();
    let c = connector(dir.path());
    let secret = fingerprint(b"VAULT SECRET");
    for path in [
        "",
        "/etc/passwd",
        "../vault/secret.md",
        "docs/../vault/secret.md",
        "./vault/secret.md",
        "vault//secret.md",
        "vault/secret.md/",
        "vault/secret.md\0",
        "vault/\nsecret.md",
        "vault/secret.md\u{7f}",
    ] {
        assert!(is_not_found(&c.read_decided(path, secret)), "{path:?}");
    }
}

#[test]
fn a_fifo_or_a_directory_is_not_found_without_blocking() {
    let dir = synced_tree();
    let root = dir.path();
    let c = connector(root);
    fs::remove_file(root.join("docs/t3.md")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(root.join("docs/t3.md"))
        .status()
        .unwrap();
    assert!(status.success());
    // Opened non-blocking: a fifo nobody writes to cannot hang the read.
    assert!(is_not_found(
        &c.read_decided("docs/t3.md", fingerprint(b"public doc"))
    ));
    assert!(is_not_found(&c.read_decided("vault", fingerprint(b""))));
}

#[test]
fn a_row_reached_through_an_in_root_link_is_read_at_its_real_path_only() {
    let dir = synced_tree();
    let root = dir.path();
    symlink("../docs/t3.md", root.join("skills/alias.md")).unwrap();
    let c = connector(root);
    let decided = fingerprint(b"public doc");
    assert_eq!(
        c.read_decided("docs/t3.md", decided).unwrap(),
        b"public doc"
    );
    assert!(is_not_found(&c.read_decided("skills/alias.md", decided)));
}

#[test]
fn forbidden_too_large_and_undecided_reads_are_not_found() {
    let dir = synced_tree();
    let root = dir.path();
    let limits = ConnectorLimits {
        max_file_size: 12,
        ..ConnectorLimits::default()
    };
    let c = LocalConnector::new(root, limits)
        .unwrap()
        .with_forbidden(&[root.join("vault")]);
    let secret = fingerprint(b"VAULT SECRET");
    assert!(is_not_found(&c.read_decided("vault/secret.md", secret)));
    write(root, "docs/big.md", b"thirteen byte");
    let big = fingerprint(b"thirteen byte");
    assert!(is_not_found(&c.read_decided("docs/big.md", big)));
    // Fingerprint 0: the reader holds no decided row.
    write(root, "docs/empty.md", b"");
    assert!(is_not_found(&c.read_decided("docs/empty.md", 0)));
    assert_eq!(
        c.read_decided("docs/t3.md", fingerprint(b"public doc"))
            .unwrap(),
        b"public doc"
    );
}
