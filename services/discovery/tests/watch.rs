//! `WatchPackages` (issue 30), rule by rule, over in-memory sync and policy.
//!
//! Every wait below is bounded by a generous timeout so a defect fails instead of
//! hanging; no test asserts how fast a message comes. "Nothing was sent" is proved
//! without waiting: after a change that must send nothing, a real change is made, and
//! the next message must be that one.

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::time::Duration;

use fakes::{good, harness_with_settings, publish, token, token_expiring};
use futures::StreamExt as _;
use neuralis_bus::Phase;
use neuralis_discovery::{DiscoveryApi, DiscoveryError, DiscoverySettings, WatchStream};
use neuralis_proto::discovery::v1 as pb;

const PATIENCE: Duration = Duration::from_secs(20);

fn settings(recheck_ms: u64) -> DiscoverySettings {
    let mut settings = DiscoverySettings::default();
    settings.watch.recheck_ms = recheck_ms;
    settings
}

fn watch(resume: &str) -> pb::WatchPackagesRequest {
    pb::WatchPackagesRequest {
        scope: Some(pb::Scope {
            project_id: "p1".into(),
            ..Default::default()
        }),
        resume_revision: resume.into(),
    }
}

fn skill(name: &str) -> String {
    format!("---\nname: {name}\ndescription: {name}\n---\nBody.\n")
}

async fn next(stream: &mut WatchStream) -> pb::WatchPackagesResponse {
    tokio::time::timeout(PATIENCE, stream.next())
        .await
        .expect("a message in time")
        .expect("the stream is open")
        .expect("an answer, not an error")
}

fn names(message: &pb::WatchPackagesResponse) -> String {
    format!("{:?}", message.packages)
}

async fn write(h: &fakes::Harness, path: &str, body: &str, id: &str) {
    publish(&h.bus, Phase::Start, id).await;
    h.index.put("repo", path, body);
    publish(&h.bus, Phase::Finish, id).await;
}

