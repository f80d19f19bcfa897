//! A directory the walk opens by its path (the root; one reached through an in-root
//! link; a child of a parent it could not keep open) is the directory decided on when
//! its parent was scanned: swapped since for a link to anywhere, or for another
//! directory, it is left out as unreadable and nothing of the new target is listed.

#![allow(clippy::unwrap_used)]

use std::os::unix::fs::symlink;
use std::path::Path;

use super::*;
use crate::ConnectorLimits;

fn tree<'a>(root: &'a Path, limits: &'a ConnectorLimits) -> Tree<'a> {
    Tree {
        root,
        root_inode: Inode::of(&std::fs::metadata(root).unwrap()),
        limits,
        forbidden: &[],
    }
}

fn write(at: &Path, body: &str) {
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::fs::write(at, body).unwrap();
}

/// What scanning `directory` lists: its files' paths, and whether anything was left out.
fn listed(directory: &Pending, tree: &Tree<'_>) -> (Vec<String>, bool) {
    let mut files = Vec::new();
    let mut skipped = false;
    for found in scan(directory, tree, true) {
        match found {
            Found::File { relative, .. } => files.push(relative),
            Found::Skip(_) => skipped = true,
            Found::Child(_) => {}
        }
    }
    (files, skipped)
}

/// The child `name` as the scan of the root found it, to be opened by its path.
fn child_by_path(tree: &Tree<'_>, name: &str) -> Pending {
    let root = Pending::root(tree.root, tree.root_inode);
    let mut child = scan(&root, tree, true)
        .into_iter()
        .find_map(|found| match found {
            Found::Child(child) if child.relative == name => Some(child),
            _ => None,
        })
        .unwrap();
    if child.at.is_some() {
        // As when the parent could not be kept open: the child is opened by its path,
        // with the identity its parent's scan saw.
        child.at = None;
        let entry = std::fs::symlink_metadata(&child.path).unwrap();
        child.expected = Some(Inode::of(&entry));
    }
    child
}

#[test]
fn a_directory_swapped_for_a_link_after_its_parent_was_scanned_lists_nothing_of_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    write(&root.join("sub/plain.md"), "x");
    write(&root.join("real/mine.md"), "x");
    write(&dir.path().join("outside/zq-secret.md"), "x");
    symlink(root.join("real"), root.join("linked")).unwrap();
    let root = std::fs::canonicalize(&root).unwrap();
    let limits = ConnectorLimits::default();
    let tree = tree(&root, &limits);

    // Before any swap, both are listed: the checks below can fail.
    let sub = child_by_path(&tree, "sub");
    assert_eq!(
        listed(&sub, &tree),
        (vec!["sub/plain.md".to_owned()], false)
    );
    let linked = child_by_path(&tree, "linked");
    assert_eq!(
        listed(&linked, &tree),
        (vec!["linked/mine.md".to_owned()], false)
    );

    // A plain directory replaced by a link out of the root, and the in-root link
    // pointed out of it, after the root was scanned.
    std::fs::rename(root.join("sub"), dir.path().join("moved")).unwrap();
    symlink(dir.path().join("outside"), root.join("sub")).unwrap();
    std::fs::remove_file(root.join("linked")).unwrap();
    symlink(dir.path().join("outside"), root.join("linked")).unwrap();
    for child in [&sub, &linked] {
        let (files, skipped) = listed(child, &tree);
        assert!(files.is_empty(), "{} listed {files:?}", child.relative);
        assert!(skipped, "{} is left out as unreadable", child.relative);
    }

    // A new directory of the same name is not the one decided on either.
    std::fs::remove_file(root.join("sub")).unwrap();
    write(&root.join("sub/zq-new.md"), "x");
    assert_eq!(listed(&sub, &tree), (Vec::new(), true));
}

#[test]
fn a_root_replaced_after_the_connector_was_made_lists_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    write(&root.join("a.md"), "x");
    let root = std::fs::canonicalize(&root).unwrap();
    let limits = ConnectorLimits::default();
    let tree = tree(&root, &limits);
    std::fs::rename(&root, dir.path().join("moved")).unwrap();
    write(&root.join("zq-other.md"), "x");
    let (files, skipped) = listed(&Pending::root(tree.root, tree.root_inode), &tree);
    assert!(files.is_empty() && skipped, "{files:?}");
}
