//! Answers prepared after deltas (issue 13, "cost proportional to the change"): a
//! snapshot a delta made reuses what it shows alike of the answer prepared before it,
//! and after any writes the snapshot, and the answer prepared from it, equal a full
//! re-read's (moved here from the rows' snapshot tests with the prepared answer).

use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;

use crate::base::ports::{IndexRow, ProjectDelta, RemovedRow};
use crate::grouping::listed::Listed;
use crate::grouping::memo::Memo;
use crate::grouping::prepared::{Prepared, Shown};
use crate::rows::fixtures::{full, row, seen, skill, sources, tree, tree_bodies};
use crate::rows::inventory::ProjectSnapshot;

/// The answer prepared for `snapshot` from scratch.
fn prepared_afresh(snapshot: &ProjectSnapshot) -> Prepared {
    let sources = sources();
    Prepared::new(
        crate::grouping::candidates::build("p", &[], &sources, snapshot),
        None,
    )
}

/// The answer prepared for `snapshot` through the memo: a snapshot a delta made reuses
/// the parts of the answer prepared before it that it shows alike.
fn prepared_patched(memo: &Memo, snapshot: &Arc<ProjectSnapshot>) -> Arc<Prepared> {
    let sources = sources();
    let (prepared, _) = memo.get(snapshot, &sources, |previous| {
        Prepared::new(
            crate::grouping::candidates::build("p", &[], &sources, snapshot),
            previous,
        )
    });
    prepared
}

/// Package candidate `root` of `prepared`: its shown form and its messages.
fn by_root(prepared: &Prepared, root: &str) -> (Arc<Shown>, Arc<Listed>) {
    let at = prepared.packages.iter().position(|s| s.view.root == root);
    let at = at.expect("the package is prepared");
    (
        Arc::clone(&prepared.packages[at]),
        Arc::clone(prepared.listing.listed(at)),
    )
}

/// Whether `before` and `after` share package `root`'s shown form, and its messages.
fn shared(before: &Prepared, after: &Prepared, root: &str) -> (bool, bool) {
    let ((shown_before, listed_before), (shown_after, listed_after)) =
        (by_root(before, root), by_root(after, root));
    (
        Arc::ptr_eq(&shown_before, &shown_after),
        Arc::ptr_eq(&listed_before, &listed_after),
    )
}

/// `snapshot` with `delta` applied, as the inventory catches up: the memo hears that
/// the new snapshot replaced `snapshot`.
fn applied(
    memo: &Memo,
    snapshot: &Arc<ProjectSnapshot>,
    delta: ProjectDelta,
) -> Arc<ProjectSnapshot> {
    let next = Arc::new(snapshot.apply(delta, &sources()).0);
    memo.successor(snapshot, &next);
    next
}

/// The answers prepared (each through the memo) before and after a delta
/// putting the row `write` makes of the tree's rows; the one after is checked against
/// an answer prepared from scratch.
fn before_and_after(
    write: impl FnOnce(&BTreeMap<String, IndexRow>) -> IndexRow,
) -> (Arc<Prepared>, Arc<Prepared>) {
    let mut rows = tree();
    let memo = Memo::default();
    let snapshot = Arc::new(full(&rows, 1));
    let before = prepared_patched(&memo, &snapshot);
    let put = write(&rows);
    rows.insert(put.path.clone(), put.clone());
    let delta = ProjectDelta {
        revision: 2,
        rows: vec![put],
        removed: Vec::new(),
    };
    let after = prepared_patched(&memo, &applied(&memo, &snapshot, delta));
    assert_eq!(*after, prepared_afresh(&full(&rows, 2)));
    (before, after)
}

/// Issue 13: after a write inside one package, the answer prepared for the new
/// snapshot shares every other package's shown form and messages with the answer
/// before it, builds the written package anew, and equals an answer prepared from
/// scratch.
#[test]
fn a_write_to_one_package_rebuilds_only_that_package_and_its_messages() {
    let (before, after) = before_and_after(|_| row("tools/t0/skills/new/SKILL.md", &skill("new")));
    for root in ["tools/t1", "tools/t2", "tools/t3"] {
        assert_eq!(shared(&before, &after, root), (true, true), "{root}");
    }
    assert_eq!(shared(&before, &after, "tools/t0"), (false, false));
}

/// The messages carry content flags: a write that changes only a file's flags (same
/// size, same payload) makes its package's shown form and messages anew, so the
/// listing never shows the flags of the file before the write.
#[test]
fn a_write_changing_only_content_flags_remakes_that_package_s_messages() {
    let (before, after) = before_and_after(|rows| IndexRow {
        content_flags: content_flags(1),
        ..rows["tools/t1/rules/r.md"].clone()
    });
    assert_eq!(shared(&before, &after, "tools/t1"), (false, false));
    assert_eq!(shared(&before, &after, "tools/t0"), (true, true));
}

/// A package unchanged by a write keeps its shown form, but its messages are made
/// anew when the write moved its activation ids (a skill of the same name appeared
/// elsewhere: both are qualified now).
#[test]
fn a_write_moving_a_package_s_activation_ids_remakes_only_its_messages() {
    let (before, after) = before_and_after(|_| row("tools/t0/skills/twin/SKILL.md", &skill("t1")));
    assert_eq!(shared(&before, &after, "tools/t1"), (true, false));
    assert_eq!(shared(&before, &after, "tools/t2"), (true, true));
}

