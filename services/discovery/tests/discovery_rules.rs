//! Discovery's request path, rule by rule, over in-memory sync and policy.

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::sync::atomic::Ordering;

use fakes::{good, harness, publish};
use neuralis_bus::Phase;
use neuralis_discovery::{CallerToken, DiscoveryApi, DiscoveryError};
use neuralis_proto::discovery::v1 as pb;

fn scope() -> Option<pb::Scope> {
    Some(pb::Scope {
        project_id: "p1".into(),
        agent_id: String::new(),
        conversation_id: String::new(),
    })
}

fn list() -> pb::ListPackagesRequest {
    pb::ListPackagesRequest {
        scope: scope(),
        ..Default::default()
    }
}

const SKILL: &str = "---\nname: review\ndescription: Reviews code\n---\nRead the diff.\n";

async fn seeded() -> fakes::Harness {
    let h = harness().await;
    h.index.put("repo", ".claude/skills/review/SKILL.md", SKILL);
    h.index.put(
        "repo",
        ".claude/skills/review/scripts/diff.sh",
        "#!/bin/sh\n",
    );
    h.index.put(
        "repo",
        ".claude/rules/style.md",
        "---\nname: style\n---\nBe terse.\n",
    );
    h.index.put(
        "repo",
        ".claude/instructions/tone.md",
        "---\nname: tone\n---\nBe kind.\n",
    );
    h.index.put(
        "repo",
        ".claude/docs/guide.md",
        "---\nname: guide\n---\nGuide.\n",
    );
    h
}

#[tokio::test]
async fn an_unverified_caller_or_one_of_another_project_gets_an_empty_answer_not_an_error() {
    let h = seeded().await;
    for token in [
        CallerToken::new(None),
        CallerToken::new(Some("forged".into())),
        fakes::member_of("p2"),
    ] {
        let answer = h.discovery.list_packages(token, list()).await.unwrap();
        assert!(answer.packages.is_empty());
    }
    assert!(
        !h.discovery
            .list_packages(fakes::good(), list())
            .await
            .unwrap()
            .packages
            .is_empty(),
        "the check can fail: a member of the project sees the packages"
    );
    h.access.calls.store(0, Ordering::SeqCst);
    for token in [CallerToken::new(None), fakes::member_of("p2")] {
        h.discovery.list_packages(token, list()).await.unwrap();
    }
    assert_eq!(
        h.access.calls.load(Ordering::SeqCst),
        0,
        "no decision is even asked for"
    );
}

#[tokio::test]
async fn a_marker_directory_becomes_one_package_with_its_files() {
    let h = seeded().await;
    let answer = h.discovery.list_packages(good(), list()).await.unwrap();
    assert_eq!(answer.packages.len(), 1);
    let package = &answer.packages[0];
    assert_eq!(package.name, ".claude");
    let paths: Vec<_> = package
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.state))
        .collect();
    assert_eq!(
        paths,
        [
            (".claude/docs/guide.md", pb::FileState::Manual as i32),
            (".claude/instructions/tone.md", pb::FileState::Active as i32),
            (".claude/rules/style.md", pb::FileState::OptIn as i32),
            (
                ".claude/skills/review/SKILL.md",
                pb::FileState::Active as i32
            ),
        ]
    );
    let skill = &package.files[3];
    assert_eq!(skill.files, ["SKILL.md", "scripts/diff.sh"]);
    assert_eq!(skill.activation_id, "review");
}

