//! Deltas on grouped snapshots: the same packages as a full re-read, and no regroup
//! for a write no package can see (issue 10: "high-rate writes that cannot affect a
//! package cost nothing", seed 000).

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::listing::Listed;
use crate::prepared::{Prepared, Shown};

const SOURCE: &str = "p/repo.00000000000000aa";

fn sources() -> Vec<SourceInfo> {
    vec![SourceInfo {
        id: SOURCE.into(),
        slug: "repo".into(),
        scope: neuralis_access::SourceScope {
            scope: neuralis_access::Scope::Project,
            owner: "p".into(),
        },
        root_uri: "file:///srv/repo".into(),
        local_root: None,
        privacy_patterns: Vec::new(),
    }]
}

/// A row as sync would index `path` with `body`.
fn row(path: &str, body: &str) -> IndexRow {
    IndexRow {
        source_id: SOURCE.into(),
        path: path.into(),
        size: body.len() as u64,
        payload: neuralis_layout::capture(path, Some(body.as_bytes())),
        real_path: None,
        content_flags: Default::default(),
        fingerprint: 1,
    }
}

fn skill(name: &str) -> String {
    format!("---\nname: {name}\ndescription: does {name}\n---\nDo it.\n")
}

fn tree() -> BTreeMap<String, IndexRow> {
    let mut rows = BTreeMap::new();
    let mut put = |path: String, body: String| {
        rows.insert(path.clone(), row(&path, &body));
    };
    for i in 0..4 {
        put(
            format!("tools/t{i}/skills/s/SKILL.md"),
            skill(&format!("t{i}")),
        );
        put(
            format!("tools/t{i}/rules/r.md"),
            "---\nname: r\n---\nA rule.\n".into(),
        );
    }
    for i in 0..3 {
        put(format!("src/m{i}/f.rs"), "fn f() {}\n".into());
    }
    put("README.md".into(), "# repo\n".into());
    rows
}

fn full(rows: &BTreeMap<String, IndexRow>, revision: u64) -> ProjectSnapshot {
    ProjectSnapshot::build(
        ProjectRows {
            revision,
            rows: rows.values().cloned().collect(),
        },
        &sources(),
    )
}

/// What an answer reads: each source's packages, and the facts of their files.
fn seen(snapshot: &ProjectSnapshot) -> Vec<(String, String)> {
    snapshot
        .sources
        .values()
        .flat_map(|s| {
            s.layout.packages.iter().map(move |p| {
                let facts: Vec<_> = p
                    .files
                    .iter()
                    .map(|f| s.rows.get(&f.path).cloned())
                    .collect();
                (format!("{p:?}"), format!("{facts:?}"))
            })
        })
        .collect()
}

/// The answer prepared for `snapshot` from scratch.
fn prepared_afresh(snapshot: &ProjectSnapshot) -> Prepared {
    let sources = sources();
    Prepared::new(crate::candidates::build("p", &[], &sources, snapshot), None)
}

/// The answer prepared for `snapshot` through its slot: a snapshot a delta made reuses
/// the parts of the answer prepared before it that it shows alike.
fn prepared_patched(snapshot: &ProjectSnapshot) -> Arc<Prepared> {
    let sources = sources();
    let (prepared, _) = snapshot.prepared.get(&sources, |previous| {
        Prepared::new(
            crate::candidates::build("p", &[], &sources, snapshot),
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

/// The answers prepared (each through its snapshot's slot) before and after a delta
/// putting the row `write` makes of the tree's rows; the one after is checked against
/// an answer prepared from scratch.
fn before_and_after(
    write: impl FnOnce(&BTreeMap<String, IndexRow>) -> IndexRow,
) -> (Arc<Prepared>, Arc<Prepared>) {
    let mut rows = tree();
    let snapshot = full(&rows, 1);
    let before = prepared_patched(&snapshot);
    let put = write(&rows);
    rows.insert(put.path.clone(), put.clone());
    let delta = ProjectDelta {
        revision: 2,
        rows: vec![put],
        removed: Vec::new(),
    };
    let after = prepared_patched(&snapshot.apply(delta, &sources()).0);
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
        let mut snapshot = full(&rows, 1);
        prepared_patched(&snapshot);
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
                    delta.rows.push(put);
                }
                Write::Delete(p) => {
                    if rows.remove(PATHS[p]).is_some() {
                        delta.removed.push(removed(PATHS[p]));
                    }
                }
                Write::Rename(a, b) => {
                    if a != b && let Some(old) = rows.remove(PATHS[a]) {
                        delta.removed.push(removed(PATHS[a]));
                        let moved = IndexRow { path: PATHS[b].into(), ..old };
                        rows.insert(moved.path.clone(), moved.clone());
                        delta.rows.push(moved);
                    }
                }
                Write::DropSource => {
                    rows.clear();
                    delta.removed.push(RemovedRow::Source { slug: "repo".into() });
                }
            }
            snapshot = snapshot.apply(delta, &sources()).0;
            let reread = full(&rows, 2 + k as u64);
            prop_assert_eq!(seen(&snapshot), seen(&reread));
            prop_assert_eq!(snapshot.row_count(), rows.len());
            if k % 3 != 1 {
                prop_assert_eq!(&*prepared_patched(&snapshot), &prepared_afresh(&reread));
            }
        }
    }
}
