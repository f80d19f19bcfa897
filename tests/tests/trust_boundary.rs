//! The trust boundary's rules, one test each, in both shapes and over gRPC only
//! (DESIGN.md section 5; BRIEF decisions 1 to 6).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use neuralis_discovery::CallerToken;
use neuralis_policy::{BearerToken, PolicyError};
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as sync;
use neuralis_sync::SyncError;
use neuralis_tests::fixture::{self, REPO, read_policy, register, scope, visible};
use neuralis_tests::raw::{self, Rpc};
use neuralis_tests::{Cluster, Mode};
use tonic::Code;

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";
const REVIEW: &str = ".claude/skills/review/SKILL.md";

macro_rules! in_both_modes {
    ($($rule:ident),* $(,)?) => {$(
        mod $rule {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn all_in_one() {
                super::$rule(super::Mode::AllInOne).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn split() {
                super::$rule(super::Mode::Split).await;
            }
        }
    )*};
}

in_both_modes!(
    cross_project_administration_is_refused,
    a_member_of_another_project_cannot_set_overrides_in_a_conversation_of_the_project,
    conversation_ids_are_per_project,
    a_caller_token_cannot_call_the_feed_or_evaluate,
    a_service_credential_cannot_call_caller_rpcs,
    a_non_administrator_is_permission_denied_not_unauthenticated,
    a_message_that_does_not_decode_is_invalid_argument_naming_the_field,
);

struct Setup {
    cluster: Cluster,
    admin: String,
    member: String,
    /// The id sync assigned to project P's source `repo`.
    repo_id: String,
    _repo: tempfile::TempDir,
}

async fn setup(mode: Mode) -> Setup {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", Some("a1"), P);
    let repo = tempfile::tempdir().unwrap();
    fixture::write_tree(repo.path(), REPO).unwrap();
    let repo_id = register(
        &cluster,
        &admin,
        P,
        "repo",
        repo.path(),
        read_policy(vec![]),
    )
    .await
    .expect("register");
    Setup {
        cluster,
        admin,
        member,
        repo_id,
        _repo: repo,
    }
}

fn bearer(token: &str) -> BearerToken {
    BearerToken::new(Some(token.to_owned()))
}

fn spec(root: &std::path::Path) -> sync::SourceSpec {
    sync::SourceSpec {
        project: P.into(),
        slug: "repo".into(),
        kind: sync::SourceKind::Local as i32,
        root: root.display().to_string(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        ..Default::default()
    }
}

fn sync_denied<T: std::fmt::Debug>(result: Result<T, SyncError>, what: &str) {
    assert!(
        matches!(result, Err(SyncError::PermissionDenied(_))),
        "{what}: {result:?}"
    );
}

fn policy_denied<T: std::fmt::Debug>(result: Result<T, PolicyError>, what: &str) {
    assert!(
        matches!(result, Err(PolicyError::PermissionDenied(_))),
        "{what}: {result:?}"
    );
}

/// Administration calls made with `token` on project P's source: each must be refused.
async fn administer(s: &Setup, token: &str) {
    let caller = bearer(token);
    let elsewhere = tempfile::tempdir().unwrap();
    let sources = &s.cluster.sources;
    let created = sources
        .create_source(
            &caller,
            sync::CreateSourceRequest {
                source: Some(sync::SourceSpec {
                    slug: "planted".into(),
                    ..spec(elsewhere.path())
                }),
            },
        )
        .await;
    sync_denied(created, "create");
    let updated = sources
        .update_source(
            &caller,
            sync::UpdateSourceRequest {
                source: Some(spec(elsewhere.path())),
            },
        )
        .await;
    sync_denied(updated, "update");
    let synced = sources
        .sync_source(
            &caller,
            sync::SyncSourceRequest {
                project: P.into(),
                slug: "repo".into(),
            },
        )
        .await
        .map(drop);
    sync_denied(synced, "sync");
    let floor = policy::PathRule {
        pattern: "**".into(),
        read: Some(false),
        floor: true,
        ..Default::default()
    };
    let put = policy::PutSourcePolicyRequest {
        source_id: s.repo_id.clone(),
        policy: Some(read_policy(vec![floor])),
    };
    policy_denied(
        s.cluster
            .policy
            .put_source_policy(caller.clone(), put)
            .await,
        "a floor on another project's source",
    );
    let switch = policy::SetSourceEnabledRequest {
        source_id: s.repo_id.clone(),
        enabled: false,
    };
    policy_denied(
        s.cluster.policy.set_source_enabled(caller, switch).await,
        "switching another project's source off",
    );
}

async fn cross_project_administration_is_refused(mode: Mode) {
    let s = setup(mode).await;
    let outsider = s.cluster.token("eve", "owner", None, "other");
    administer(&s, &outsider).await;
    let seen = visible(&s.cluster, &s.member, scope(P, "a1", ""))
        .await
        .unwrap();
    assert!(
        seen.iter().any(|(path, _)| path == REVIEW),
        "the project's own packages are untouched: {seen:?}"
    );
    s.cluster.stop().await.unwrap();
}

async fn a_member_of_another_project_cannot_set_overrides_in_a_conversation_of_the_project(
    mode: Mode,
) {
    let s = setup(mode).await;
    let register = policy::RegisterConversationRequest {
        conversation_id: "c1".into(),
        project_id: P.into(),
        parent_conversation_id: String::new(),
    };
    s.cluster
        .policy
        .register_conversation(bearer(&s.member), register)
        .await
        .unwrap();
    let off = policy::SetFileOverrideRequest {
        scope: policy::OverrideScope::Conversation as i32,
        owner_id: "c1".into(),
        package_key: format!("{}/claude", s.repo_id),
        file_path: REVIEW.into(),
        state: policy::OverrideState::Off as i32,
        project_id: P.into(),
    };
    let outsider = s.cluster.token("eve", "member", Some("a1"), "other");
    policy_denied(
        s.cluster
            .policy
            .set_file_override(bearer(&outsider), off.clone())
            .await,
        "a member of another project",
    );
    let seen = visible(&s.cluster, &s.member, scope(P, "a1", "c1"))
        .await
        .unwrap();
    assert_eq!(
        fixture::state_of(&seen, REVIEW),
        Some(discovery::FileState::Active),
        "the file stays on in the conversation"
    );
    s.cluster
        .policy
        .set_file_override(bearer(&s.member), off)
        .await
        .expect("a member of the project may");
    s.cluster.stop().await.unwrap();
}

/// Issue 25 item 4: a conversation registered by another project, with that project's
/// overrides, changes nothing in this project's conversation of the same id; and this
/// project registers the id as if the other had never used it.
async fn conversation_ids_are_per_project(mode: Mode) {
    let s = setup(mode).await;
    let outsider = s.cluster.token("eve", "member", Some("a1"), "other");
    let register = |project: &str| policy::RegisterConversationRequest {
        conversation_id: "c1".into(),
        project_id: project.into(),
        parent_conversation_id: String::new(),
    };
    s.cluster
        .policy
        .register_conversation(bearer(&outsider), register("other"))
        .await
        .unwrap();
    // The other project's own conversation "c1", aimed at this project's file.
    let off = policy::SetFileOverrideRequest {
        scope: policy::OverrideScope::Conversation as i32,
        owner_id: "c1".into(),
        package_key: format!("{}/claude", s.repo_id),
        file_path: REVIEW.into(),
        state: policy::OverrideState::Off as i32,
        project_id: "other".into(),
    };
    s.cluster
        .policy
        .set_file_override(bearer(&outsider), off)
        .await
        .expect("the other project's member may set its own conversation's overrides");
    s.cluster
        .policy
        .register_conversation(bearer(&s.member), register(P))
        .await
        .expect("the id is free in this project");
    let seen = visible(&s.cluster, &s.member, scope(P, "a1", "c1"))
        .await
        .unwrap();
    assert_eq!(
        fixture::state_of(&seen, REVIEW),
        Some(discovery::FileState::Active),
        "another project's conversation of the same id changes nothing here"
    );
    // A child naming a parent only the other project registered: as unknown as a
    // parent never registered.
    let child = |parent: &str| policy::RegisterConversationRequest {
        conversation_id: "child".into(),
        project_id: P.into(),
        parent_conversation_id: parent.into(),
    };
    let foreign = s
        .cluster
        .policy
        .register_conversation(bearer(&s.member), child("only-elsewhere"))
        .await;
    s.cluster
        .policy
        .register_conversation(bearer(&outsider), {
            let mut r = register("other");
            r.conversation_id = "only-elsewhere".into();
            r
        })
        .await
        .unwrap();
    let after = s
        .cluster
        .policy
        .register_conversation(bearer(&s.member), child("only-elsewhere"))
        .await;
    assert_eq!(
        format!("{foreign:?}"),
        format!("{after:?}"),
        "a parent of another project answers as an unknown one"
    );
    assert!(after.is_err());
    s.cluster.stop().await.unwrap();
}

async fn a_caller_token_cannot_call_the_feed_or_evaluate(mode: Mode) {
    let s = setup(mode).await;
    let evaluate = policy::EvaluateRequest {
        project_id: P.into(),
        caller: Some(policy::CallerScope {
            subject: "ada".into(),
            role: "owner".into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    for token in [&s.admin, &s.member] {
        policy_denied(
            s.cluster
                .policy
                .evaluate(bearer(token), evaluate.clone())
                .await,
            "evaluate with a caller token",
        );
    }
    let read = Rpc {
        path: neuralis_authz::tables::index_feed::READ_DECIDED_FILE.into(),
        streaming: false,
    };
    let request = prost::Message::encode_to_vec(&feed::ReadDecidedFileRequest {
        project: P.into(),
        source: "repo".into(),
        path: REVIEW.into(),
        ..Default::default()
    });
    let feed = s.cluster.addrs.get("sync-internal").copied();
    let (addr, refused) = match (mode, feed) {
        // In split mode the feed is on sync's internal listener: a caller token is
        // refused there.
        (Mode::Split, Some(addr)) => (addr, Code::PermissionDenied),
        // In all-in-one mode it is not served at all.
        _ => (s.cluster.addrs["sync"], Code::Unimplemented),
    };
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect_lazy();
    for token in [&s.admin, &s.member] {
        let outcome = raw::call(&channel, &read, request.clone(), Some(token)).await;
        assert_eq!(outcome.code, refused);
        assert!(!outcome.shows("Read the diff first"));
    }
    s.cluster.stop().await.unwrap();
}

async fn a_service_credential_cannot_call_caller_rpcs(mode: Mode) {
    let s = setup(mode).await;
    let service = s.cluster.service_credential("discovery");
    administer(&s, &service).await;
    let listing = s
        .cluster
        .discovery
        .list_packages(
            CallerToken::new(Some(service)),
            discovery::ListPackagesRequest {
                scope: scope(P, "", ""),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(
        listing.packages.is_empty(),
        "a service is no caller: the empty answer"
    );
    s.cluster.stop().await.unwrap();
}

async fn a_non_administrator_is_permission_denied_not_unauthenticated(mode: Mode) {
    let s = setup(mode).await;
    administer(&s, &s.member.clone()).await;
    s.cluster.stop().await.unwrap();
}

async fn a_message_that_does_not_decode_is_invalid_argument_naming_the_field(mode: Mode) {
    let s = setup(mode).await;
    // CreateSourceRequest { source: SourceSpec { project: <0xff 0xfe> } }: a string that
    // is not UTF-8.
    let bad_string = vec![0x0a, 0x04, 0x0a, 0x02, 0xff, 0xfe];
    let cases = [
        (
            neuralis_authz::tables::sources::CREATE_SOURCE,
            "sync",
            "source.project",
        ),
        (
            neuralis_authz::tables::policy::PUT_SOURCE_POLICY,
            "policy",
            "source_id",
        ),
        (
            neuralis_authz::tables::discovery::LIST_PACKAGES,
            "discovery",
            "scope.project_id",
        ),
    ];
    for (path, service, field) in cases {
        let channel =
            tonic::transport::Endpoint::from_shared(format!("http://{}", s.cluster.addrs[service]))
                .unwrap()
                .connect_lazy();
        let rpc = Rpc {
            path: path.into(),
            streaming: false,
        };
        // PutSourcePolicyRequest's first field is a string too.
        let body = if service == "policy" {
            vec![0x0a, 0x02, 0xff, 0xfe]
        } else {
            bad_string.clone()
        };
        let outcome = raw::call(&channel, &rpc, body, Some(&s.admin)).await;
        let message = String::from_utf8_lossy(&outcome.seen).into_owned();
        assert_eq!(outcome.code, Code::InvalidArgument, "{path}: {message}");
        assert!(
            message.starts_with(&format!("{field}: ")),
            "{path}: {message}"
        );
    }
    s.cluster.stop().await.unwrap();
}
