//! The local connector against real directories made at test time.
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

fn reason_of(listing: &neuralis_connector::Listing, path: &str) -> Option<SkipReason> {
    listing
        .skipped
        .iter()
        .find(|s| s.path == path)
        .map(|s| s.reason.clone())
}

#[test]
fn list_returns_relative_slash_paths_sorted() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.md", b"b");
    write(dir.path(), "a/z.md", b"z");
    write(dir.path(), "a/b/c.md", b"ccc");
    write(dir.path(), "a-b/x.md", b"x");
    let listing = connector(dir.path()).list();
    let paths: Vec<&str> = listing.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["a-b/x.md", "a/b/c.md", "a/z.md", "b.md"]);
    assert_eq!(listing.files[1].size, 3);
    assert!(listing.files[1].modified.is_some());
    assert!(listing.skipped.is_empty());
}

#[test]
fn read_and_stat_a_file_inside_the_root() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "docs/a.md", b"hello");
    let c = connector(dir.path());
    assert_eq!(c.read("docs/a.md").unwrap(), b"hello");
    assert_eq!(c.stat("docs/a.md").unwrap().size, 5);
}

#[test]
fn a_missing_file_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let c = connector(dir.path());
    assert!(matches!(
        c.read("nope.md"),
        Err(ConnectorError::NotFound { .. })
    ));
    assert!(matches!(
        c.stat("nope.md"),
        Err(ConnectorError::NotFound { .. })
    ));
}

/// "a path that escapes the root, through `..` or a symlink, is NotFound too — never read"
#[test]
fn paths_that_escape_the_root_are_not_found() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", b"secret");
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "ok.md", b"ok");
    symlink(
        outside.path().join("secret.txt"),
        dir.path().join("link.txt"),
    )
    .unwrap();
    symlink(outside.path(), dir.path().join("out")).unwrap();
    let c = connector(dir.path());
    let secret = outside.path().join("secret.txt");
    for path in [
        "../secret.txt",
        "link.txt",
        "out/secret.txt",
        secret.to_str().unwrap(),
        "./ok.md",
        "",
        ".",
    ] {
        assert!(
            matches!(c.read(path), Err(ConnectorError::NotFound { .. })),
            "{path}"
        );
    }
}

#[test]
fn directories_are_not_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a/b.md", b"");
    assert!(matches!(
        connector(dir.path()).read("a"),
        Err(ConnectorError::NotFound { .. })
    ));
}

#[test]
fn symlinks_inside_the_root_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "real/a.md", b"a");
    symlink(dir.path().join("real"), dir.path().join("alias")).unwrap();
    symlink(dir.path().join("real/a.md"), dir.path().join("b.md")).unwrap();
    let c = connector(dir.path());
    let listing = c.list();
    let paths: Vec<&str> = listing.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["alias/a.md", "b.md", "real/a.md"]);
    assert_eq!(c.read("alias/a.md").unwrap(), b"a");
}

#[test]
fn a_symlink_out_of_the_tree_is_skipped_and_reported() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "x.md", b"x");
    let dir = tempfile::tempdir().unwrap();
    symlink(outside.path(), dir.path().join("escape")).unwrap();
    symlink(outside.path().join("x.md"), dir.path().join("escape.md")).unwrap();
    symlink("/etc/passwd", dir.path().join("passwd")).unwrap();
    let listing = connector(dir.path()).list();
    assert!(listing.files.is_empty(), "{:?}", listing.files);
    for path in ["escape", "escape.md", "passwd"] {
        assert_eq!(
            reason_of(&listing, path),
            Some(SkipReason::SymlinkOutsideRoot),
            "{path}"
        );
    }
}

