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
        let (next, regrouped) = snapshot.apply(delta(2 + k, vec![busy], &[]), &sources());
        assert_eq!(regrouped, Regrouped::default(), "write {k} regrouped");
        assert_eq!(seen(&next), seen(&full(&rows, 2 + k)));
        snapshot = next;
    }
    assert_eq!(snapshot.row_count(), rows.len());
}

/// Each write regroups as little as it can: a skill added inside a package regroups
/// that source's relevant files only (the roots stay), a new package splits again
/// only the files below it, and only a change of the source root's own binding (a root
/// `SKILL.md`) regroups the whole source. Each answers as a full re-read. A new
/// package whose folder holds no other file groups the relevant files once (none
/// changes sides, so the grouping that found the new roots is the answer); one formed
/// around files groups them again after they joined.
#[test]
fn each_write_regroups_only_what_it_can_move() {
    let by = |relevant_only, resplit, whole, groupings| Regrouped {
        relevant_only,
        resplit,
        whole,
        groupings,
    };
    for (path, expected) in [
        ("tools/t0/skills/new/SKILL.md", by(1, 0, 0, 1)),
        ("tools/t9/skills/new/SKILL.md", by(0, 1, 0, 1)),
        ("src/m0/SKILL.md", by(0, 1, 0, 2)),
        ("SKILL.md", by(0, 0, 1, 2)),
    ] {
        let mut rows = tree();
        let snapshot = full(&rows, 1);
        let new = row(path, &skill("new"));
        rows.insert(new.path.clone(), new.clone());
        let (next, regrouped) = snapshot.apply(delta(2, vec![new], &[]), &sources());
        assert_eq!(regrouped, expected, "{path}");
        assert_eq!(seen(&next), seen(&full(&rows, 2)), "{path}");
    }
}

/// A source grouped whole, once, and nothing else regrouped.
const WHOLE_ONCE: Regrouped = Regrouped {
    relevant_only: 0,
    resplit: 0,
    whole: 1,
    groupings: 1,
};

/// A delta's first rows of a source the snapshot did not hold group that source whole,
/// once, and leave the source held untouched (shared as it was).
#[test]
fn a_source_new_in_a_delta_is_grouped_whole_once() {
    let snapshot = full(&tree(), 1);
    let mut new = row("skills/x/SKILL.md", &skill("x"));
    new.source_id = "p/other.0123456789abcdef".into();
    let (next, regrouped) = snapshot.apply(delta(2, vec![new], &[]), &sources());
    assert_eq!(regrouped, WHOLE_ONCE);
    assert_eq!(
        next.sources["p/other.0123456789abcdef"]
            .layout
            .packages
            .len(),
        1
    );
    assert!(Arc::ptr_eq(
        &snapshot.sources[SOURCE],
        &next.sources[SOURCE]
    ));
}

/// A source deleted and synced again within one delta is grouped whole from the rows
/// the delta brings, once; nothing of what it held before is kept.
#[test]
fn a_source_deleted_and_synced_again_in_one_delta_is_grouped_whole_once() {
    let snapshot = full(&tree(), 1);
    let again = row("skills/y/SKILL.md", &skill("y"));
    let delta = ProjectDelta {
        revision: 2,
        rows: vec![again.clone()],
        removed: vec![RemovedRow::Source {
            slug: "repo".into(),
        }],
    };
    let (next, regrouped) = snapshot.apply(delta, &sources());
    assert_eq!(regrouped, WHOLE_ONCE);
    let only: BTreeMap<String, IndexRow> = [(again.path.clone(), again)].into();
    assert_eq!(seen(&next), seen(&full(&only, 2)));
    assert_eq!(next.row_count(), 1);
}

fn delta(revision: u64, rows: Vec<IndexRow>, removed: &[&str]) -> ProjectDelta {
    let removed = removed.iter().map(|path| RemovedRow::File {
        slug: "repo".into(),
        path: (*path).into(),
    });
    ProjectDelta {
        revision,
        rows,
        removed: removed.collect(),
    }
}

