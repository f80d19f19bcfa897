//! The memo serves an answer only to the snapshot it was prepared from, and the
//! inventory weighs what it holds for a snapshot with the snapshot.

use std::cell::Cell;

use neuralis_access::EvaluationRequest;

use super::*;
use crate::base::fixtures::{row, source};
use crate::base::ports::{EmptyCatalog, IndexRow, ProjectRows};
use crate::grouping::candidates::Batch;
use crate::rows::inventory::weighed;

fn snapshot() -> Arc<ProjectSnapshot> {
    Arc::new(ProjectSnapshot::build(
        ProjectRows::default(),
        &[source(&[])],
    ))
}

/// `snapshot`'s prepared answer, counting how often it was prepared.
fn get(
    memo: &Memo,
    snapshot: &Arc<ProjectSnapshot>,
    sources: &[SourceInfo],
    prepared: &Cell<usize>,
) -> Arc<Prepared> {
    let before = prepared.get();
    let (answer, fresh) = memo.get(snapshot, sources, |_| {
        prepared.set(prepared.get() + 1);
        let batch = Batch {
            request: EvaluationRequest::default(),
            candidates: Vec::new(),
            slots: Vec::new(),
            tools: Vec::new(),
        };
        Prepared::new(batch, None)
    });
    assert_eq!(
        fresh,
        prepared.get() > before,
        "fresh says it was prepared now"
    );
    answer
}

#[test]
fn a_prepared_answer_serves_only_the_snapshot_and_sources_it_was_prepared_from() {
    let memo = Memo::default();
    let prepared = Cell::new(0);
    let sources = vec![source(&[])];
    let first = snapshot();
    let a = get(&memo, &first, &sources, &prepared);
    let b = get(&memo, &first, &sources, &prepared);
    assert!(Arc::ptr_eq(&a, &b), "the same snapshot reuses it");
    assert_eq!(prepared.get(), 1);

    // Another snapshot, even one equal in content (a copy), is prepared afresh:
    // identity, not likeness, says which grouping an answer was prepared from.
    let second = snapshot();
    let c = get(&memo, &second, &sources, &prepared);
    assert!(!Arc::ptr_eq(&a, &c));
    assert_eq!(prepared.get(), 2);
    let copy = Arc::new(first.as_ref().clone());
    get(&memo, &copy, &sources, &prepared);
    assert_eq!(prepared.get(), 3);

    // A changed privacy pattern (read with the request's sources) prepares afresh.
    let private = vec![source(&["agents/{agent}/**"])];
    get(&memo, &first, &private, &prepared);
    assert_eq!(prepared.get(), 4);
    get(&memo, &first, &private, &prepared);
    assert_eq!(prepared.get(), 4);
}

#[test]
fn a_snapshot_weighs_the_answer_prepared_from_it() {
    let sources = vec![source(&[])];
    let rows = ProjectRows {
        revision: 1,
        rows: (0..20)
            .map(|i| IndexRow {
                size: 10,
                ..row(&format!("tools/t{i}/skills/s/SKILL.md"))
            })
            .collect(),
    };
    let snapshot = Arc::new(ProjectSnapshot::build(rows, &sources));
    let grouping = Grouping::new(Arc::new(EmptyCatalog));
    // What the inventory counts for the snapshot: its rows and what is kept beside it.
    let rows_only = weighed(&snapshot, Some(&grouping));
    let (answer, _) = grouping.memo.get(&snapshot, &sources, |_| {
        Prepared::new(candidates::build("p1", &[], &sources, &snapshot), None)
    });
    assert!(!answer.request.files.is_empty(), "the answer holds files");
    let measured = weight::bytes(&answer);
    let counted = weighed(&snapshot, Some(&grouping));
    assert!(
        counted >= rows_only + measured,
        "{counted} < {rows_only} + {measured}"
    );
    // Every file is held several times over (candidate, shown view, content).
    assert!(measured > answer.request.files.len() * 3 * 24);
}

#[test]
fn a_successor_weighs_the_earlier_answer_it_holds_until_its_own_is_prepared() {
    let sources = vec![source(&[])];
    let rows = ProjectRows {
        revision: 1,
        rows: vec![row("tools/t/skills/s/SKILL.md")],
    };
    let grouped = ProjectSnapshot::build(rows, &sources);
    let build = || Prepared::new(candidates::build("p1", &[], &sources, &grouped), None);
    let memo = Memo::default();
    let (first, successor, third) = (snapshot(), snapshot(), snapshot());
    memo.successor(&first, &successor);
    assert_eq!(memo.bytes(&successor), 0, "nothing held, nothing weighed");
    let (answer, _) = memo.get(&first, &sources, |_| build());
    let kept = memo.bytes(&first);
    assert!(kept > 0);

    memo.successor(&first, &successor);
    assert_eq!(memo.bytes(&successor), kept, "the held answer is counted");
    // Its successor in turn holds the same earlier answer, and counts it too.
    memo.successor(&successor, &third);
    assert_eq!(memo.bytes(&third), kept);

    let (own, fresh) = memo.get(&successor, &sources, |previous| {
        assert!(previous.is_some_and(|p| std::ptr::eq(p, answer.as_ref())));
        build()
    });
    assert!(fresh);
    assert_eq!(
        memo.bytes(&successor),
        weight::bytes(&own) + weight::sources(&sources),
        "once its own answer is kept, only that one is counted"
    );
}

/// The answer lives as long as its snapshot: let go with it by the inventory, or
/// (a snapshot a call held last) taken out when the next answer is prepared.
#[test]
fn an_answer_goes_with_its_snapshot() {
    let memo = Memo::default();
    let prepared = Cell::new(0);
    let sources = vec![source(&[])];
    let (kept, served) = (snapshot(), snapshot());
    let answer = get(&memo, &kept, &sources, &prepared);
    get(&memo, &served, &sources, &prepared);
    let held = Arc::downgrade(&answer);
    drop(answer);

    memo.let_go(&kept);
    assert_eq!(memo.bytes(&kept), 0);
    assert!(held.upgrade().is_none(), "its answer is freed");

    drop(served);
    assert_eq!(
        memo.lock().len(),
        1,
        "the slot of a snapshot gone stays until..."
    );
    let next = snapshot();
    get(&memo, &next, &sources, &prepared);
    assert_eq!(memo.lock().len(), 1, "...the next preparation takes it out");
    assert!(memo.bytes(&next) > 0);
}