#[tokio::test]
async fn a_denied_file_is_absent_without_trace() {
    let h = seeded().await;
    h.access
        .denied
        .lock()
        .unwrap()
        .insert(".claude/skills/review/SKILL.md".into());
    let answer = h.discovery.list_packages(good(), list()).await.unwrap();
    let text = format!("{answer:?}");
    assert!(!text.contains("review"), "{text}");
    let overview = h
        .discovery
        .render_overview(
            good(),
            pb::RenderOverviewRequest {
                scope: scope(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(!overview.text.contains("review"));
}

#[tokio::test]
async fn activation_reads_the_body_and_answers_not_found_alike_for_unknown_denied_and_vanished() {
    let h = seeded().await;
    let activate = |id: &str| pb::ActivateSkillRequest {
        scope: scope(),
        skill_id: id.into(),
    };
    let skill = h
        .discovery
        .activate_skill(good(), activate("review"))
        .await
        .unwrap();
    assert!(skill.body.contains("Read the diff."));
    assert_eq!(skill.files, ["SKILL.md", "scripts/diff.sh"]);
    assert_eq!(
        skill.directory_uri,
        "machine://m1/repo/.claude/skills/review"
    );

    assert_eq!(
        h.discovery.activate_skill(good(), activate("nope")).await,
        Err(DiscoveryError::NotFound)
    );
    h.index
        .remove_content_only("repo", ".claude/skills/review/SKILL.md");
    h.index.put("repo", ".claude/skills/review/SKILL.md", SKILL); // still indexed…
    h.access
        .denied
        .lock()
        .unwrap()
        .insert(".claude/skills/review/SKILL.md".into());
    publish(&h.bus, Phase::Finish, "w").await;
    assert_eq!(
        h.discovery.activate_skill(good(), activate("review")).await,
        Err(DiscoveryError::NotFound)
    );
}

#[tokio::test]
async fn a_skill_whose_file_vanished_fails_closed_with_not_found() {
    let h = seeded().await;
    // Indexed, then removed from the source without a re-sync: the row stays.
    let _ = h.discovery.list_packages(good(), list()).await.unwrap();
    h.index
        .files
        .lock()
        .unwrap()
        .remove(&("repo".into(), ".claude/skills/review/SKILL.md".into()));
    let answer = h
        .discovery
        .activate_skill(
            good(),
            pb::ActivateSkillRequest {
                scope: scope(),
                skill_id: "review".into(),
            },
        )
        .await;
    assert_eq!(answer, Err(DiscoveryError::NotFound));
}

#[tokio::test]
async fn hydration_never_reads_an_opt_in_or_denied_file() {
    let h = seeded().await;
    h.access
        .denied
        .lock()
        .unwrap()
        .insert(".claude/instructions/tone.md".into());
    let response = h
        .discovery
        .hydrate(
            good(),
            pb::HydrateRequest {
                scope: scope(),
                budget_bytes: 0,
            },
        )
        .await
        .unwrap();
    assert!(
        response.files.is_empty(),
        "the rule is opt-in and the instruction denied"
    );
    assert!(
        h.index.content_reads.lock().unwrap().is_empty(),
        "nothing was read at all"
    );
}

#[tokio::test]
async fn hydration_reads_active_files_and_reports_what_did_not_fit() {
    let h = seeded().await;
    h.index.put(
        "repo",
        ".claude/agents/big.md",
        &format!("---\nname: big\n---\n{}", "x".repeat(500)),
    );
    let response = h
        .discovery
        .hydrate(
            good(),
            pb::HydrateRequest {
                scope: scope(),
                budget_bytes: 100,
            },
        )
        .await
        .unwrap();
    let read: Vec<_> = response.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(read, [".claude/instructions/tone.md"]);
    assert_eq!(response.omitted.len(), 1);
    assert_eq!(response.omitted[0].path, ".claude/agents/big.md");
    // Read, then omitted by its bytes as read (issue 27: an indexed size never decides).
    assert_eq!(
        *h.index.content_reads.lock().unwrap(),
        [".claude/instructions/tone.md", ".claude/agents/big.md"]
    );
}

#[tokio::test]
async fn repeated_calls_do_not_reread_rows_until_a_write_is_published() {
    let h = seeded().await;
    for _ in 0..3 {
        h.discovery.list_packages(good(), list()).await.unwrap();
    }
    assert_eq!(h.index.row_reads.load(Ordering::SeqCst), 1);
    h.index.put(
        "repo",
        ".claude/skills/new/SKILL.md",
        "---\nname: new\n---\n",
    );
    publish(&h.bus, Phase::Start, "w1").await;
    publish(&h.bus, Phase::Finish, "w1").await;
    let answer = h.discovery.list_packages(good(), list()).await.unwrap();
    assert!(
        answer.packages[0].files.iter().any(|f| f.id == "new"),
        "a finish published before the call is honoured"
    );
    assert_eq!(h.index.row_reads.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn access_is_decided_on_every_call_never_cached() {
    let h = seeded().await;
    h.discovery.list_packages(good(), list()).await.unwrap();
    h.access
        .denied
        .lock()
        .unwrap()
        .insert(".claude/docs/guide.md".into());
    let answer = h.discovery.list_packages(good(), list()).await.unwrap();
    assert!(!answer.packages[0].files.iter().any(|f| f.id == "guide"));
    assert_eq!(h.access.calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn policy_unreachable_is_unavailable_never_an_unfiltered_answer() {
    let h = seeded().await;
    h.access.down.store(true, Ordering::SeqCst);
    let answer = h.discovery.list_packages(good(), list()).await;
    assert!(matches!(answer, Err(DiscoveryError::Unavailable(_))));
}

#[tokio::test]
async fn sync_unreachable_serves_a_warm_project_until_an_event_says_otherwise() {
    let h = seeded().await;
    let before = h.discovery.list_packages(good(), list()).await.unwrap();
    h.index.down.store(true, Ordering::SeqCst);
    // Nothing writes without sync: the rows held and the sources read last are current.
    let answer = h.discovery.list_packages(good(), list()).await.unwrap();
    assert_eq!(answer, before);
    // A write (or a source's change) announced since: no longer known current.
    publish(&h.bus, Phase::Start, "w1").await;
    let answer = h.discovery.list_packages(good(), list()).await;
    assert!(matches!(answer, Err(DiscoveryError::Unavailable(_))));
}

#[tokio::test]
async fn a_request_without_a_project_names_the_field() {
    let h = seeded().await;
    let answer = h
        .discovery
        .list_packages(
            good(),
            pb::ListPackagesRequest {
                scope: None,
                ..Default::default()
            },
        )
        .await;
    assert_eq!(answer, Err(DiscoveryError::invalid("scope", "is required")));
}

/// Seed 000: `allowed-tools` is advisory on a skill and enforced on an `agents/*.md`
/// persona, synced ones included, so it leaves discovery: on every listed file and on
/// the activation answer (issue 10).
#[tokio::test]
async fn allowed_tools_leave_discovery_on_listed_files_and_activation() {
    let h = harness().await;
    h.index.put(
        "repo",
        ".claude/skills/review/SKILL.md",
        "---\nname: review\nallowed-tools: Read, Grep\n---\nRead the diff.\n",
    );
    h.index.put(
        "repo",
        ".claude/agents/auditor.md",
        "---\nname: auditor\nallowed-tools:\n  - Read\n---\nAudit.\n",
    );
    let answer = h.discovery.list_packages(good(), list()).await.unwrap();
    let files = &answer.packages[0].files;
    let tools = |path: &str| {
        files
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.allowed_tools.clone())
            .unwrap()
    };
    assert_eq!(tools(".claude/skills/review/SKILL.md"), ["Read", "Grep"]);
    assert_eq!(tools(".claude/agents/auditor.md"), ["Read"]);
    let skill = h
        .discovery
        .activate_skill(
            good(),
            pb::ActivateSkillRequest {
                scope: scope(),
                skill_id: "review".into(),
            },
        )
        .await
        .unwrap();
    assert_eq!(skill.allowed_tools, ["Read", "Grep"]);
}
