//! `WatchPackages` end to end (issue 30): two callers with different roles watch one
//! project of a real all-in-one server over gRPC. A write, a policy change and a
//! conversation override each send one message to the callers whose answer changes
//! and none to the other.
//!
//! "None" is proved without waiting on a clock: after a change that must not reach a
//! caller, a change that reaches everyone is made, and that caller's next message must
//! be that one (and must still show what the first change did not touch).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;
use std::time::Duration;

use futures::StreamExt as _;
use neuralis_discovery::{CallerToken, WatchStream};
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_tests::Cluster;
use neuralis_tests::fixture::{
    put_policy, read_policy, register, resync, scope, source_id, write_tree,
};

const P: &str = "proj";
const PATIENCE: Duration = Duration::from_secs(30);

const TREE: &[(&str, &str)] = &[
    (
        ".claude/skills/review/SKILL.md",
        "---\nname: zqreview\n---\nReview.\n",
    ),
    (
        ".claude/skills/deploy/SKILL.md",
        "---\nname: zqdeploy\n---\nDeploy.\n",
    ),
];

async fn next(stream: &mut WatchStream) -> discovery::WatchPackagesResponse {
    tokio::time::timeout(PATIENCE, stream.next())
        .await
        .expect("a message in time")
        .expect("the stream is open")
        .expect("an answer")
}

/// `(file id, state)` of every file in a message.
fn files(message: &discovery::WatchPackagesResponse) -> Vec<(String, i32)> {
    message
        .packages
        .iter()
        .flat_map(|p| &p.files)
        .map(|f| (f.id.clone(), f.state))
        .collect()
}

fn shows(message: &discovery::WatchPackagesResponse, id: &str) -> bool {
    files(message).iter().any(|(file, _)| file == id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_a_policy_change_and_an_override_reach_only_the_callers_they_change() {
    let repo = tempfile::tempdir().unwrap();
    write_tree(repo.path(), TREE).unwrap();
    let env = HashMap::from([(
        "NEURALIS__DISCOVERY__WATCH__RECHECK_MS".to_owned(),
        "100".to_owned(),
    )]);
    let cluster = Cluster::all_in_one(env).await.unwrap();
    let admin = cluster.token("ops", "owner", None, P);
    register(
        &cluster,
        &admin,
        P,
        "repo",
        repo.path(),
        read_policy(vec![]),
    )
    .await
    .expect("register");
    let bearer = |token: &str| CallerToken::new(Some(token.to_owned()));
    let conversation = policy::RegisterConversationRequest {
        conversation_id: "c1".into(),
        project_id: P.into(),
        parent_conversation_id: String::new(),
    };
    cluster
        .policy
        .register_conversation(bearer(&admin), conversation)
        .await
        .expect("conversation");

    let member = cluster.token("ada", "member", None, P);
    let guest = cluster.token("gus", "guest", None, P);
    let watch = |conversation: &str| discovery::WatchPackagesRequest {
        scope: scope(P, "", conversation),
        resume_revision: String::new(),
    };
    let mut members = cluster
        .discovery
        .watch_packages(bearer(&member), watch(""))
        .await
        .unwrap();
    let mut guests = cluster
        .discovery
        .watch_packages(bearer(&guest), watch("c1"))
        .await
        .unwrap();
    assert!(shows(&next(&mut members).await, "zqdeploy"));
    assert!(shows(&next(&mut guests).await, "zqdeploy"));

    // 1. A policy change for guests only.
    let guests_only = policy::PathRule {
        pattern: ".claude/skills/deploy/**".into(),
        read: Some(false),
        roles: vec!["guest".into()],
        ..Default::default()
    };
    put_policy(&cluster, &admin, P, "repo", read_policy(vec![guests_only]))
        .await
        .unwrap();
    let guest_now = next(&mut guests).await;
    assert!(!shows(&guest_now, "zqdeploy"), "{:?}", files(&guest_now));
    assert!(shows(&guest_now, "zqreview"));

    // 2. A conversation override in c1: only the guest watches in c1.
    let source = source_id(&cluster, &admin, P, "repo").await.unwrap();
    let off = policy::SetFileOverrideRequest {
        scope: policy::OverrideScope::Conversation as i32,
        owner_id: "c1".into(),
        package_key: format!("{source}/claude"),
        file_path: ".claude/skills/review/SKILL.md".into(),
        state: policy::OverrideState::Off as i32,
        project_id: P.into(),
    };
    cluster
        .policy
        .set_file_override(bearer(&admin), off)
        .await
        .expect("override");
    let guest_overridden = next(&mut guests).await;
    assert_ne!(files(&guest_overridden), files(&guest_now));

    // 3. A write everyone sees: the member's next message is this one, so neither the
    //    policy change nor the override sent it anything.
    write_tree(
        repo.path(),
        &[(
            ".claude/skills/ship/SKILL.md",
            "---\nname: zqship\n---\nShip.\n",
        )],
    )
    .unwrap();
    resync(&cluster, &admin, P, "repo").await.unwrap();
    let member_next = next(&mut members).await;
    assert!(shows(&member_next, "zqship"), "{:?}", files(&member_next));
    assert!(
        shows(&member_next, "zqdeploy"),
        "the guests' rule is not the member's"
    );
    let guest_next = next(&mut guests).await;
    assert!(shows(&guest_next, "zqship"));
    assert!(!shows(&guest_next, "zqdeploy"), "still hidden from guests");
}