/// Issue 31: a new skill folder moves the roots, and the 100,000-file project was
/// regrouped whole for it. Now only the files below a root that came or went change
/// sides: a folder that becomes a skill takes its files (and its subfolders') into the
/// package, a folder beside it whose name shares the prefix keeps its own, every folder
/// no root touched stays shared, and the answer is a full re-read's. When the skill
/// goes, its files go back outside every package.
#[test]
fn a_skill_folder_formed_around_files_splits_again_only_the_files_below_it() {
    let mut rows = tree();
    for path in ["lib/k/run.sh", "lib/k/deep/x.txt", "lib/k-x/y.txt"] {
        rows.insert(path.into(), row(path, "data"));
    }
    let snapshot = full(&rows, 1);
    let held = |s: &ProjectSnapshot| Arc::clone(&s.sources[SOURCE]);
    let before = held(&snapshot);
    assert!(!before.rows.contains_key("lib/k/run.sh"));

    let new = row("lib/k/SKILL.md", &skill("k"));
    rows.insert(new.path.clone(), new.clone());
    let (next, regrouped) = snapshot.apply(delta(2, vec![new], &[]), &sources());
    // Grouped twice each way: once finding the new roots, again after files changed sides.
    let only_resplit = Regrouped {
        resplit: 1,
        groupings: 2,
        ..Regrouped::default()
    };
    assert_eq!(regrouped, only_resplit);
    assert_eq!(seen(&next), seen(&full(&rows, 2)));
    let after = held(&next);
    for path in ["lib/k/run.sh", "lib/k/deep/x.txt"] {
        assert!(after.rows.contains_key(path), "{path} joined the skill");
        assert!(
            folders::find(&after.others, path).is_none(),
            "{path} held twice"
        );
    }
    assert!(!after.rows.contains_key("lib/k-x/y.txt"));
    for folder in ["lib/k-x", "src/m1"] {
        assert!(
            Arc::ptr_eq(
                before.others.get(folder).unwrap(),
                after.others.get(folder).unwrap()
            ),
            "{folder}"
        );
    }
    assert_eq!(next.row_count(), rows.len());

    rows.remove("lib/k/SKILL.md");
    let (last, regrouped) = next.apply(delta(3, Vec::new(), &["lib/k/SKILL.md"]), &sources());
    assert_eq!(regrouped, only_resplit);
    assert_eq!(seen(&last), seen(&full(&rows, 3)));
    let gone = held(&last);
    for path in ["lib/k/run.sh", "lib/k/deep/x.txt"] {
        assert!(!gone.rows.contains_key(path), "{path} left with the skill");
        assert!(folders::find(&gone.others, path).is_some(), "{path} lost");
    }
    assert_eq!(
        every_row(&last, &["lib/k/run.sh".into()]),
        every_row(&full(&rows, 3), &["lib/k/run.sh".into()])
    );
    assert_eq!(last.row_count(), rows.len());
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
        before.others.get("src/m0").unwrap(),
        after.others.get("src/m0").unwrap()
    ));
    assert!(Arc::ptr_eq(
        before.others.get("src/m1").unwrap(),
        after.others.get("src/m1").unwrap()
    ));
    assert!(Arc::ptr_eq(&before.relevant, &after.relevant));
}

/// The facts and payload an answer reads of every path, relevant or not.
fn every_row(snapshot: &ProjectSnapshot, paths: &[String]) -> Vec<(RowFacts, FilePayload)> {
    let source = &snapshot.sources[SOURCE];
    paths
        .iter()
        .map(|path| {
            let facts = source.facts(path).cloned().expect("a held path has facts");
            let payload = source.payload(path).cloned().expect("and a payload");
            (facts, payload)
        })
        .collect()
}

