//! Files reached through in-root symlinks carry their real path (access is decided
//! under both names), and forbidden directories (the server's data) are never listed
//! nor read, however they are reached.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use neuralis_connector::{ConnectorError, ConnectorLimits, LocalConnector, SkipReason};

fn write(root: &Path, path: &str, content: &[u8]) {
    let full = root.join(path);
    fs::create_dir_all(full.parent().unwrap()).unwrap();
    fs::write(full, content).unwrap();
}

fn connector(root: &Path) -> LocalConnector {
    LocalConnector::new(root, ConnectorLimits::default()).unwrap()
}

fn real_paths(connector: &LocalConnector) -> Vec<(String, Option<String>)> {
    connector
        .list()
        .files
        .into_iter()
        .map(|file| (file.path, file.real_path))
        .collect()
}

#[test]
fn a_file_reached_through_a_symlink_carries_its_real_path() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "agents/alice/rules/secret.md", b"private");
    write(root, "plain.md", b"plain");
    fs::create_dir_all(root.join("shared/rules")).unwrap();
    symlink(
        "../../agents/alice/rules/secret.md",
        root.join("shared/rules/leak.md"),
    )
    .unwrap();
    symlink("agents/alice", root.join("alias")).unwrap();
    let listed = real_paths(&connector(root));
    let expected = |path: &str, real: Option<&str>| (path.to_owned(), real.map(str::to_owned));
    assert_eq!(
        listed,
        [
            expected("agents/alice/rules/secret.md", None),
            expected(
                "alias/rules/secret.md",
                Some("agents/alice/rules/secret.md")
            ),
            expected("plain.md", None),
            expected("shared/rules/leak.md", Some("agents/alice/rules/secret.md")),
        ]
    );
}

#[test]
fn a_forbidden_directory_is_never_listed_nor_read_however_reached() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "data/signing.key", b"secret key");
    write(root, "docs/a.md", b"fine");
    symlink("data/signing.key", root.join("key-link")).unwrap();
    symlink("data", root.join("data-link")).unwrap();
    let forbidden = vec![root.join("data")];
    let connector = connector(root).with_forbidden(&forbidden);
    let listing = connector.list();
    let paths: Vec<&str> = listing.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["docs/a.md"]);
    for path in ["data", "data-link", "key-link"] {
        let reason = listing
            .skipped
            .iter()
            .find(|s| s.path == path)
            .map(|s| s.reason.clone());
        assert_eq!(reason, Some(SkipReason::Excluded), "{path}");
    }
    for path in ["data/signing.key", "key-link", "data-link/signing.key"] {
        assert!(
            matches!(connector.read(path), Err(ConnectorError::NotFound { .. })),
            "{path}"
        );
        assert!(connector.stat(path).is_err(), "{path}");
    }
    assert_eq!(connector.read("docs/a.md").unwrap(), b"fine");
}
