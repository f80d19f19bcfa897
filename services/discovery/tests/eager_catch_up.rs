//! Issue 13: a finished write is caught up when its event arrives, in the background,
//! under the inventory's race rule, so the first call after it finds the catch-up done
//! or running and waits for it instead of starting its own.

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use fakes::listing::{named, packages};
use fakes::{good, harness, publish};
use neuralis_bus::Phase;

async fn ids(h: &fakes::Harness) -> Vec<String> {
    packages(h, good())
        .await
        .into_iter()
        .flat_map(|p| p.files.into_iter().map(|f| f.id))
        .collect()
}

/// Lets the other tasks run (the test runtime has one thread) until `counter` reads
/// `value`; fails if they all wait and it never does.
async fn until(counter: &AtomicUsize, value: usize) {
    for _ in 0..10_000 {
        if counter.load(Ordering::SeqCst) == value {
            return;
        }
        tokio::task::yield_now().await;
    }
    panic!("the counter stayed at {}", counter.load(Ordering::SeqCst));
}

/// Skill `one`, listed; then skill `two` written and its finish published, with the
/// catch-up it starts reading and held at the index's gate until the guard drops.
async fn caught_up_reading_at_the_gate(h: &fakes::Harness) -> tokio::sync::MutexGuard<'_, ()> {
    h.index
        .put("repo", "tools/a/skills/one/SKILL.md", &named("one"));
    assert_eq!(ids(h).await, ["one"]);
    let gate = h.index.rows_gate.lock().await;
    h.index
        .put("repo", "tools/a/skills/two/SKILL.md", &named("two"));
    publish(&h.bus, Phase::Finish, "w1").await;
    until(&h.index.rows_waiting, 2).await;
    gate
}

#[tokio::test]
async fn a_finish_is_caught_up_before_any_call_asks() {
    let h = harness().await;
    h.index
        .put("repo", "tools/a/skills/one/SKILL.md", &named("one"));
    assert_eq!(ids(&h).await, ["one"]);
    assert_eq!(h.index.row_reads.load(Ordering::SeqCst), 1);

    h.index
        .put("repo", "tools/a/skills/two/SKILL.md", &named("two"));
    publish(&h.bus, Phase::Start, "w1").await;
    publish(&h.bus, Phase::Finish, "w1").await;
    // No call yet: the event alone starts the catch-up.
    until(&h.index.row_reads, 2).await;
    let evaluations = h.access.calls.load(Ordering::SeqCst);
    assert_eq!(ids(&h).await, ["one", "two"]);
    assert_eq!(
        h.index.row_reads.load(Ordering::SeqCst),
        2,
        "the call found the write caught up"
    );
    assert_eq!(
        h.access.calls.load(Ordering::SeqCst),
        evaluations + 1,
        "and still asked policy itself"
    );
}

#[tokio::test]
async fn a_call_during_the_catch_up_waits_for_it_instead_of_starting_its_own() {
    let h = Arc::new(harness().await);
    let gate = caught_up_reading_at_the_gate(&h).await;
    let sources = h.index.source_reads.load(Ordering::SeqCst);
    let call = tokio::spawn({
        let h = Arc::clone(&h);
        async move { ids(&h).await }
    });
    until(&h.index.source_reads, sources + 1).await; // the call began
    for _ in 0..100 {
        tokio::task::yield_now().await;
    }
    assert_eq!(
        h.index.rows_waiting.load(Ordering::SeqCst),
        2,
        "the call started no read of its own"
    );
    drop(gate);
    assert_eq!(call.await.unwrap(), ["one", "two"]);
    assert_eq!(h.index.row_reads.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_write_during_the_catch_up_refuses_its_store_and_the_call_sees_both() {
    let h = harness().await;
    let gate = caught_up_reading_at_the_gate(&h).await;
    // A second write finishes while the first catch-up is reading: what that read
    // returns may predate it, so it must not be stored as current.
    h.index
        .put("repo", "tools/a/skills/three/SKILL.md", &named("three"));
    publish(&h.bus, Phase::Finish, "w2").await;
    for _ in 0..100 {
        tokio::task::yield_now().await;
    }
    drop(gate);
    assert_eq!(ids(&h).await, ["one", "three", "two"]);
}
