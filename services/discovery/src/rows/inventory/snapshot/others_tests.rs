use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;

use super::{Folder, Others, RUN};
use crate::rows::fixtures::row;
use crate::rows::inventory::snapshot::kept;

/// A folder holding one file, `{folder}/f`.
fn folder(name: &str) -> Folder {
    Folder::from(vec![kept(row(&format!("{name}/f"), "x"))])
}

/// The runs' invariant: none empty, none over twice the run, in path order across runs.
fn check_runs(others: &Others) {
    for run in &others.runs {
        assert!(!run.is_empty(), "an empty run is kept");
        assert!(run.len() <= 2 * RUN, "a run of {} folders", run.len());
    }
    let keys: Vec<&String> = others.iter().map(|(key, _)| key).collect();
    assert!(keys.is_sorted_by(|a, b| a < b), "out of order: {keys:?}");
}

#[derive(Debug, Clone)]
enum Op {
    Insert(String),
    Remove(String),
}

fn name() -> impl Strategy<Value = String> {
    // Few enough names to hit the same folder again, some nested, one the top folder.
    prop_oneof![
        Just(String::new()),
        (0u8..40).prop_map(|n| format!("src/m{n}")),
        (0u8..10).prop_map(|n| format!("src/m{n}/deep")),
        (0u8..10).prop_map(|n| format!("lib/{n}")),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => name().prop_map(Op::Insert),
        1 => name().prop_map(Op::Remove),
    ]
}

proptest! {
    /// The runs answer as one map of every folder would: each lookup, the folders in
    /// order, and the folders from any starting path, after any inserts and removes;
    /// and no run is ever empty or over twice its size.
    #[test]
    fn folders_in_runs_answer_as_one_map(
        start in proptest::collection::btree_set(name(), 0..30),
        ops in proptest::collection::vec(op(), 0..120),
        from in name(),
    ) {
        let mut model: BTreeMap<String, Folder> =
            start.into_iter().map(|name| (name.clone(), folder(&name))).collect();
        let mut others = Others::from_sorted(model.clone());
        check_runs(&others);
        for op in ops {
            match op {
                Op::Insert(name) => {
                    let files = folder(&name);
                    model.insert(name.clone(), Arc::clone(&files));
                    others.insert(name, files);
                }
                Op::Remove(name) => {
                    model.remove(&name);
                    others.remove(&name);
                }
            }
            check_runs(&others);
        }
        let same = |a: (&String, &Folder), b: (&String, &Folder)| a.0 == b.0 && Arc::ptr_eq(a.1, b.1);
        prop_assert_eq!(others.iter().count(), model.len());
        prop_assert!(others.iter().zip(&model).all(|(a, b)| same(a, b)));
        let after: Vec<_> = model.range(from.clone()..).collect();
        prop_assert_eq!(others.from(&from).count(), after.len());
        prop_assert!(others.from(&from).zip(after).all(|(a, b)| same(a, b)));
        for name in ["", "src/m1", "src/m39", "src/m5/deep", "lib/9", "zzz"] {
            let held = others.get(name).map(Arc::as_ptr);
            prop_assert_eq!(held, model.get(name).map(Arc::as_ptr), "{}", name);
        }
    }
}

/// Issue 31: a change to one folder copies the list of runs and the one run it is in;
/// every other run stays shared with the folders it was copied from.
#[test]
fn a_change_copies_only_the_run_its_folder_is_in() {
    let names: Vec<String> = (0..10 * RUN).map(|n| format!("src/m{n:04}")).collect();
    let held = Others::from_sorted(names.iter().map(|name| (name.clone(), folder(name))));
    assert_eq!(held.runs.len(), 10);
    // A folder inside the fourth run.
    let at = &names[3 * RUN + 1];
    for change in ["insert", "replace", "remove"] {
        let mut next = held.clone();
        match change {
            "insert" => next.insert(format!("{at}x"), folder("new")),
            "replace" => next.insert(at.clone(), folder("other")),
            _ => next.remove(at),
        }
        let shared = held
            .runs
            .iter()
            .zip(&next.runs)
            .filter(|(a, b)| Arc::ptr_eq(a, b))
            .count();
        assert_eq!(shared, 9, "{change}");
    }
}

/// A run that grows past twice its size splits in two halves, and one left empty goes.
#[test]
fn a_run_splits_when_it_doubles_and_goes_when_it_empties() {
    let mut others = Others::default();
    for n in 0..2 * RUN {
        others.insert(format!("a/{n:04}"), folder("a"));
    }
    assert_eq!(others.runs.len(), 1, "a run of twice its size stays whole");
    others.insert(format!("a/{:04}", 2 * RUN), folder("a"));
    let sizes: Vec<usize> = others.runs.iter().map(|run| run.len()).collect();
    assert_eq!(sizes, [RUN, RUN + 1], "one past it splits in the middle");
    check_runs(&others);
    for n in 0..=2 * RUN {
        others.remove(&format!("a/{n:04}"));
        check_runs(&others);
    }
    assert!(others.runs.is_empty());
    assert!(others.get("a/0000").is_none());
}
