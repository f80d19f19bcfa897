//! The walk reads directories with its own `getdents64` and stats each file relative to
//! its directory: what it lists must be what std's metadata of the same path says, for
//! every kind of entry a tree holds (links in and out, excluded folders, oversized
//! files, non-UTF-8 names, fifos).
#![allow(clippy::unwrap_used)]

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;

use neuralis_connector::{ConnectorLimits, LocalConnector, SkipReason};

fn write(root: &Path, path: &str, content: &[u8]) {
    let full = root.join(path);
    fs::create_dir_all(full.parent().unwrap()).unwrap();
    fs::write(full, content).unwrap();
}

/// A tree with one of everything the walk treats apart.
fn mixed_tree(root: &Path, outside: &Path) {
    for n in 0..40 {
        write(root, &format!("d{}/e{}/f{n}.md", n % 5, n % 3), b"content");
    }
    write(root, "big/huge.rs", &[b'x'; 300]);
    write(root, ".git/config", b"x");
    write(root, "real/linked.md", b"through a link");
    write(outside, "secret.md", b"outside");
    symlink(root.join("real"), root.join("dirlink")).unwrap();
    symlink(root.join("real/linked.md"), root.join("filelink.md")).unwrap();
    symlink(outside.join("secret.md"), root.join("escape.md")).unwrap();
    symlink(root.join("missing"), root.join("broken.md")).unwrap();
    symlink(root, root.join("d1/loop")).unwrap();
    fs::write(root.join(OsStr::from_bytes(b"bad\xffname.md")), b"x").unwrap();
    let fifo = root.join("pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
}

#[test]
fn every_listed_file_carries_the_figures_std_metadata_gives() {
    let outside = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    mixed_tree(dir.path(), outside.path());
    let limits = ConnectorLimits {
        max_file_size: 100,
        ..ConnectorLimits::default()
    };
    let connector = LocalConnector::new(dir.path(), limits).unwrap();
    let listing = connector.list();
    // 40 files, the linked file through the folder link and the file link, the real one.
    assert_eq!(listing.files.len(), 43, "{:?}", listing.files);
    for file in &listing.files {
        // `stat` resolves the path and takes std's metadata: size, both times and the
        // identity the cheap read checks must all agree.
        let stat = connector.stat(&file.path).unwrap();
        assert_eq!(
            (stat.size, stat.modified, stat.changed, stat.identity),
            (file.size, file.modified, file.changed, file.identity),
            "{}",
            file.path
        );
    }
    let reasons: Vec<(&str, &SkipReason)> = listing
        .skipped
        .iter()
        .map(|skipped| (skipped.path.as_str(), &skipped.reason))
        .collect();
    assert_eq!(
        reasons,
        [
            (".git", &SkipReason::Excluded),
            ("bad\u{fffd}name.md", &SkipReason::NonUtf8Name),
            (
                "big/huge.rs",
                &SkipReason::TooLarge {
                    size: 300,
                    limit: 100
                }
            ),
            ("broken.md", &SkipReason::BrokenSymlink),
            ("d1/loop", &SkipReason::SymlinkLoop),
            ("escape.md", &SkipReason::SymlinkOutsideRoot),
            ("pipe", &SkipReason::NotRegular),
        ]
    );
}

/// The walk stops reading a directory at the position ext4 gives its last entry; a
/// directory too large for one `getdents64` buffer must still be read whole.
#[test]
fn a_directory_larger_than_one_read_is_listed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let name = "n".repeat(120);
    for n in 0..1500 {
        write(dir.path(), &format!("wide/{name}{n:04}.md"), b"x");
    }
    let listing = LocalConnector::new(dir.path(), ConnectorLimits::default())
        .unwrap()
        .list();
    assert_eq!(listing.files.len(), 1500);
    assert!(listing.skipped.is_empty());
}

/// Directories are opened relative to their parent's descriptor while few enough are
/// kept open; past that bound (a tree deeper than it, with a sibling left at each
/// level) they are opened by path, and the listing is the same.
#[test]
fn a_tree_deeper_than_the_kept_descriptors_is_listed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut at = String::new();
    // Four siblings a level: whichever the walk enters first, the others wait.
    for level in 0..200 {
        at.push_str(&format!("l{level}/"));
        for side in 0..4 {
            write(dir.path(), &format!("{at}side{side}/g.md"), b"x");
        }
    }
    let limits = ConnectorLimits {
        max_depth: 1000,
        ..ConnectorLimits::default()
    };
    let listing = LocalConnector::new(dir.path(), limits).unwrap().list();
    assert_eq!(listing.files.len(), 800);
    assert!(listing.skipped.is_empty(), "{:?}", listing.skipped);
    let deepest = format!("{at}side3/g.md");
    assert!(listing.files.iter().any(|file| file.path == deepest));
}
