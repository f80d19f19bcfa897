//! The end-to-end scenarios of the product, each run three times: all three services in one
//! process, three processes over PostgreSQL and Redis, and the same three over mutual TLS.
//! Every call goes over gRPC.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use neuralis_discovery::{CallerToken, DiscoveryError};
use neuralis_policy::BearerToken;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::discovery::v1::FileState;
use neuralis_proto::policy::v1 as policy;
use neuralis_tests::fixture::{
    self, REPO, put_policy, read_policy, register, scope, source_id, state_of, visible,
};
use neuralis_tests::{Cluster, Mode};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";
const REVIEW: &str = ".claude/skills/review/SKILL.md";
const CANARY: &str = ".claude/skills/canary/SKILL.md";
const STYLE: &str = ".claude/rules/style.md";
const GUIDE: &str = ".claude/docs/guide.md";

macro_rules! in_both_modes {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn all_in_one() {
                super::$scenario(super::Mode::AllInOne).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn split() {
                super::$scenario(super::Mode::Split).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn split_over_tls() {
                super::$scenario(super::Mode::SplitTls).await;
            }
        }
    )*};
}

in_both_modes!(
    sync_then_discover,
    toggles_at_agent_and_conversation_scope,
    a_delegate_child_run_inherits_overrides,
    revocations_take_effect_on_the_next_call,
    a_vanished_skill_is_not_found_like_an_unknown_one,
    an_unverified_caller_sees_nothing,
    callers_with_different_roles_never_see_each_others_answer,
);

/// A cluster with the `.claude` repository registered as source `repo`.
struct Setup {
    cluster: Cluster,
    admin: String,
    member: String,
    dir: tempfile::TempDir,
}

async fn setup(mode: Mode, uri_policy: policy::UriPolicy) -> Setup {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", Some("a1"), P);
    let dir = tempfile::tempdir().unwrap();
    fixture::write_tree(dir.path(), REPO).unwrap();
    register(&cluster, &admin, P, "repo", dir.path(), uri_policy)
        .await
        .expect("register");
    Setup {
        cluster,
        admin,
        member,
        dir,
    }
}

fn admin_token(s: &Setup) -> BearerToken {
    BearerToken::new(Some(s.admin.clone()))
}

async fn sync_then_discover(mode: Mode) {
    let s = setup(mode, read_policy(vec![])).await;
    let seen = visible(&s.cluster, &s.member, scope(P, "a1", ""))
        .await
        .unwrap();
    assert_eq!(
        state_of(&seen, REVIEW),
        Some(FileState::Active),
        "skills are on by default"
    );
    assert_eq!(
        state_of(&seen, STYLE),
        Some(FileState::OptIn),
        "rules are opt-in"
    );
    assert_eq!(
        state_of(&seen, ".claude/instructions/tone.md"),
        Some(FileState::Active)
    );
    assert_eq!(
        state_of(&seen, GUIDE),
        Some(FileState::Manual),
        "docs are listed for manual reading"
    );
    assert_eq!(
        state_of(&seen, CANARY),
        None,
        "a requiredFeatures file is hidden from non-holders"
    );
    let caller = CallerToken::new(Some(s.member.clone()));
    let request = discovery::ActivateSkillRequest {
        scope: scope(P, "a1", ""),
        skill_id: "review".into(),
    };
    let skill = s
        .cluster
        .discovery
        .activate_skill(caller, request)
        .await
        .unwrap();
    assert!(skill.body.contains("Read the diff first."));
    assert_eq!(skill.files, ["SKILL.md", "scripts/diff.sh"]);
    s.cluster.stop().await.unwrap();
}

async fn set_override(
    s: &Setup,
    scope: policy::OverrideScope,
    owner: &str,
    path: &str,
    state: policy::OverrideState,
) {
    let request = policy::SetFileOverrideRequest {
        scope: scope as i32,
        owner_id: owner.into(),
        // `<source_id>/<packageKey>`, as `ListPackages` shows it in `policy_key`.
        package_key: format!(
            "{}/claude",
            source_id(&s.cluster, &s.admin, P, "repo").await.unwrap()
        ),
        file_path: path.into(),
        state: state as i32,
        // Conversation ids are per project; an agent override names none.
        project_id: match scope {
            policy::OverrideScope::Conversation => P.into(),
            _ => String::new(),
        },
    };
    // An agent's configuration reaches every project: a platform-wide administrator
    // sets it; a conversation's, an administrator of its project.
    let token = match scope {
        policy::OverrideScope::Agent => {
            BearerToken::new(Some(s.cluster.platform_token("root", "owner")))
        }
        _ => admin_token(s),
    };
    s.cluster
        .policy
        .set_file_override(token, request)
        .await
        .expect("override");
}