#[tokio::test]
async fn the_first_message_is_the_callers_answer_now() {
    let h = harness_with_settings(settings(60_000)).await;
    h.index
        .put("repo", ".claude/skills/review/SKILL.md", &skill("review"));
    let mut stream = h.discovery.watch_packages(good(), watch("")).await.unwrap();
    let first = next(&mut stream).await;
    assert!(names(&first).contains("review"));
    let listed = h
        .discovery
        .list_packages(
            good(),
            pb::ListPackagesRequest {
                scope: watch("").scope,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        first.packages, listed.packages,
        "exactly ListPackages' answer"
    );
    assert!(!first.revision.is_empty());
}

#[tokio::test]
async fn a_finished_write_sends_one_new_answer_and_an_unchanged_answer_sends_nothing() {
    let h = harness_with_settings(settings(60_000)).await;
    h.index
        .put("repo", ".claude/skills/review/SKILL.md", &skill("review"));
    let mut stream = h.discovery.watch_packages(good(), watch("")).await.unwrap();
    let first = next(&mut stream).await;
    // A write that changes nothing this caller sees (a file no rule loads).
    write(&h, "notes/todo.txt", "later", "w1").await;
    // Then one that does.
    write(&h, ".claude/skills/ship/SKILL.md", &skill("ship"), "w2").await;
    let second = next(&mut stream).await;
    assert!(names(&second).contains("ship"), "{}", names(&second));
    assert_ne!(second.revision, first.revision);
}

#[tokio::test]
async fn a_write_wakes_only_the_callers_whose_answer_it_changes() {
    let h = harness_with_settings(settings(60_000)).await;
    h.index.privacy.lock().unwrap().insert(
        "repo".into(),
        vec![".claude/skills/private-{agent}/**".into()],
    );
    h.index
        .put("repo", ".claude/skills/shared/SKILL.md", &skill("shared"));
    let alice = || token("member", Some("alice"), "p1");
    let bob = || token("member", Some("bob"), "p1");
    let mut alices = h
        .discovery
        .watch_packages(alice(), watch(""))
        .await
        .unwrap();
    let mut bobs = h.discovery.watch_packages(bob(), watch("")).await.unwrap();
    next(&mut alices).await;
    next(&mut bobs).await;
    // Alice's private skill: a new answer for her, none for bob.
    let private = ".claude/skills/private-alice/SKILL.md";
    write(&h, private, &skill("zqalice"), "w1").await;
    assert!(names(&next(&mut alices).await).contains("zqalice"));
    write(&h, ".claude/skills/both/SKILL.md", &skill("zqboth"), "w2").await;
    let bobs_next = next(&mut bobs).await;
    assert!(
        names(&bobs_next).contains("zqboth"),
        "bob's next message is the shared change, not alice's private one"
    );
    assert!(!names(&bobs_next).contains("zqalice"));
}

#[tokio::test]
async fn a_revocation_is_honoured_in_the_next_message_without_any_write() {
    let h = harness_with_settings(settings(50)).await;
    let path = ".claude/skills/review/SKILL.md";
    h.index.put("repo", path, &skill("zqreview"));
    h.index
        .put("repo", ".claude/skills/other/SKILL.md", &skill("other"));
    let mut stream = h.discovery.watch_packages(good(), watch("")).await.unwrap();
    assert!(names(&next(&mut stream).await).contains("zqreview"));
    // Policy changes are not announced on the bus: the recheck finds it.
    h.access.denied.lock().unwrap().insert(path.into());
    let revoked = next(&mut stream).await;
    assert!(!names(&revoked).contains("zqreview"), "{}", names(&revoked));
    assert!(names(&revoked).contains("other"));
}

#[tokio::test]
async fn a_resumed_stream_waits_while_its_revision_is_current_and_otherwise_gets_the_answer() {
    let h = harness_with_settings(settings(60_000)).await;
    h.index
        .put("repo", ".claude/skills/review/SKILL.md", &skill("review"));
    let mut first = h.discovery.watch_packages(good(), watch("")).await.unwrap();
    let held = next(&mut first).await;
    drop(first);
    // Resumed at the current revision: the first message is the next change.
    let mut resumed = h
        .discovery
        .watch_packages(good(), watch(&held.revision))
        .await
        .unwrap();
    write(&h, ".claude/skills/ship/SKILL.md", &skill("ship"), "w1").await;
    let changed = next(&mut resumed).await;
    assert!(names(&changed).contains("ship"));
    drop(resumed);
    // Resumed at an old revision: the current answer at once.
    let mut behind = h
        .discovery
        .watch_packages(good(), watch(&held.revision))
        .await
        .unwrap();
    let current = next(&mut behind).await;
    assert_eq!(current.revision, changed.revision);
}

#[tokio::test]
async fn a_slow_reader_gets_the_latest_answer_not_a_queue() {
    let h = harness_with_settings(settings(60_000)).await;
    let mut stream = h.discovery.watch_packages(good(), watch("")).await.unwrap();
    next(&mut stream).await;
    for i in 0..20 {
        let path = format!(".claude/skills/s{i:02}/SKILL.md");
        write(&h, &path, &skill(&format!("zq{i:02}")), &format!("w{i}")).await;
    }
    let latest = next(&mut stream).await;
    assert!(names(&latest).contains("zq19"), "the latest answer at once");
    write(
        &h,
        ".claude/skills/last/SKILL.md",
        &skill("zqlast"),
        "w-last",
    )
    .await;
    let after = next(&mut stream).await;
    assert!(
        names(&after).contains("zqlast"),
        "no intermediate answer was queued"
    );
}

#[tokio::test]
async fn streams_per_caller_are_bounded_and_a_closed_one_gives_its_place_back() {
    let h = harness_with_settings(settings(60_000)).await;
    let limit = DiscoverySettings::default().watch.streams_per_caller;
    let mut open = Vec::new();
    for _ in 0..limit {
        open.push(h.discovery.watch_packages(good(), watch("")).await.unwrap());
    }
    let refused = h.discovery.watch_packages(good(), watch("")).await;
    assert!(
        matches!(refused, Err(DiscoveryError::ResourceExhausted { .. })),
        "one past the limit is refused"
    );
    // Another caller is not held back by this one.
    let other = fakes::token_of("grace", "member", None, "p1");
    assert!(h.discovery.watch_packages(other, watch("")).await.is_ok());
    open.pop();
    assert!(h.discovery.watch_packages(good(), watch("")).await.is_ok());
}

#[tokio::test]
async fn a_stranger_gets_one_empty_answer_and_the_end() {
    let h = harness_with_settings(settings(60_000)).await;
    h.index
        .put("repo", ".claude/skills/review/SKILL.md", &skill("review"));
    let stranger = fakes::member_of("p2");
    let mut stream = h
        .discovery
        .watch_packages(stranger, watch(""))
        .await
        .unwrap();
    let only = next(&mut stream).await;
    assert!(only.packages.is_empty());
    let end = tokio::time::timeout(PATIENCE, stream.next()).await.unwrap();
    assert!(end.is_none());
}

#[tokio::test]
async fn a_stream_ends_at_its_maximum_age() {
    let mut settings = settings(20);
    settings.watch.max_stream_ms = 100;
    let h = harness_with_settings(settings).await;
    let mut stream = h.discovery.watch_packages(good(), watch("")).await.unwrap();
    next(&mut stream).await;
    let end = tokio::time::timeout(PATIENCE, stream.next()).await.unwrap();
    assert!(end.is_none(), "the caller reconnects to be verified again");
}

#[tokio::test]
async fn streams_are_bounded_in_all_whoever_opens_them() {
    let mut settings = settings(60_000);
    settings.watch.max_streams = 3;
    let h = harness_with_settings(settings).await;
    let mut open = Vec::new();
    for subject in ["a", "b", "c"] {
        let caller = fakes::token_of(subject, "member", None, "p1");
        open.push(h.discovery.watch_packages(caller, watch("")).await.unwrap());
    }
    let another = fakes::token_of("d", "member", None, "p1");
    let refused = h.discovery.watch_packages(another.clone(), watch("")).await;
    assert!(matches!(
        refused,
        Err(DiscoveryError::ResourceExhausted { .. })
    ));
    drop(open.pop());
    assert!(h.discovery.watch_packages(another, watch("")).await.is_ok());
}

#[tokio::test]
async fn a_resume_revision_longer_than_any_revision_is_refused_naming_the_field() {
    let h = harness_with_settings(settings(60_000)).await;
    let long = "f".repeat(1024 * 1024);
    let refused = h.discovery.watch_packages(good(), watch(&long)).await;
    match refused {
        Err(DiscoveryError::InvalidArgument { field, .. }) => assert_eq!(field, "resume_revision"),
        Err(other) => panic!("expected INVALID_ARGUMENT, got {other:?}"),
        Ok(_) => panic!("a megabyte revision was accepted"),
    }
}

/// The attacker opens a stream with a token about to expire, to go on being answered
/// (and told of new packages) long after: the permit was verified once, at the start.
/// The stream ends when the token expires, not at its longest age (10 minutes by
/// default, never reached within the test's patience).
#[tokio::test]
async fn a_stream_ends_when_its_callers_token_expires() {
    let h = harness_with_settings(settings(60_000)).await;
    h.index
        .put("repo", ".claude/skills/review/SKILL.md", &skill("review"));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let expiring = token_expiring(now + 2);
    let mut stream = h
        .discovery
        .watch_packages(expiring, watch(""))
        .await
        .unwrap();
    let first = next(&mut stream).await;
    assert!(names(&first).contains("review"));
    let after = tokio::time::timeout(PATIENCE, stream.next())
        .await
        .expect("the stream ends when the token expires, not at its longest age");
    assert!(
        after.is_none(),
        "nothing more after the token's expiry: {after:?}"
    );
}
