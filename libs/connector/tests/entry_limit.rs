//! The walk's entry budget: an agent that can write in its tree can make entries that
//! are not files (empty directories, broken links, fifos, names that are not UTF-8),
//! each costing the walk a read and a report. `max_entries` bounds them all with the
//! files: past it the walk stops and says so, and a directory holding more than it is
//! left out whole, unread.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use neuralis_connector::{ConnectorLimits, Listing, LocalConnector, SkipReason};

fn listing(root: &Path, max_entries: usize) -> Listing {
    let limits = ConnectorLimits {
        max_entries,
        ..ConnectorLimits::default()
    };
    LocalConnector::new(root, limits).unwrap().list()
}

fn stops(listing: &Listing) -> Vec<&str> {
    listing
        .skipped
        .iter()
        .filter(|s| s.reason == SkipReason::EntryLimitReached)
        .map(|s| s.path.as_str())
        .collect()
}

/// Everything the walk listed or reported.
fn entries(listing: &Listing) -> usize {
    listing.files.len() + listing.skipped.len()
}

#[test]
fn a_tree_of_empty_directories_stops_at_the_entry_limit() {
    let dir = tempfile::tempdir().unwrap();
    for parent in ["a", "b", "c", "d"] {
        for at in 0..10 {
            fs::create_dir_all(dir.path().join(format!("{parent}/{at:02}"))).unwrap();
        }
    }
    fs::write(dir.path().join("a/00/x.md"), "x").unwrap();
    let cut = listing(dir.path(), 26);
    // Each directory's entries are counted as it is scanned, depth-first in name
    // order: the root's 4, a's 10, a/00's file, b's 10, then c/00 is the 26th and c/01
    // is where the walk stopped.
    assert_eq!(stops(&cut), ["c/01"]);
    assert_eq!(cut.files.len(), 1);
    assert_eq!(entries(&cut), 2);
    // Within the budget nothing is cut.
    let whole = listing(dir.path(), 45);
    assert!(stops(&whole).is_empty(), "{:?}", whole.skipped);
    assert_eq!(whole.files.len(), 1);
}

#[test]
fn entries_left_out_count_against_the_entry_limit() {
    let dir = tempfile::tempdir().unwrap();
    for folder in 0..10 {
        fs::create_dir(dir.path().join(format!("s{folder}"))).unwrap();
        for at in 0..10 {
            let link = dir.path().join(format!("s{folder}/l{at:02}"));
            symlink(dir.path().join("gone"), link).unwrap();
        }
    }
    let cut = listing(dir.path(), 30);
    assert_eq!(stops(&cut), ["s2/l00"]);
    assert_eq!(cut.skipped.len(), 21, "twenty broken links, then the stop");
    let whole = listing(dir.path(), 110);
    assert!(stops(&whole).is_empty());
    assert_eq!(whole.skipped.len(), 100);
}

#[test]
fn a_directory_holding_more_entries_than_the_limit_is_left_out_whole() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("big")).unwrap();
    for at in 0..30 {
        fs::write(dir.path().join(format!("big/f{at:02}.md")), "x").unwrap();
    }
    fs::write(dir.path().join("small.md"), "x").unwrap();
    let cut = listing(dir.path(), 20);
    assert_eq!(stops(&cut), ["big"]);
    let paths: Vec<&str> = cut.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["small.md"], "the rest of the tree is still listed");
}

/// Which entries make the cut never depends on thread timing: the same every time.
#[test]
fn the_cut_at_the_entry_limit_is_the_same_on_every_walk() {
    let dir = tempfile::tempdir().unwrap();
    for at in 0..60 {
        fs::create_dir_all(dir.path().join(format!("d{at:02}"))).unwrap();
        fs::write(dir.path().join(format!("d{at:02}/f.md")), "x").unwrap();
    }
    let first = listing(dir.path(), 70);
    for _ in 0..10 {
        assert_eq!(listing(dir.path(), 70), first);
    }
    // The root's 60 directories, then d00/f.md to d09/f.md; d10/f.md is the 71st.
    assert_eq!(stops(&first), ["d10/f.md"]);
}

/// A chain of directories one past the limit: each directory adds one entry, and the
/// walk is cut at the last one, whichever walk ran (the parallel walk must give way to
/// the ordered one for a tree of exactly `max_entries + 1` entries too).
#[test]
fn a_chain_one_entry_past_the_limit_is_cut_at_its_last_entry() {
    let dir = tempfile::tempdir().unwrap();
    let chain: Vec<String> = (1..=11).map(|depth| format!("a{depth:02}")).collect();
    fs::create_dir_all(dir.path().join(chain.join("/"))).unwrap();
    let cut = listing(dir.path(), 10);
    assert_eq!(stops(&cut), [chain.join("/")]);
    assert!(stops(&listing(dir.path(), 11)).is_empty());
}