async fn register_conversation(s: &Setup, id: &str, parent: &str) {
    let request = policy::RegisterConversationRequest {
        conversation_id: id.into(),
        project_id: P.into(),
        parent_conversation_id: parent.into(),
    };
    s.cluster
        .policy
        .register_conversation(admin_token(s), request)
        .await
        .expect("conversation");
}

async fn toggles_at_agent_and_conversation_scope(mode: Mode) {
    use policy::{OverrideScope::*, OverrideState::*};
    let s = setup(mode, read_policy(vec![])).await;
    register_conversation(&s, "c1", "").await;
    set_override(&s, Conversation, "c1", STYLE, On).await;
    let in_c1 = visible(&s.cluster, &s.member, scope(P, "a1", "c1"))
        .await
        .unwrap();
    assert_eq!(
        state_of(&in_c1, STYLE),
        Some(FileState::Active),
        "an explicit enable activates an opt-in file"
    );
    let elsewhere = visible(&s.cluster, &s.member, scope(P, "a1", ""))
        .await
        .unwrap();
    assert_eq!(
        state_of(&elsewhere, STYLE),
        Some(FileState::OptIn),
        "only in that conversation"
    );

    set_override(&s, Agent, "a1", REVIEW, Off).await;
    set_override(&s, Conversation, "c1", REVIEW, On).await;
    let in_c1 = visible(&s.cluster, &s.member, scope(P, "a1", "c1"))
        .await
        .unwrap();
    assert_eq!(
        state_of(&in_c1, REVIEW),
        Some(FileState::Disabled),
        "an agent-level off is final"
    );
    s.cluster.stop().await.unwrap();
}

async fn a_delegate_child_run_inherits_overrides(mode: Mode) {
    use policy::{OverrideScope::*, OverrideState::*};
    let s = setup(mode, read_policy(vec![])).await;
    register_conversation(&s, "root", "").await;
    register_conversation(&s, "child", "root").await;
    register_conversation(&s, "grandchild", "child").await;
    set_override(&s, Conversation, "root", STYLE, On).await;
    let seen = visible(&s.cluster, &s.member, scope(P, "a1", "grandchild"))
        .await
        .unwrap();
    assert_eq!(
        state_of(&seen, STYLE),
        Some(FileState::Active),
        "inherited from the grandparent"
    );
    set_override(&s, Conversation, "child", STYLE, Off).await;
    let seen = visible(&s.cluster, &s.member, scope(P, "a1", "grandchild"))
        .await
        .unwrap();
    assert_eq!(
        state_of(&seen, STYLE),
        Some(FileState::Disabled),
        "the nearest override wins"
    );
    s.cluster.stop().await.unwrap();
}

async fn grant_beta(s: &Setup, features: &[&str]) {
    let grants = vec![policy::RoleGrant {
        role: "member".into(),
        features: features.iter().map(|f| f.to_string()).collect(),
        revoked: vec![],
    }];
    let request = policy::PutRoleGrantsRequest {
        grantor: policy::GrantorKind::Administrator as i32,
        package_id: String::new(),
        grants,
        project_id: String::new(),
    };
    // Grants for every project: a platform-wide administrator sets them.
    let platform = BearerToken::new(Some(s.cluster.platform_token("root", "owner")));
    s.cluster
        .policy
        .put_role_grants(platform, request)
        .await
        .expect("grants");
}

async fn member(s: &Setup) -> anyhow::Result<Vec<(String, FileState)>> {
    visible(&s.cluster, &s.member, scope(P, "a1", "")).await
}

