//! Deltas on grouped snapshots: the same packages as a full re-read, and no regroup
//! for a write no package can see (issue 10: "high-rate writes that cannot affect a
//! package cost nothing", seed 000). (That a delta answers as a full re-read after any
//! writes, prepared answer included, is proven with the grouping: `grouping/delta_tests.rs`.)

use super::*;
use crate::rows::fixtures::{SOURCE, full, row, seen, skill, sources, tree};

#[test]
fn a_busy_file_outside_every_root_regroups_nothing() {
    let mut rows = tree();
    let mut snapshot = full(&rows, 1);
    for k in 0..50u64 {
        let busy = row("src/m0/busy.log", &"x".repeat(k as usize));
        rows.insert(busy.path.clone(), busy.clone());
        let delta = ProjectDelta {
            revision: 2 + k,
            rows: vec![busy],
            removed: Vec::new(),
        };
        let (next, regrouped) = snapshot.apply(delta, &sources());
        assert_eq!(regrouped, Regrouped::default(), "write {k} regrouped");
        assert_eq!(seen(&next), seen(&full(&rows, 2 + k)));
        snapshot = next;
    }
    assert_eq!(snapshot.row_count(), rows.len());
}

#[test]
fn a_write_inside_a_package_regroups_only_the_relevant_files() {
    let mut rows = tree();
    let snapshot = full(&rows, 1);
    let new = row("tools/t0/skills/new/SKILL.md", &skill("new"));
    rows.insert(new.path.clone(), new.clone());
    let delta = ProjectDelta {
        revision: 2,
        rows: vec![new],
        removed: Vec::new(),
    };
    let (next, regrouped) = snapshot.apply(delta, &sources());
    assert_eq!(regrouped.relevant_only + regrouped.whole, 1);
    assert_eq!(seen(&next), seen(&full(&rows, 2)));
}

/// Issue 13, "cost proportional to the change": a write inside a package copies none
/// of the files outside every package (they are shared with the snapshot it applies
/// to), and a write outside every package copies only its own folder's files.
#[test]
fn a_delta_shares_the_folders_it_does_not_touch() {
    let rows = tree();
    let snapshot = full(&rows, 1);
    let held = |s: &ProjectSnapshot| Arc::clone(&s.sources[SOURCE]);
    let inside = ProjectDelta {
        revision: 2,
        rows: vec![row("tools/t0/skills/new/SKILL.md", &skill("new"))],
        removed: Vec::new(),
    };
    let (next, _) = snapshot.apply(inside, &sources());
    assert!(Arc::ptr_eq(&held(&snapshot).others, &held(&next).others));

    let outside = ProjectDelta {
        revision: 3,
        rows: vec![row("src/m0/busy.log", "x")],
        removed: Vec::new(),
    };
    let (last, _) = next.apply(outside, &sources());
    let (before, after) = (held(&next), held(&last));
    assert!(!Arc::ptr_eq(&before.others, &after.others));
    assert!(!Arc::ptr_eq(
        &before.others["src/m0"],
        &after.others["src/m0"]
    ));
    assert!(Arc::ptr_eq(
        &before.others["src/m1"],
        &after.others["src/m1"]
    ));
    assert!(Arc::ptr_eq(&before.relevant, &after.relevant));
}
