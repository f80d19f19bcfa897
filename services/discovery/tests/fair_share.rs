//! Issue 25, "a fair share", without timing: searches held at the index's gate keep
//! their places, so a caller's next call past its share (2 by default) is shed at once
//! with RESOURCE_EXHAUSTED and a retry delay, while another caller of the project is
//! admitted; once the held calls end, their places are given back. Single-file reads
//! (`ReadFile`, `ActivateSkill`) have a share of their own (8 per caller by default),
//! held the same way at the index's read gate.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

mod fakes;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use fakes::{harness, token_of};
use neuralis_discovery::{CallerToken, DiscoveryApi, DiscoveryError};
use neuralis_proto::discovery::v1 as pb;

fn member(subject: &str) -> CallerToken {
    token_of(subject, "member", None, "p1")
}

fn search(query: &str) -> pb::SearchRequest {
    pb::SearchRequest {
        scope: Some(pb::Scope {
            project_id: "p1".into(),
            agent_id: String::new(),
            conversation_id: String::new(),
        }),
        query: query.into(),
        limit: 10,
    }
}

async fn until(counter: &AtomicUsize, value: usize) {
    // Other threads run the calls: wait for them, not for a number of turns.
    for _ in 0..5_000 {
        if counter.load(Ordering::SeqCst) == value {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    panic!("the counter stayed at {}", counter.load(Ordering::SeqCst));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_past_its_share_is_shed_at_once_while_another_is_admitted() {
    let h = Arc::new(harness().await);
    h.index.put(
        "repo",
        ".claude/docs/guide.md",
        "---\nname: guide\n---\nThe needle.\n",
    );
    let gate = h.index.search_gate.lock().await;
    let held: Vec<_> = (0..2)
        .map(|_| {
            let h = Arc::clone(&h);
            tokio::spawn(async move {
                h.discovery
                    .search(member("mallory"), search("needle"))
                    .await
            })
        })
        .collect();
    until(&h.index.searches_waiting, 2).await;

    // Admitted, it would wait at the gate: shed, it answers at once.
    let third = h.discovery.search(member("mallory"), search("needle"));
    let shed = tokio::time::timeout(std::time::Duration::from_secs(5), third)
        .await
        .expect("shed at once, not queued");
    match shed {
        Err(DiscoveryError::ResourceExhausted { retry_after, .. }) => {
            assert_eq!(retry_after, std::time::Duration::from_secs(1))
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        h.index.searches_waiting.load(Ordering::SeqCst),
        2,
        "shed before the store"
    );

    let other = {
        let h = Arc::clone(&h);
        tokio::spawn(async move { h.discovery.search(member("alice"), search("needle")).await })
    };
    until(&h.index.searches_waiting, 3).await;
    drop(gate);
    assert!(other.await.unwrap().is_ok(), "another caller is served");
    for call in held {
        assert!(call.await.unwrap().is_ok());
    }
    // The places were given back.
    assert!(
        h.discovery
            .search(member("mallory"), search("needle"))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_query_past_its_bounds_is_refused_before_the_store_is_asked() {
    let h = harness().await;
    for query in [
        "word ".repeat(50_000),
        "x".repeat(3_500_000),
        vec!["w"; 65].join(" "),
    ] {
        let refused = h.discovery.search(member("mallory"), search(&query)).await;
        assert!(
            matches!(&refused, Err(DiscoveryError::InvalidArgument { field, .. }) if field == "query"),
            "{refused:?}"
        );
    }
    assert_eq!(h.index.searches_waiting.load(Ordering::SeqCst), 0);
}

fn overview(budget_tokens: u32) -> pb::RenderOverviewRequest {
    pb::RenderOverviewRequest {
        scope: search("").scope,
        budget_tokens,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budgeted_overview_takes_a_place_in_the_fair_share_and_a_whole_one_does_not() {
    let h = Arc::new(harness().await);
    h.index.put(
        "repo",
        ".claude/skills/review/SKILL.md",
        "---\nname: review\n---\nThe needle.\n",
    );
    let gate = h.index.search_gate.lock().await;
    let held: Vec<_> = (0..2)
        .map(|_| {
            let h = Arc::clone(&h);
            tokio::spawn(async move {
                h.discovery
                    .search(member("mallory"), search("needle"))
                    .await
            })
        })
        .collect();
    until(&h.index.searches_waiting, 2).await;
    // Counting tokens is expensive: past its share, the caller is shed.
    let shed = h
        .discovery
        .render_overview(member("mallory"), overview(500))
        .await;
    assert!(
        matches!(shed, Err(DiscoveryError::ResourceExhausted { .. })),
        "{shed:?}"
    );
    // The whole overview costs no more than a listing: still answered.
    let whole = h
        .discovery
        .render_overview(member("mallory"), overview(0))
        .await
        .unwrap();
    assert!(whole.text.contains("review"));
    drop(gate);
    for call in held {
        assert!(call.await.unwrap().is_ok());
    }
    let fitted = h
        .discovery
        .render_overview(member("mallory"), overview(500))
        .await
        .unwrap();
    assert!(fitted.text.contains("review"));
}

fn read(path: &str) -> pb::ReadFileRequest {
    pb::ReadFileRequest {
        scope: search("").scope,
        source_slug: "repo".into(),
        package_id: String::new(),
        path: path.into(),
    }
}

/// The attacker opens reads of a large file without bound: each held the file in
/// memory while it was read and hashed. Past the read share (8 per caller) a read or an
/// activation is shed at once; another caller still reads, a search is not counted
/// against reads, and the places come back when the reads end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_past_its_read_share_is_shed_at_once_while_another_reads() {
    let h = Arc::new(harness().await);
    let guide = ".claude/docs/guide.md";
    h.index
        .put("repo", guide, "---\nname: guide\n---\nThe needle.\n");
    let gate = h.index.read_gate.lock().await;
    let held: Vec<_> = (0..8)
        .map(|_| {
            let h = Arc::clone(&h);
            tokio::spawn(async move { h.discovery.read_file(member("mallory"), read(guide)).await })
        })
        .collect();
    until(&h.index.reads_waiting, 8).await;

    let ninth = h.discovery.read_file(member("mallory"), read(guide));
    let shed = tokio::time::timeout(std::time::Duration::from_secs(5), ninth)
        .await
        .expect("shed at once, not queued");
    assert!(
        matches!(shed, Err(DiscoveryError::ResourceExhausted { .. })),
        "{shed:?}"
    );
    let activation = pb::ActivateSkillRequest {
        scope: search("").scope,
        skill_id: "anything".into(),
    };
    let shed = h
        .discovery
        .activate_skill(member("mallory"), activation)
        .await;
    assert!(
        matches!(shed, Err(DiscoveryError::ResourceExhausted { .. })),
        "{shed:?}"
    );
    assert!(
        h.discovery
            .search(member("mallory"), search("needle"))
            .await
            .is_ok(),
        "a search is not counted against reads"
    );

    let other = {
        let h = Arc::clone(&h);
        tokio::spawn(async move { h.discovery.read_file(member("alice"), read(guide)).await })
    };
    until(&h.index.reads_waiting, 9).await;
    drop(gate);
    assert!(other.await.unwrap().is_ok(), "another caller reads");
    for call in held {
        assert!(call.await.unwrap().is_ok());
    }
    assert!(
        h.discovery
            .read_file(member("mallory"), read(guide))
            .await
            .is_ok()
    );
}