async fn revocations_take_effect_on_the_next_call(mode: Mode) {
    let s = setup(mode, read_policy(vec![])).await;

    grant_beta(&s, &["beta"]).await;
    assert!(
        state_of(&member(&s).await.unwrap(), CANARY).is_some(),
        "a granted feature shows the gated skill"
    );
    grant_beta(&s, &[]).await;
    assert_eq!(
        state_of(&member(&s).await.unwrap(), CANARY),
        None,
        "a revoked role grant hides it at once"
    );

    let floor = policy::PathRule {
        pattern: ".claude/rules/**".into(),
        read: Some(false),
        floor: true,
        ..Default::default()
    };
    let lift = policy::PathRule {
        pattern: ".claude/rules/style.md".into(),
        read: Some(true),
        r#override: true,
        ..Default::default()
    };
    put_policy(
        &s.cluster,
        &s.admin,
        P,
        "repo",
        read_policy(vec![lift, floor]),
    )
    .await
    .unwrap();
    assert_eq!(
        state_of(&member(&s).await.unwrap(), STYLE),
        None,
        "a new floor holds against an override"
    );

    let request = policy::SetSourceEnabledRequest {
        source_id: source_id(&s.cluster, &s.admin, P, "repo").await.unwrap(),
        enabled: false,
    };
    s.cluster
        .policy
        .set_source_enabled(admin_token(&s), request)
        .await
        .unwrap();
    assert!(
        member(&s).await.unwrap().is_empty(),
        "a disabled source contributes nothing"
    );
    s.cluster.stop().await.unwrap();
}

async fn a_vanished_skill_is_not_found_like_an_unknown_one(mode: Mode) {
    let s = setup(mode, read_policy(vec![])).await;
    std::fs::remove_file(s.dir.path().join(REVIEW)).unwrap();
    let activate = |id: &str| {
        let caller = CallerToken::new(Some(s.member.clone()));
        let request = discovery::ActivateSkillRequest {
            scope: scope(P, "a1", ""),
            skill_id: id.into(),
        };
        s.cluster.discovery.activate_skill(caller, request)
    };
    let vanished = activate("review").await;
    let unknown = activate("no-such-skill").await;
    assert_eq!(vanished, Err(DiscoveryError::NotFound));
    assert_eq!(unknown, Err(DiscoveryError::NotFound));
    s.cluster.stop().await.unwrap();
}

async fn an_unverified_caller_sees_nothing(mode: Mode) {
    let s = setup(mode, read_policy(vec![])).await;
    let other = Cluster::token(&s.cluster, "ada", "member", Some("a1"), "other-project");
    for token in [None, Some("not-a-token".to_owned()), Some(other)] {
        let caller = CallerToken::new(token);
        let request = discovery::ListPackagesRequest {
            scope: scope(P, "a1", ""),
            ..Default::default()
        };
        let answer = s
            .cluster
            .discovery
            .list_packages(caller.clone(), request)
            .await
            .unwrap();
        assert!(answer.packages.is_empty());
        let request = discovery::ActivateSkillRequest {
            scope: scope(P, "a1", ""),
            skill_id: "review".into(),
        };
        assert_eq!(
            s.cluster.discovery.activate_skill(caller, request).await,
            Err(DiscoveryError::NotFound)
        );
    }
    s.cluster.stop().await.unwrap();
}

async fn callers_with_different_roles_never_see_each_others_answer(mode: Mode) {
    let deny_docs = policy::PathRule {
        pattern: ".claude/docs/**".into(),
        read: Some(false),
        ..Default::default()
    };
    let admins_read = policy::PathRule {
        pattern: ".claude/docs/**".into(),
        read: Some(true),
        roles: vec!["admin".into()],
        ..Default::default()
    };
    let s = setup(mode, read_policy(vec![deny_docs, admins_read])).await;
    let admin_reader = s.cluster.token("bo", "admin", Some("a1"), P);
    let mut calls = Vec::new();
    for i in 0..20 {
        let token = if i % 2 == 0 {
            s.member.clone()
        } else {
            admin_reader.clone()
        };
        let cluster = &s.cluster;
        calls.push(async move {
            (
                i % 2 == 1,
                visible(cluster, &token, scope(P, "a1", "")).await.unwrap(),
            )
        });
    }
    for (is_admin, seen) in futures::future::join_all(calls).await {
        assert_eq!(
            state_of(&seen, GUIDE).is_some(),
            is_admin,
            "each caller gets its own answer"
        );
    }
    s.cluster.stop().await.unwrap();
}