#[test]
fn a_later_row_of_the_same_path_replaces_the_earlier_in_a_full_build() {
    let rows = tree();
    let mut sent: Vec<IndexRow> = rows.values().cloned().collect();
    let (other, relevant) = ("src/m0/f.rs", "tools/t0/skills/s/SKILL.md");
    sent.push(row(other, "fn g() { /* longer */ }\n"));
    sent.push(row(relevant, &skill("renamed")));
    let snapshot = ProjectSnapshot::build(
        ProjectRows {
            revision: 1,
            rows: sent,
        },
        &sources(),
    );
    let mut expected = rows.clone();
    expected.insert(other.into(), row(other, "fn g() { /* longer */ }\n"));
    expected.insert(relevant.into(), row(relevant, &skill("renamed")));
    assert_eq!(snapshot.row_count(), rows.len());
    assert_eq!(seen(&snapshot), seen(&full(&expected, 1)));
    let paths: Vec<String> = expected.keys().cloned().collect();
    assert_eq!(
        every_row(&snapshot, &paths),
        every_row(&full(&expected, 1), &paths)
    );
    assert_eq!(
        snapshot.sources[SOURCE].facts(other).map(|f| f.size),
        Some(24)
    );
}

#[test]
fn rows_in_any_order_are_held_as_rows_in_path_order() {
    let mut rows = tree();
    // A folder whose files a subfolder's sort between: `src/a.md`, `src/b/x.md`, `src/c.md`.
    for path in ["src/a.md", "src/b/x.md", "src/c.md"] {
        rows.insert(path.into(), row(path, "text\n"));
    }
    let reversed = ProjectSnapshot::build(
        ProjectRows {
            revision: 1,
            rows: rows.values().rev().cloned().collect(),
        },
        &sources(),
    );
    let sorted = full(&rows, 1);
    let paths: Vec<String> = rows.keys().cloned().collect();
    assert_eq!(seen(&reversed), seen(&sorted));
    assert_eq!(every_row(&reversed, &paths), every_row(&sorted, &paths));
    assert_eq!(reversed.row_count(), rows.len());
    assert!(reversed.sources[SOURCE].facts("src/b.md").is_none());
}

/// A delta in a folder split by its subfolder changes only the paths it names.
#[test]
fn a_delta_in_a_split_folder_keeps_the_folders_other_files() {
    let mut rows = tree();
    for path in ["src/a.md", "src/b/x.md", "src/c.md"] {
        rows.insert(path.into(), row(path, "text\n"));
    }
    let snapshot = full(&rows, 1);
    let put = row("src/b.md", "new\n");
    let delta = ProjectDelta {
        revision: 2,
        rows: vec![put.clone()],
        removed: vec![RemovedRow::File {
            slug: "repo".into(),
            path: "src/a.md".into(),
        }],
    };
    let (next, regrouped) = snapshot.apply(delta, &sources());
    rows.remove("src/a.md");
    rows.insert(put.path.clone(), put);
    let paths: Vec<String> = rows.keys().cloned().collect();
    assert_eq!(regrouped, Regrouped::default());
    assert_eq!(every_row(&next, &paths), every_row(&full(&rows, 2), &paths));
    assert_eq!(next.row_count(), rows.len());
    assert!(next.sources[SOURCE].facts("src/a.md").is_none());
}

/// A source whose rows come in two runs, another source's between them, holds all of
/// them: the same snapshot as when each source's rows come together.
#[test]
fn a_source_whose_rows_come_in_two_runs_holds_them_all() {
    let rows: Vec<IndexRow> = tree().into_values().collect();
    let second: Vec<IndexRow> = rows
        .iter()
        .cloned()
        .map(|mut row| {
            row.source_id = "second".into();
            row
        })
        .collect();
    let half = rows.len() / 2;
    let build = |sent: Vec<IndexRow>| {
        ProjectSnapshot::build(
            ProjectRows {
                revision: 1,
                rows: sent,
            },
            &sources(),
        )
    };
    let split = build(
        rows[..half]
            .iter()
            .chain(&second)
            .chain(&rows[half..])
            .cloned()
            .collect(),
    );
    let together = build(rows.iter().chain(&second).cloned().collect());
    assert_eq!(split.row_count(), 2 * rows.len());
    assert_eq!(seen(&split), seen(&together));
    let paths: Vec<String> = rows.iter().map(|row| row.path.clone()).collect();
    assert_eq!(every_row(&split, &paths), every_row(&together, &paths));
    assert_eq!(split.sources.len(), 2);
}
