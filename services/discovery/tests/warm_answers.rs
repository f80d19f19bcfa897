//! Warm answers (issue 13): what every caller's answer shares is prepared once per
//! inventory snapshot, but a newer snapshot is never answered from a grouping prepared
//! before it, and access is never part of what is prepared: every call is decided for
//! its caller, afresh.

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::sync::atomic::Ordering;

use fakes::listing::{named, packages};
use fakes::{good, harness, publish, token};
use neuralis_bus::Phase;
use neuralis_discovery::CallerToken;

/// Every (package root, file path) of the caller's answer.
async fn listed(h: &fakes::Harness, caller: CallerToken) -> Vec<(String, String)> {
    packages(h, caller)
        .await
        .into_iter()
        .flat_map(|p| {
            let root = p.root.clone();
            p.files.into_iter().map(move |f| (root.clone(), f.path))
        })
        .collect()
}

#[tokio::test]
async fn a_newer_snapshot_is_never_answered_from_the_grouping_prepared_before_it() {
    let h = harness().await;
    h.index
        .put("repo", "tools/a/skills/one/SKILL.md", &named("one"));
    let before = listed(&h, good()).await;
    assert_eq!(before.len(), 1);
    // The same snapshot, answered twice: one fill.
    assert_eq!(listed(&h, good()).await, before);
    assert_eq!(h.index.row_reads.load(Ordering::SeqCst), 1);

    // A write that adds a file and a whole new package: the next answer groups anew.
    h.index
        .put("repo", "tools/a/skills/two/SKILL.md", &named("two"));
    h.index
        .put("repo", "tools/b/rules/style.md", &named("style"));
    publish(&h.bus, Phase::Start, "w1").await;
    publish(&h.bus, Phase::Finish, "w1").await;
    let after = listed(&h, good()).await;
    assert_eq!(h.index.row_reads.load(Ordering::SeqCst), 2);
    for path in [
        "tools/a/skills/one/SKILL.md",
        "tools/a/skills/two/SKILL.md",
        "tools/b/rules/style.md",
    ] {
        assert!(after.iter().any(|(_, p)| p == path), "{path} in {after:?}");
    }
    let roots: std::collections::BTreeSet<&str> = after.iter().map(|(r, _)| r.as_str()).collect();
    assert!(roots.len() >= 2, "the new package is listed: {after:?}");
}

#[tokio::test]
async fn access_is_decided_for_each_caller_on_the_same_prepared_answer() {
    let h = harness().await;
    h.index.put(
        "repo",
        ".claude/skills/private-alice/SKILL.md",
        &named("zqalice"),
    );
    h.index
        .put("repo", ".claude/skills/shared/SKILL.md", &named("shared"));
    h.index
        .put("repo", ".claude/docs/guide.md", &named("guide"));
    h.index.privacy.lock().unwrap().insert(
        "repo".into(),
        vec![".claude/skills/private-{agent}/**".into()],
    );
    let alice = || token("member", Some("alice"), "p1");
    let bob = || token("member", Some("bob"), "p1");
    let has =
        |answer: &[(String, String)], needle: &str| answer.iter().any(|(_, p)| p.contains(needle));

    let for_alice = listed(&h, alice()).await;
    let for_bob = listed(&h, bob()).await;
    assert!(has(&for_alice, "private-alice"));
    assert!(!has(&for_bob, "private-alice"), "{for_bob:?}");
    assert!(has(&listed(&h, alice()).await, "private-alice"));

    // Policy changes between two calls on the same snapshot: the next answer follows.
    h.access
        .denied
        .lock()
        .unwrap()
        .insert(".claude/docs/guide.md".into());
    assert!(!has(&listed(&h, alice()).await, "guide"));
    h.access.denied.lock().unwrap().clear();
    assert!(has(&listed(&h, bob()).await, "guide"));

    // One fill served every call; policy decided every one of them.
    assert_eq!(h.index.row_reads.load(Ordering::SeqCst), 1);
    assert_eq!(h.access.calls.load(Ordering::SeqCst), 5);
}
