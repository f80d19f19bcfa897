//! Changes take effect at once, over gRPC, on a real server bound to `127.0.0.1:0`,
//! through the gRPC client; every scenario runs on the embedded store and on PostgreSQL.
//!
//! Seed 000: "Every request re-reads the source's persisted configuration ... so a
//! revoked permission, a disabled source or a changed role takes effect on the next
//! request — including one already in flight when the change lands."

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;

use neuralis_access::{DecisionCode, PathRule, UriPolicy};
use neuralis_access_store::testing::with_store;
use neuralis_host::Shutdown;
use neuralis_identity::Claims;
use neuralis_policy::{PolicyApi, PolicyGrpcClient};
use neuralis_proto::policy::v1 as pb;
use support::paused::PausedReads;
use support::{
    Backend, Harness, PACKAGE, PROJECT, SOURCE, admin, batch, decide, member, put_policy, read_all,
    token_with,
};
use tokio::sync::{Semaphore, mpsc};

use DecisionCode::{
    Hidden, VisibleActive as Active, VisibleDisabled as Disabled, VisibleManual as Manual,
    VisibleOptIn as OptIn,
};

on_both_stores!(
    a_change_committed_between_two_evaluate_calls_is_honoured_by_the_second,
    a_revoked_role_grant_takes_effect_at_once,
    a_disabled_source_takes_effect_at_once,
    a_new_floor_takes_effect_at_once_and_no_override_lifts_it,
    package_agent_and_conversation_switches_follow_the_precedence_along_a_delegate_chain,
    an_unknown_source_decides_not_visible,
);

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
            revoked: vec![],
        }],
        project_id: String::new(),
    };
    h.client
        .put_role_grants(support::platform_admin(), grants(&["review.use"]))
        .await
        .unwrap();
    let mut request = batch();
    request.files[0].required_features = vec!["review.use".into()];
    let skill = |client: PolicyGrpcClient, request: neuralis_access::EvaluationRequest| async move {
        client
            .evaluate_batch(
                support::service(),
                &support::caller_of(&member()),
                None,
                &request,
            )
            .await
            .unwrap()
            .files[0]
            .code
    };
    assert_eq!(skill(h.client.clone(), request.clone()).await, Active);
    h.client
        .put_role_grants(support::platform_admin(), grants(&[]))
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
            .evaluate_batch(
                support::service(),
                &support::caller_of(&holder),
                None,
                &request
            )
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
            project_id: PROJECT.into(),
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
            support::platform_admin(),
            set(pb::OverrideScope::Agent, "a1", pb::OverrideState::Off),
        )
        .await
        .unwrap();
    assert_eq!(rule(h.client.clone()).await, Disabled);
    h.client
        .set_file_override(
            support::platform_admin(),
            set(pb::OverrideScope::Agent, "a1", pb::OverrideState::Clear),
        )
        .await
        .unwrap();
    // A disabled package turns everything off, still listed.
    let package = |enabled| pb::SetPackageEnabledRequest {
        project_id: PROJECT.into(),
        package_key: PACKAGE.into(),
        enabled,
        reset: false,
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
                    .evaluate_batch(
                        support::service(),
                        &support::caller_of(&member()),
                        None,
                        &batch(),
                    )
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
