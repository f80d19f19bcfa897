use super::*;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;

const LIMIT: u64 = 64;

fn write(root: &Path, relative: &str, content: &[u8]) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, content).expect("write");
}

fn reasons(listing: &Listing) -> Vec<(&str, SkipReason)> {
    listing
        .skipped
        .iter()
        .map(|s| (s.path.as_str(), s.reason))
        .collect()
}

fn paths(listing: &Listing) -> Vec<&str> {
    listing.files.iter().map(|f| f.path.as_str()).collect()
}

#[test]
fn a_listing_gives_every_file_relative_and_ordered() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "skills/b/SKILL.md", b"b");
    write(dir.path(), "AGENTS.md", b"agents");
    let listing = LocalConnector::new(dir.path(), LIMIT)
        .expect("root")
        .list()
        .expect("list");
    assert_eq!(paths(&listing), ["AGENTS.md", "skills/b/SKILL.md"]);
    assert_eq!(listing.files[0].size, 6);
    assert!(listing.skipped.is_empty());
}

#[test]
fn what_cannot_be_indexed_is_skipped_and_reported() {
    let outside = tempfile::tempdir().expect("tempdir");
    write(outside.path(), "secret.md", b"secret");
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "ok.md", b"fine");
    write(root, "big.md", &[b'x'; LIMIT as usize + 1]);
    symlink(outside.path().join("secret.md"), root.join("escape.md")).expect("link");
    symlink(outside.path(), root.join("escape-dir")).expect("link");
    symlink(root.join("self-a"), root.join("self-b")).expect("link");
    symlink(root.join("self-b"), root.join("self-a")).expect("link");
    fs::create_dir(root.join("sub")).expect("mkdir");
    symlink(root, root.join("sub/up")).expect("link");
    symlink(root.join("nowhere"), root.join("dangling.md")).expect("link");
    let bad_name = std::ffi::OsStr::from_bytes(b"bad\xff.md");
    fs::write(root.join(bad_name), b"x").expect("write");

    let listing = LocalConnector::new(root, LIMIT)
        .expect("root")
        .list()
        .expect("list");
    assert_eq!(paths(&listing), ["ok.md"]);
    assert_eq!(
        reasons(&listing),
        [
            ("bad\u{fffd}.md", SkipReason::NonUtf8Name),
            ("big.md", SkipReason::TooLarge),
            ("dangling.md", SkipReason::Unreadable),
            ("escape-dir", SkipReason::SymlinkEscape),
            ("escape.md", SkipReason::SymlinkEscape),
            ("self-a", SkipReason::SymlinkLoop),
            ("self-b", SkipReason::SymlinkLoop),
            ("sub/up", SkipReason::SymlinkLoop),
        ]
    );
}

#[test]
fn a_link_that_stays_inside_the_root_is_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "real/a.md", b"a");
    symlink(dir.path().join("real"), dir.path().join("alias")).expect("link");
    let listing = LocalConnector::new(dir.path(), LIMIT)
        .expect("root")
        .list()
        .expect("list");
    assert_eq!(paths(&listing), ["alias/a.md", "real/a.md"]);
}

#[test]
fn reads_never_leave_the_root() {
    let outside = tempfile::tempdir().expect("tempdir");
    write(outside.path(), "secret.md", b"secret");
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "docs/a.md", b"inside");
    write(dir.path(), "big.md", &[b'x'; LIMIT as usize + 1]);
    symlink(
        outside.path().join("secret.md"),
        dir.path().join("escape.md"),
    )
    .expect("link");
    let connector = LocalConnector::new(dir.path(), LIMIT).expect("root");
    assert_eq!(connector.read("docs/a.md").as_deref(), Ok(&b"inside"[..]));
    let outside_path = outside.path().join("secret.md");
    let refused = [
        "escape.md",
        "../secret.md",
        "docs/../../secret.md",
        "/etc/passwd",
        "",
        "docs",
        "docs/missing.md",
        "big.md",
        "./docs/a.md",
        outside_path.to_str().expect("utf-8"),
    ];
    for path in refused {
        assert_eq!(
            connector.read(path),
            Err(ConnectorError::NotFound),
            "{path}"
        );
        assert_eq!(
            connector.stat(path).map(|_| ()),
            Err(ConnectorError::NotFound),
            "{path}"
        );
    }
}

#[test]
fn a_missing_root_is_unavailable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("gone");
    assert!(matches!(
        LocalConnector::new(&missing, LIMIT),
        Err(ConnectorError::RootUnavailable(_))
    ));
}
