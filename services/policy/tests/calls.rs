//! Every call's contract over gRPC, on a real server bound to `127.0.0.1:0`: no valid
//! token is UNAUTHENTICATED, administrative calls need an administrator, bad input is
//! INVALID_ARGUMENT naming the field, a denied name never reaches the wire, floors stay,
//! and an unreachable store is UNAVAILABLE. Store-backed scenarios run on both stores.

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;

use neuralis_access::{PathRule, UriPolicy};
use neuralis_host::Shutdown;
use neuralis_identity::Claims;
use neuralis_policy::convert::{batch_to_proto, policy_to_proto};
use neuralis_policy::{BearerToken, PolicyApi, PolicyError};
use neuralis_proto::policy::v1 as pb;
use prost::Message;
use support::{Harness, PACKAGE, SOURCE, admin, batch, member, put_policy, read_all, token_with};

on_both_stores!(
    a_call_without_a_valid_token_is_unauthenticated,
    administrative_calls_need_an_administrator,
    bad_input_is_invalid_argument_naming_the_field_never_the_path,
    a_hidden_decision_on_the_wire_carries_its_index_and_nothing_else,
    persisted_floors_survive_an_edit_and_read_back,
);

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
