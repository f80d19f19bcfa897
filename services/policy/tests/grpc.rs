//! The policy service over gRPC, on a real server bound to `127.0.0.1:0`, through the
//! gRPC client; every scenario runs on the embedded store and on PostgreSQL.
//!
//! Seed 000: "Every request re-reads the source's persisted configuration ... so a
//! revoked permission, a disabled source or a changed role takes effect on the next
//! request — including one already in flight when the change lands."

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;

use async_trait::async_trait;
use neuralis_access::{
    AccessSnapshot, Capabilities, DecisionCode, PathRule, RoleGrants, SourceRecord, UriPolicy,
};
use neuralis_access_store::testing::{Backend, with_store};
use neuralis_access_store::{
    AccessStore, ConversationRecord, FileRef, OverrideTarget, SnapshotQuery, StoreError,
};
use neuralis_host::Shutdown;
use neuralis_identity::Claims;
use neuralis_policy::convert::{batch_to_proto, policy_to_proto};
use neuralis_policy::{BearerToken, PolicyApi, PolicyError, PolicyGrpcClient};
use neuralis_proto::policy::v1 as pb;
use prost::Message;
use support::{Harness, PACKAGE, PROJECT, SOURCE, admin, batch, member, token_with, with_server};
use tokio::sync::{Semaphore, mpsc};

use DecisionCode::{
    Hidden, VisibleActive as Active, VisibleDisabled as Disabled, VisibleManual as Manual,
    VisibleOptIn as OptIn,
};