#[test]
fn a_symlink_loop_is_skipped_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a/file.md", b"x");
    symlink(dir.path().join("a"), dir.path().join("a/again")).unwrap();
    symlink(dir.path(), dir.path().join("a/top")).unwrap();
    symlink(dir.path().join("self"), dir.path().join("self")).unwrap();
    symlink(dir.path().join("missing"), dir.path().join("broken")).unwrap();
    let listing = connector(dir.path()).list();
    let paths: Vec<&str> = listing.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["a/file.md"]);
    assert_eq!(
        reason_of(&listing, "a/again"),
        Some(SkipReason::SymlinkLoop)
    );
    assert_eq!(reason_of(&listing, "a/top"), Some(SkipReason::SymlinkLoop));
    assert_eq!(reason_of(&listing, "self"), Some(SkipReason::SymlinkLoop));
    assert_eq!(
        reason_of(&listing, "broken"),
        Some(SkipReason::BrokenSymlink)
    );
}

/// "a 50 MB file" is skipped in a listing and refused by read, without reading it.
#[test]
fn a_file_over_the_size_limit_is_skipped_and_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let big = fs::File::create(dir.path().join("big.md")).unwrap();
    big.set_len(50 * 1024 * 1024).unwrap();
    write(dir.path(), "small.md", b"s");
    let c = connector(dir.path());
    let listing = c.list();
    assert_eq!(listing.files.len(), 1);
    assert!(matches!(
        reason_of(&listing, "big.md"),
        Some(SkipReason::TooLarge {
            size: 52_428_800,
            ..
        })
    ));
    assert!(matches!(
        c.read("big.md"),
        Err(ConnectorError::TooLarge { .. })
    ));
}

#[test]
fn non_utf8_names_are_reported_lossily_not_fatal() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"bad\xff.md");
    fs::write(dir.path().join(name), b"x").unwrap();
    fs::create_dir(dir.path().join(std::ffi::OsStr::from_bytes(b"dir\xfe"))).unwrap();
    write(dir.path(), "good.md", b"g");
    let listing = connector(dir.path()).list();
    assert_eq!(listing.files.len(), 1);
    assert_eq!(listing.skipped.len(), 2);
    assert!(
        listing
            .skipped
            .iter()
            .all(|s| s.reason == SkipReason::NonUtf8Name)
    );
    assert!(listing.skipped.iter().any(|s| s.path == "bad\u{fffd}.md"));
}

#[test]
fn excluded_directories_and_the_depth_limit_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".git/config", b"x");
    write(dir.path(), "a/b/c/d.md", b"x");
    write(dir.path(), "a/b/e.md", b"x");
    let limits = ConnectorLimits {
        max_depth: 2,
        ..ConnectorLimits::default()
    };
    let listing = LocalConnector::new(dir.path(), limits).unwrap().list();
    assert_eq!(reason_of(&listing, ".git"), Some(SkipReason::Excluded));
    assert_eq!(reason_of(&listing, "a/b/c"), Some(SkipReason::TooDeep));
    let paths: Vec<&str> = listing.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["a/b/e.md"]);
}

#[test]
fn the_file_limit_stops_the_walk_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.md", "b.md", "c.md"] {
        write(dir.path(), name, b"x");
    }
    let limits = ConnectorLimits {
        max_files: 2,
        ..ConnectorLimits::default()
    };
    let listing = LocalConnector::new(dir.path(), limits).unwrap().list();
    assert_eq!(listing.files.len(), 2);
    assert_eq!(
        reason_of(&listing, "c.md"),
        Some(SkipReason::FileLimitReached)
    );
}

#[cfg(unix)]
#[test]
fn an_unreadable_directory_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "locked/x.md", b"x");
    fs::set_permissions(dir.path().join("locked"), fs::Permissions::from_mode(0o000)).unwrap();
    let listing = connector(dir.path()).list();
    fs::set_permissions(dir.path().join("locked"), fs::Permissions::from_mode(0o755)).unwrap();
    // root reads everything; only an unprivileged run sees the refusal
    if !listing.files.iter().any(|f| f.path == "locked/x.md") {
        assert!(matches!(
            reason_of(&listing, "locked"),
            Some(SkipReason::Unreadable { .. })
        ));
    }
}