/// One write of a random sequence.
#[derive(Debug, Clone)]
enum Write {
    Put(usize, u8),
    Delete(usize),
    Rename(usize, usize),
    DropSource,
}

/// Paths that form, feed, leave and sit outside packages.
const PATHS: &[&str] = &[
    "tools/t0/skills/s/SKILL.md",
    "tools/t0/skills/s/run.sh",
    "tools/t0/skills/s/ref/notes.md",
    "tools/t0/skills/x/SKILL.md",
    "tools/t1/rules/r.md",
    "tools/t9/agents/a.md",
    "src/m0/f.rs",
    "src/m0/notes.md",
    // A folder that a SKILL.md makes a skill around files already there, a subfolder of
    // it, and a folder beside it whose name shares its prefix.
    "lib/k/SKILL.md",
    "lib/k/run.sh",
    "lib/k/deep/x.txt",
    "lib/k-x/y.txt",
    "src/.claude/skills/k/SKILL.md",
    "plugin/.claude-plugin/plugin.json",
    "plugin/skills/p/SKILL.md",
    "skills/top/SKILL.md",
    "README.md",
    "SKILL.md",
];

fn body(path: &str, version: u8) -> String {
    if path.ends_with(".json") {
        format!("{{\"name\": \"plug{version}\"}}")
    } else if path.ends_with(".md") {
        // Few names, so skills collide; a longer body changes the size alone.
        let mut text = skill(&format!("n{}", version % 3));
        text.push_str(&"x".repeat(usize::from(version / 3)));
        text
    } else {
        format!("v{version}")
    }
}

/// Some flags for `bits` (bit i: `Flag::ALL[i]`), few combinations.
fn content_flags(bits: u8) -> neuralis_content_flags::FlagSet {
    neuralis_content_flags::Flag::ALL
        .into_iter()
        .take(2)
        .enumerate()
        .filter(|(i, _)| bits & 1 << i != 0)
        .map(|(_, flag)| flag)
        .collect()
}

fn write() -> impl Strategy<Value = Write> {
    let at = 0..PATHS.len();
    prop_oneof![
        4 => (at.clone(), any::<u8>()).prop_map(|(p, v)| Write::Put(p, v)),
        2 => at.clone().prop_map(Write::Delete),
        2 => (at.clone(), at).prop_map(|(a, b)| Write::Rename(a, b)),
        1 => Just(Write::DropSource),
    ]
}

proptest! {
    /// "a delta after a write equals a full re-read", on grouped snapshots: after any
    /// sequence of puts, deletes, renames and a deleted source, the held snapshot with
    /// each write's delta applied answers exactly what a full re-read answers, and the
    /// answer prepared from it reusing the one before (prepared after some writes, not
    /// after others) equals one prepared from scratch, its listing (messages, flags
    /// and activation ids) included.
    #[test]
    fn a_delta_after_writes_answers_as_a_full_re_read(writes in prop::collection::vec(write(), 1..25)) {
        let mut rows = tree();
        // The bytes behind each row: a rename is captured again at its new path, as
        // sync captures every file it writes (a row never carries another path's capture).
        let mut bodies = tree_bodies();
        let memo = Memo::default();
        let mut snapshot = Arc::new(full(&rows, 1));
        prepared_patched(&memo, &snapshot);
        for (k, write) in writes.into_iter().enumerate() {
            let mut delta = ProjectDelta { revision: 2 + k as u64, ..ProjectDelta::default() };
            let removed = |path: &str| RemovedRow::File { slug: "repo".into(), path: path.into() };
            match write {
                Write::Put(p, v) => {
                    // Flags vary apart from the body: a write may change them alone.
                    let put = IndexRow {
                        content_flags: content_flags(v % 4),
                        ..row(PATHS[p], &body(PATHS[p], v))
                    };
                    rows.insert(put.path.clone(), put.clone());
                    bodies.insert(put.path.clone(), body(PATHS[p], v));
                    delta.rows.push(put);
                }
                Write::Delete(p) => {
                    bodies.remove(PATHS[p]);
                    if rows.remove(PATHS[p]).is_some() {
                        delta.removed.push(removed(PATHS[p]));
                    }
                }
                Write::Rename(a, b) => {
                    if a != b && let Some(old) = rows.remove(PATHS[a]) {
                        delta.removed.push(removed(PATHS[a]));
                        let bytes = bodies.remove(PATHS[a]).unwrap_or_default();
                        let moved = IndexRow {
                            path: PATHS[b].into(),
                            payload: neuralis_layout::capture(PATHS[b], Some(bytes.as_bytes())),
                            ..old
                        };
                        bodies.insert(PATHS[b].into(), bytes);
                        rows.insert(moved.path.clone(), moved.clone());
                        delta.rows.push(moved);
                    }
                }
                Write::DropSource => {
                    rows.clear();
                    bodies.clear();
                    delta.removed.push(RemovedRow::Source { slug: "repo".into() });
                }
            }
            snapshot = applied(&memo, &snapshot, delta);
            let reread = full(&rows, 2 + k as u64);
            prop_assert_eq!(seen(&snapshot), seen(&reread));
            prop_assert_eq!(snapshot.row_count(), rows.len());
            if k % 3 != 1 {
                prop_assert_eq!(&*prepared_patched(&memo, &snapshot), &prepared_afresh(&reread));
            }
        }
    }
}