macro_rules! on_both_stores {
    ($($case:ident),* $(,)?) => {
        mod embedded {
            $( #[tokio::test] async fn $case() { super::with_server(super::Backend::Embedded, super::$case).await } )*
        }
        mod postgres {
            $( #[tokio::test] async fn $case() { super::with_server(super::Backend::Postgres, super::$case).await } )*
        }
    };
}

on_both_stores!(
    a_change_committed_between_two_evaluate_calls_is_honoured_by_the_second,
    a_revoked_role_grant_takes_effect_at_once,
    a_disabled_source_takes_effect_at_once,
    a_new_floor_takes_effect_at_once_and_no_override_lifts_it,
    package_agent_and_conversation_switches_follow_the_precedence_along_a_delegate_chain,
    an_unknown_source_decides_not_visible,
    a_call_without_a_valid_token_is_unauthenticated,
    administrative_calls_need_an_administrator,
    bad_input_is_invalid_argument_naming_the_field_never_the_path,
    a_hidden_decision_on_the_wire_carries_its_index_and_nothing_else,
    persisted_floors_survive_an_edit_and_read_back,
);

fn read_all() -> UriPolicy {
    UriPolicy {
        default: Capabilities {
            read: true,
            ..Capabilities::default()
        },
        paths: Vec::new(),
    }
}

async fn put_policy(client: &PolicyGrpcClient, policy: &UriPolicy) {
    let request = pb::PutSourcePolicyRequest {
        source_id: SOURCE.into(),
        policy: Some(policy_to_proto(policy)),
    };
    client.put_source_policy(admin(), request).await.unwrap();
}

/// (package code, file codes) for `token` in `conversation`.
async fn decide(
    client: &PolicyGrpcClient,
    token: BearerToken,
    conversation: Option<&str>,
) -> (DecisionCode, Vec<DecisionCode>) {
    let evaluation = client
        .evaluate_batch(token, conversation, &batch())
        .await
        .unwrap();
    (
        evaluation.packages[0].code,
        evaluation.files.iter().map(|d| d.code).collect(),
    )
}

async fn a_change_committed_between_two_evaluate_calls_is_honoured_by_the_second(h: Harness) {
    put_policy(&h.client, &read_all()).await;
    assert_eq!(
        decide(&h.client, member(), None).await,
        (Active, vec![Active, OptIn, Manual])
    );
    let deny_docs = UriPolicy {
        paths: vec![PathRule {
            read: Some(false),
            ..PathRule::new(".claude/docs/**")
        }],
        ..read_all()
    };
    put_policy(&h.client, &deny_docs).await;
    assert_eq!(
        decide(&h.client, member(), None).await,
        (Active, vec![Active, OptIn, Hidden])
    );
}

async fn a_revoked_role_grant_takes_effect_at_once(h: Harness) {
    put_policy(&h.client, &read_all()).await;
    let grants = |features: &[&str]| pb::PutRoleGrantsRequest {
        grantor: pb::GrantorKind::Administrator.into(),
        package_id: String::new(),
        grants: vec![pb::RoleGrant {
            role: "member".into(),
            features: features.iter().map(|f| f.to_string()).collect(),
        }],
    };
    h.client
        .put_role_grants(admin(), grants(&["review.use"]))
        .await
        .unwrap();
    let mut request = batch();
    request.files[0].required_features = vec!["review.use".into()];
    let skill = |client: PolicyGrpcClient, request: neuralis_access::EvaluationRequest| async move {
        client
            .evaluate_batch(member(), None, &request)
            .await
            .unwrap()
            .files[0]
            .code
    };
    assert_eq!(skill(h.client.clone(), request.clone()).await, Active);
    h.client
        .put_role_grants(admin(), grants(&[]))
        .await
        .unwrap();
    assert_eq!(skill(h.client.clone(), request.clone()).await, Hidden);
    // A changed role is a new token: the same feature carried by the token opens it.
    let holder = token_with(Claims {
        features: vec!["review.use".into()],
        ..support::claims()
    });
    assert_eq!(
        h.client
            .evaluate_batch(holder, None, &request)
            .await
            .unwrap()
            .files[0]
            .code,
        Active
    );
}

async fn a_disabled_source_takes_effect_at_once(h: Harness) {
    put_policy(&h.client, &read_all()).await;
    let switch = |enabled| pb::SetSourceEnabledRequest {
        source_id: SOURCE.into(),
        enabled,
    };
    h.client
        .set_source_enabled(admin(), switch(false))
        .await
        .unwrap();
    assert_eq!(
        decide(&h.client, member(), None).await,
        (Hidden, vec![Hidden; 3])
    );
    h.client
        .set_source_enabled(admin(), switch(true))
        .await
        .unwrap();
    assert_eq!(decide(&h.client, member(), None).await.0, Active);
}

async fn a_new_floor_takes_effect_at_once_and_no_override_lifts_it(h: Harness) {
    let open_for_members = PathRule {
        read: Some(true),
        roles: vec!["member".into()],
        override_rule: true,
        ..PathRule::new("**")
    };
    put_policy(
        &h.client,
        &UriPolicy {
            paths: vec![open_for_members.clone()],
            ..read_all()
        },
    )
    .await;
    assert_eq!(decide(&h.client, member(), None).await.1[0], Active);
    let floor = PathRule {
        read: Some(false),
        floor: true,
        ..PathRule::new(".claude/skills/**")
    };
    put_policy(
        &h.client,
        &UriPolicy {
            paths: vec![open_for_members, floor],
            ..read_all()
        },
    )
    .await;
    assert_eq!(
        decide(&h.client, member(), None).await.1,
        vec![Hidden, OptIn, Manual]
    );
    assert_eq!(decide(&h.client, admin(), None).await.1[0], Hidden);
}

async fn package_agent_and_conversation_switches_follow_the_precedence_along_a_delegate_chain(
    h: Harness,
) {
    put_policy(&h.client, &read_all()).await;
    let register = |id: &str, parent: &str| pb::RegisterConversationRequest {
        conversation_id: id.into(),
        project_id: PROJECT.into(),
        parent_conversation_id: parent.into(),
    };
    for (id, parent) in [("root", ""), ("child", "root"), ("grandchild", "child")] {
        h.client
            .register_conversation(member(), register(id, parent))
            .await
            .unwrap();
    }
    let set = |scope: pb::OverrideScope, owner: &str, state: pb::OverrideState| {
        pb::SetFileOverrideRequest {
            scope: scope.into(),
            owner_id: owner.into(),
            package_key: PACKAGE.into(),
            file_path: ".claude/rules/style.md".into(),
            state: state.into(),
        }
    };
    let rule = |client: PolicyGrpcClient| async move {
        decide(&client, member(), Some("grandchild")).await.1[1]
    };
    assert_eq!(rule(h.client.clone()).await, OptIn);
    // An enable at the root conversation reaches the grandchild delegate run.
    h.client
        .set_file_override(
            member(),
            set(
                pb::OverrideScope::Conversation,
                "root",
                pb::OverrideState::On,
            ),
        )
        .await
        .unwrap();
    assert_eq!(rule(h.client.clone()).await, Active);
    // The nearer conversation's off wins.
    h.client
        .set_file_override(
            member(),
            set(
                pb::OverrideScope::Conversation,
                "child",
                pb::OverrideState::Off,
            ),
        )
        .await
        .unwrap();
    assert_eq!(rule(h.client.clone()).await, Disabled);
    h.client
        .set_file_override(
            member(),
            set(
                pb::OverrideScope::Conversation,
                "child",
                pb::OverrideState::Clear,
            ),
        )
        .await
        .unwrap();
    assert_eq!(rule(h.client.clone()).await, Active);
    // An agent-level off is final.
    h.client
        .set_file_override(
            admin(),
            set(pb::OverrideScope::Agent, "a1", pb::OverrideState::Off),
        )
        .await
        .unwrap();
    assert_eq!(rule(h.client.clone()).await, Disabled);
    h.client
        .set_file_override(
            admin(),
            set(pb::OverrideScope::Agent, "a1", pb::OverrideState::Clear),
        )
        .await
        .unwrap();
    // A disabled package turns everything off, still listed.
    let package = |enabled| pb::SetPackageEnabledRequest {
        project_id: PROJECT.into(),
        package_key: PACKAGE.into(),
        enabled,
    };
    h.client
        .set_package_enabled(admin(), package(false))
        .await
        .unwrap();
    assert_eq!(
        decide(&h.client, member(), Some("grandchild")).await,
        (Disabled, vec![Disabled; 3])
    );
    h.client
        .set_package_enabled(admin(), package(true))
        .await
        .unwrap();
    assert_eq!(rule(h.client.clone()).await, Active);
}

async fn an_unknown_source_decides_not_visible(h: Harness) {
    assert_eq!(
        decide(&h.client, member(), None).await,
        (Hidden, vec![Hidden; 3])
    );
}

async fn a_call_without_a_valid_token_is_unauthenticated(h: Harness) {
    put_policy(&h.client, &read_all()).await;
    let expired = token_with(Claims {
        exp: 1_000_000,
        ..support::claims()
    });
    let forged = BearerToken::new(Some(format!("{}x", admin().expose().unwrap())));
    for token in [
        BearerToken::default(),
        expired,
        forged,
        BearerToken::new(Some("garbage".into())),
    ] {
        let evaluate = h
            .client
            .evaluate(token.clone(), batch_to_proto(&batch(), None))
            .await;
        assert_eq!(evaluate.unwrap_err(), PolicyError::Unauthenticated);
        let change = h
            .client
            .set_source_enabled(
                token.clone(),
                pb::SetSourceEnabledRequest {
                    source_id: SOURCE.into(),
                    enabled: false,
                },
            )
            .await;
        assert_eq!(change.unwrap_err(), PolicyError::Unauthenticated);
    }
    assert!(
        h.store.source(SOURCE).await.unwrap().unwrap().enabled,
        "nothing changed"
    );
}

async fn administrative_calls_need_an_administrator(h: Harness) {
    let denied = |result: Result<(), PolicyError>| {
        assert!(
            matches!(result, Err(PolicyError::PermissionDenied(_))),
            "{result:?}"
        )
    };
    let policy = pb::PutSourcePolicyRequest {
        source_id: SOURCE.into(),
        policy: Some(policy_to_proto(&read_all())),
    };
    denied(h.client.put_source_policy(member(), policy).await.map(drop));
    denied(
        h.client
            .get_source_policy(
                member(),
                pb::GetSourcePolicyRequest {
                    source_id: SOURCE.into(),
                },
            )
            .await
            .map(drop),
    );
    let grants = pb::PutRoleGrantsRequest {
        grantor: pb::GrantorKind::Administrator.into(),
        ..Default::default()
    };
    denied(h.client.put_role_grants(member(), grants).await.map(drop));
    let agent_override = pb::SetFileOverrideRequest {
        scope: pb::OverrideScope::Agent.into(),
        owner_id: "a1".into(),
        package_key: PACKAGE.into(),
        file_path: ".claude/rules/style.md".into(),
        state: pb::OverrideState::On.into(),
    };
    denied(
        h.client
            .set_file_override(member(), agent_override)
            .await
            .map(drop),
    );
    let other_project = pb::SetPackageEnabledRequest {
        project_id: "p2".into(),
        package_key: PACKAGE.into(),
        enabled: false,
    };
    denied(
        h.client
            .set_package_enabled(admin(), other_project)
            .await
            .map(drop),
    );
    let missing = h
        .client
        .get_source_policy(
            admin(),
            pb::GetSourcePolicyRequest {
                source_id: "ghost".into(),
            },
        )
        .await;
    assert_eq!(missing.unwrap_err(), PolicyError::NotFound("source".into()));
}

async fn bad_input_is_invalid_argument_naming_the_field_never_the_path(h: Harness) {
    let mut outside = batch_to_proto(&batch(), None);
    outside.files[1].path = "secret/rules/style.md".into();
    let mut no_category = batch_to_proto(&batch(), None);
    no_category.files[2].category = pb::Category::Unspecified.into();
    let mut no_scope = batch_to_proto(&batch(), None);
    no_scope.sources[0].scope = 0;
    let mut other_project = batch_to_proto(&batch(), None);
    other_project.project_id = String::new();
    let bad_policy = pb::PutSourcePolicyRequest {
        source_id: SOURCE.into(),
        policy: Some(policy_to_proto(&UriPolicy {
            paths: vec![PathRule {
                read: Some(true),
                floor: true,
                ..PathRule::new("x")
            }],
            ..read_all()
        })),
    };
    let cases = [
        (
            h.client.evaluate(member(), outside).await.map(drop),
            "files[1].path",
        ),
        (
            h.client.evaluate(member(), no_category).await.map(drop),
            "files[2].category",
        ),
        (
            h.client.evaluate(member(), no_scope).await.map(drop),
            "sources[0].scope",
        ),
        (
            h.client.evaluate(member(), other_project).await.map(drop),
            "project_id",
        ),
        (
            h.client
                .put_source_policy(admin(), bad_policy)
                .await
                .map(drop),
            "policy.paths[0].floor",
        ),
    ];
    for (result, expected) in cases {
        match result {
            Err(PolicyError::InvalidArgument { field, message }) => {
                assert_eq!(field, expected);
                assert!(!message.contains("secret"), "{message}");
            }
            other => panic!("{expected}: {other:?}"),
        }
    }
}

async fn a_hidden_decision_on_the_wire_carries_its_index_and_nothing_else(h: Harness) {
    let mut request = batch();
    request.files[1].path = ".claude/rules/zebra-secret-plan.md".into();
    let deny = UriPolicy {
        paths: vec![PathRule {
            read: Some(false),
            ..PathRule::new(".claude/rules/**")
        }],
        ..read_all()
    };
    put_policy(&h.client, &deny).await;
    let response = h
        .client
        .evaluate(member(), batch_to_proto(&request, None))
        .await
        .unwrap();
    assert_eq!(
        response.files[1],
        pb::Decision {
            index: 1,
            code: pb::DecisionCode::Hidden.into()
        }
    );
    let bytes = response.encode_to_vec();
    assert!(
        !bytes.windows(5).any(|w| w == b"zebra"),
        "the answer carries a denied name"
    );
}

async fn persisted_floors_survive_an_edit_and_read_back(h: Harness) {
    let floor = PathRule {
        read: Some(false),
        floor: true,
        ..PathRule::new("secret/**")
    };
    put_policy(
        &h.client,
        &UriPolicy {
            paths: vec![floor.clone()],
            ..read_all()
        },
    )
    .await;
    let edited = pb::PutSourcePolicyRequest {
        source_id: SOURCE.into(),
        policy: Some(policy_to_proto(&read_all())),
    };
    let stored = h
        .client
        .put_source_policy(admin(), edited)
        .await
        .unwrap()
        .policy
        .unwrap();
    assert_eq!(
        neuralis_policy::convert::policy_from_proto(stored).paths,
        vec![floor.clone()]
    );
    let read = h
        .client
        .get_source_policy(
            admin(),
            pb::GetSourcePolicyRequest {
                source_id: SOURCE.into(),
            },
        )
        .await
        .unwrap();
    assert!(read.enabled);
    assert_eq!(
        neuralis_policy::convert::policy_from_proto(read.policy.unwrap()).paths,
        vec![floor]
    );
}

/// A store that holds every snapshot read until the test lets it through.
struct PausedReads {
    inner: Arc<dyn AccessStore>,
    arrived: mpsc::UnboundedSender<()>,
    release: Semaphore,
}

#[async_trait]
impl AccessStore for PausedReads {
    async fn put_source_policy(
        &self,
        source_id: &str,
        policy: &UriPolicy,
    ) -> Result<UriPolicy, StoreError> {
        self.inner.put_source_policy(source_id, policy).await
    }
    async fn source(&self, source_id: &str) -> Result<Option<SourceRecord>, StoreError> {
        self.inner.source(source_id).await
    }
    async fn set_source_enabled(&self, source_id: &str, enabled: bool) -> Result<(), StoreError> {
        self.inner.set_source_enabled(source_id, enabled).await
    }
    async fn put_role_grants(&self, grants: &RoleGrants) -> Result<(), StoreError> {
        self.inner.put_role_grants(grants).await
    }
    async fn set_package_enabled(
        &self,
        project: &str,
        package_key: &str,
        enabled: bool,
    ) -> Result<(), StoreError> {
        self.inner
            .set_package_enabled(project, package_key, enabled)
            .await
    }
    async fn set_file_override(
        &self,
        target: &OverrideTarget,
        file: &FileRef,
        state: Option<bool>,
    ) -> Result<(), StoreError> {
        self.inner.set_file_override(target, file, state).await
    }
    async fn register_conversation(&self, record: &ConversationRecord) -> Result<(), StoreError> {
        self.inner.register_conversation(record).await
    }
    async fn snapshot(&self, query: &SnapshotQuery) -> Result<AccessSnapshot, StoreError> {
        let _ = self.arrived.send(());
        let permit = self
            .release
            .acquire()
            .await
            .map_err(|_| StoreError::Unavailable("closed".into()))?;
        permit.forget();
        self.inner.snapshot(query).await
    }
}

async fn a_request_in_flight_when_a_revocation_lands_honours_it(backend: Backend) {
    with_store(backend, |store, _| async move {
        store.put_source_policy(SOURCE, &read_all()).await.unwrap();
        let (arrived, mut arrivals) = mpsc::unbounded_channel();
        let paused = Arc::new(PausedReads {
            inner: store.clone(),
            arrived,
            release: Semaphore::new(0),
        });
        let shutdown = Shutdown::new();
        let client = support::serve_over(paused.clone(), &shutdown).await;
        // The request is verified, validated and on its way to the store...
        let in_flight = tokio::spawn({
            let client = client.clone();
            async move {
                client
                    .evaluate_batch(member(), None, &batch())
                    .await
                    .unwrap()
            }
        });
        arrivals.recv().await.unwrap();
        // ...when the source is switched off and committed.
        store.set_source_enabled(SOURCE, false).await.unwrap();
        paused.release.add_permits(1);
        let evaluation = in_flight.await.unwrap();
        assert_eq!(evaluation.packages[0].code, Hidden);
        assert!(evaluation.files.iter().all(|d| d.code == Hidden));
        shutdown.trigger();
    })
    .await
}

#[tokio::test]
async fn a_request_in_flight_when_a_revocation_lands_honours_it_embedded() {
    a_request_in_flight_when_a_revocation_lands_honours_it(Backend::Embedded).await
}

#[tokio::test]
async fn a_request_in_flight_when_a_revocation_lands_honours_it_postgres() {
    a_request_in_flight_when_a_revocation_lands_honours_it(Backend::Postgres).await
}

#[tokio::test]
async fn a_store_that_cannot_be_reached_is_unavailable_never_an_answer() {
    let shutdown = Shutdown::new();
    let store = neuralis_access_store::EmbeddedStore::open(
        &std::env::temp_dir().join(format!("policy-closed-{}.db", std::process::id())),
    )
    .await
    .unwrap();
    store.close().await;
    let client = support::serve_over(Arc::new(store), &shutdown).await;
    let result = client.evaluate_batch(member(), None, &batch()).await;
    assert!(
        matches!(result, Err(PolicyError::Unavailable(_))),
        "{result:?}"
    );
    shutdown.trigger();
}