/// "a directory tree as deep as the filesystem allows (the walk must report, not
/// crash, when paths get too long)". Two chains, each short enough to create, are
/// joined by a rename, so the leaf lies deeper than any absolute path can name.
#[test]
fn a_tree_deeper_than_path_max_is_reported_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let chain = "/d".repeat(1500);
    let lower = dir.path().join(format!("x{chain}"));
    let upper = dir.path().join(format!("y{chain}"));
    fs::create_dir_all(&lower).unwrap();
    fs::create_dir_all(&upper).unwrap();
    fs::write(upper.join("leaf.md"), b"x").unwrap();
    fs::rename(dir.path().join("y"), lower.join("y")).unwrap();
    write(dir.path(), "top.md", b"t");
    let limits = ConnectorLimits {
        max_depth: usize::MAX,
        ..ConnectorLimits::default()
    };
    let listing = LocalConnector::new(dir.path(), limits).unwrap().list();
    assert!(listing.files.iter().any(|f| f.path == "top.md"));
    assert!(
        listing.skipped.iter().any(
            |s| matches!(&s.reason, SkipReason::Unreadable { error } if error.contains("too long"))
        ),
        "the too-long path is reported: {:?}",
        listing
            .skipped
            .iter()
            .map(|s| &s.reason)
            .collect::<Vec<_>>()
    );
    // with the default depth limit the walk stops early and says so
    let listing = connector(dir.path()).list();
    assert!(
        listing
            .skipped
            .iter()
            .any(|s| s.reason == SkipReason::TooDeep)
    );
}

#[test]
fn a_root_that_is_not_a_directory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "f", b"");
    assert!(LocalConnector::new(dir.path().join("f"), ConnectorLimits::default()).is_err());
    assert!(LocalConnector::new(dir.path().join("missing"), ConnectorLimits::default()).is_err());
}

#[test]
fn a_listed_file_reads_back_its_content() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "docs/a.md", b"hello");
    write(dir.path(), "real/b.md", b"linked");
    symlink(dir.path().join("real"), dir.path().join("link")).unwrap();
    let c = connector(dir.path());
    let listing = c.list();
    for file in &listing.files {
        assert_eq!(c.read_listed(file).unwrap(), c.read(&file.path).unwrap());
    }
    assert_eq!(listing.files.len(), 3);
}

/// The cheap read proves it opened the file the walk saw; when a folder on the path
/// is swapped for a link out of the root after the listing, the read is refused.
#[test]
fn a_listed_file_swapped_for_a_link_out_of_the_root_is_not_read() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "notes/a.md", b"secret");
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "notes/a.md", b"public");
    let c = connector(dir.path());
    let listed = c.list().files.remove(0);
    fs::remove_dir_all(dir.path().join("notes")).unwrap();
    symlink(outside.path().join("notes"), dir.path().join("notes")).unwrap();
    assert!(matches!(
        c.read_listed(&listed),
        Err(ConnectorError::NotFound { .. })
    ));
}

#[test]
fn a_listed_file_replaced_since_the_listing_reads_its_new_content() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.md", b"old");
    let c = connector(dir.path());
    let listed = c.list().files.remove(0);
    write(dir.path(), "a.md.new", b"new content");
    fs::rename(dir.path().join("a.md.new"), dir.path().join("a.md")).unwrap();
    assert_eq!(c.read_listed(&listed).unwrap(), b"new content");
    fs::remove_file(dir.path().join("a.md")).unwrap();
    assert!(matches!(
        c.read_listed(&listed),
        Err(ConnectorError::NotFound { .. })
    ));
}

#[test]
fn a_listing_of_another_root_is_read_the_careful_way() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "a.md", b"secret");
    let dir = tempfile::tempdir().unwrap();
    symlink(outside.path().join("a.md"), dir.path().join("a.md")).unwrap();
    let foreign = connector(outside.path()).list().files.remove(0);
    let c = connector(dir.path());
    assert!(matches!(
        c.read_listed(&foreign),
        Err(ConnectorError::NotFound { .. })
    ));
}
