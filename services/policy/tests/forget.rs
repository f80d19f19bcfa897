//! `ForgetSource` over gRPC (DESIGN.md section 5, "deleting a source deletes its access
//! state"): sync forgets a source before it deletes it, so a source recreated later
//! starts with no policy, no floor and no state. Services only: a caller token is
//! refused, whatever its role.

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::{DecisionCode, PathRule, UriPolicy};
use neuralis_access_store::SnapshotQuery;
use neuralis_policy::convert::policy_to_proto;
use neuralis_policy::{BearerToken, PolicyApi, PolicyError};
use neuralis_proto::policy::v1 as pb;
use support::{Harness, PROJECT, SOURCE, admin, member, platform_admin, read_all, service};

on_both_stores!(
    a_forgotten_source_has_no_policy_and_its_package_states_are_gone_while_another_sources_stay,
    a_recreated_source_contributes_nothing_until_its_policy_is_put,
    forgetting_a_source_is_for_services_only,
    forgetting_an_unknown_source_succeeds_and_an_id_naming_no_source_is_invalid,
);

const OTHER_SOURCE: &str = "p1/other";

/// A package key under a source, as discovery keys source packages.
fn key_of(source: &str) -> String {
    format!("{source}/.claude")
}

fn with_floor() -> UriPolicy {
    UriPolicy {
        paths: vec![PathRule {
            read: Some(false),
            floor: true,
            ..PathRule::new("secret/**")
        }],
        ..read_all()
    }
}

async fn put(h: &Harness, source: &str, policy: &UriPolicy) {
    let request = pb::PutSourcePolicyRequest {
        source_id: source.into(),
        policy: Some(policy_to_proto(policy)),
    };
    h.client.put_source_policy(admin(), request).await.unwrap();
}

async fn switch_package_off(h: &Harness, source: &str) {
    let request = pb::SetPackageEnabledRequest {
        project_id: PROJECT.into(),
        package_key: key_of(source),
        enabled: false,
        reset: false,
    };
    h.client
        .set_package_enabled(admin(), request)
        .await
        .unwrap();
}

async fn forget(h: &Harness, token: BearerToken, source: &str) -> Result<(), PolicyError> {
    let request = pb::ForgetSourceRequest {
        source_id: source.into(),
    };
    h.client.forget_source(token, request).await.map(|_| ())
}

async fn get_policy(h: &Harness, source: &str) -> Result<pb::GetSourcePolicyResponse, PolicyError> {
    let request = pb::GetSourcePolicyRequest {
        source_id: source.into(),
    };
    h.client.get_source_policy(admin(), request).await
}

/// Whether the package of `source` is switched on in the project (no state: on).
async fn package_enabled(h: &Harness, source: &str) -> bool {
    let query = SnapshotQuery {
        project: PROJECT.into(),
        role: "member".into(),
        agent: None,
        conversation: None,
        source_ids: Vec::new(),
    };
    h.store
        .snapshot(&query)
        .await
        .unwrap()
        .package_enabled(&key_of(source))
}

async fn a_forgotten_source_has_no_policy_and_its_package_states_are_gone_while_another_sources_stay(
    h: Harness,
) {
    for source in [SOURCE, OTHER_SOURCE] {
        put(&h, source, &with_floor()).await;
        switch_package_off(&h, source).await;
    }
    forget(&h, service(), SOURCE).await.unwrap();
    assert_eq!(
        get_policy(&h, SOURCE).await.unwrap_err(),
        PolicyError::NotFound("source".into()),
        "no policy, no floor, no switch"
    );
    assert!(
        package_enabled(&h, SOURCE).await,
        "its package state is gone"
    );
    let kept = get_policy(&h, OTHER_SOURCE).await.unwrap();
    assert_eq!(kept.policy, Some(policy_to_proto(&with_floor())));
    assert!(
        !package_enabled(&h, OTHER_SOURCE).await,
        "another's survives"
    );
}

async fn a_recreated_source_contributes_nothing_until_its_policy_is_put(h: Harness) {
    put(&h, SOURCE, &read_all()).await;
    let (package, _) = support::decide(&h.client, member(), None).await;
    assert_eq!(package, DecisionCode::VisibleActive);
    forget(&h, service(), SOURCE).await.unwrap();
    let (package, files) = support::decide(&h.client, member(), None).await;
    assert_eq!(package, DecisionCode::Hidden);
    assert!(files.iter().all(|code| *code == DecisionCode::Hidden));
}

async fn forgetting_a_source_is_for_services_only(h: Harness) {
    put(&h, SOURCE, &with_floor()).await;
    for token in [member(), admin(), platform_admin()] {
        let refused = forget(&h, token, SOURCE).await;
        assert!(
            matches!(refused, Err(PolicyError::PermissionDenied(_))),
            "a caller token: {refused:?}"
        );
    }
    let anonymous = forget(&h, BearerToken::default(), SOURCE).await;
    assert_eq!(anonymous, Err(PolicyError::Unauthenticated));
    let kept = get_policy(&h, SOURCE).await.unwrap();
    assert_eq!(kept.policy, Some(policy_to_proto(&with_floor())));
}

async fn forgetting_an_unknown_source_succeeds_and_an_id_naming_no_source_is_invalid(h: Harness) {
    forget(&h, service(), "p1/never-created").await.unwrap();
    forget(&h, service(), SOURCE).await.unwrap();
    forget(&h, service(), SOURCE).await.unwrap();
    // A bare project would reach the keys of every source of the project.
    for id in ["", "p1", "p1/", "/repo"] {
        let refused = forget(&h, service(), id).await;
        assert!(
            matches!(&refused, Err(PolicyError::InvalidArgument { field, .. }) if field == "source_id"),
            "{id:?}: {refused:?}"
        );
    }
}
