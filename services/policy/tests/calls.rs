//! Every call's contract over gRPC, on a real server bound to `127.0.0.1:0`: no valid
//! credential is UNAUTHENTICATED, administrative calls need an administrator of the
//! project, `Evaluate` answers services only, bad input is INVALID_ARGUMENT naming the
//! field, a denied name never reaches the wire, floors stay, and an unreachable store
//! is UNAVAILABLE. Store-backed scenarios run on both stores.

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;

use neuralis_access::{PathRule, UriPolicy};
use neuralis_host::Shutdown;
use neuralis_identity::Claims;
use neuralis_policy::convert::{batch_to_proto, policy_to_proto};
use neuralis_policy::{BearerToken, PolicyApi, PolicyError};
use neuralis_proto::common::v1 as common;
use neuralis_proto::policy::v1 as pb;
use prost::Message;
use support::{
    Harness, PACKAGE, SOURCE, admin, batch, caller_of, member, platform_admin, put_policy,
    read_all, service, token_with,
};

on_both_stores!(
    a_call_without_a_valid_token_is_unauthenticated,
    administrative_calls_need_an_administrator,
    bad_input_is_invalid_argument_naming_the_field_never_the_path,
    a_hidden_decision_on_the_wire_carries_its_index_and_nothing_else,
    persisted_floors_survive_an_edit_and_read_back,
    a_caller_token_cannot_call_evaluate,
    a_service_credential_cannot_call_caller_rpcs,
    a_non_administrator_is_permission_denied_not_unauthenticated,
    cross_project_administration_is_refused,
    a_member_of_another_project_cannot_set_overrides_in_a_conversation,
    role_grants_and_agent_overrides_need_a_platform_wide_administrator,
    a_reset_forgets_a_package_state_and_refuses_enabled_beside_it,
);

/// The batch on the wire as discovery sends it for the member.
fn member_batch() -> pb::EvaluateRequest {
    batch_to_proto(&batch(), None, &caller_of(&member()))
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
        let evaluate = h.client.evaluate(token.clone(), member_batch()).await;
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
        project_id: String::new(),
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
        reset: false,
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
                source_id: "p1/ghost".into(),
            },
        )
        .await;
    assert_eq!(missing.unwrap_err(), PolicyError::NotFound("source".into()));
}

async fn bad_input_is_invalid_argument_naming_the_field_never_the_path(h: Harness) {
    let mut outside = member_batch();
    outside.files[1].path = "secret/rules/style.md".into();
    let mut no_category = member_batch();
    no_category.files[2].category = common::Category::Unspecified.into();
    let mut no_scope = member_batch();
    no_scope.sources[0].scope = 0;
    let mut no_project = member_batch();
    no_project.project_id = String::new();
    let mut no_caller = member_batch();
    no_caller.caller = None;
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
            h.client.evaluate(service(), outside).await.map(drop),
            "files[1].path",
        ),
        (
            h.client.evaluate(service(), no_category).await.map(drop),
            "files[2].category",
        ),
        (
            h.client.evaluate(service(), no_scope).await.map(drop),
            "sources[0].scope",
        ),
        (
            h.client.evaluate(service(), no_project).await.map(drop),
            "project_id",
        ),
        (
            h.client.evaluate(service(), no_caller).await.map(drop),
            "caller",
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
        .evaluate(
            service(),
            batch_to_proto(&request, None, &caller_of(&member())),
        )
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
    let result = support::evaluate_as(&client, member(), None, &batch()).await;
    assert!(
        matches!(result, Err(PolicyError::Unavailable(_))),
        "{result:?}"
    );
    shutdown.trigger();
}

fn permission_denied<T: std::fmt::Debug>(result: Result<T, PolicyError>, what: &str) {
    assert!(
        matches!(result, Err(PolicyError::PermissionDenied(_))),
        "{what}: {result:?}"
    );
}

/// A token of `role` bound to project `project`.
fn of_project(role: &str, project: &str) -> BearerToken {
    token_with(Claims {
        role: role.into(),
        project: Some(project.into()),
        ..support::claims()
    })
}

async fn a_caller_token_cannot_call_evaluate(h: Harness) {
    for token in [member(), admin(), platform_admin()] {
        permission_denied(h.client.evaluate(token, member_batch()).await, "evaluate");
    }
    assert!(h.client.evaluate(service(), member_batch()).await.is_ok());
}

async fn a_service_credential_cannot_call_caller_rpcs(h: Harness) {
    let policy = pb::PutSourcePolicyRequest {
        source_id: SOURCE.into(),
        policy: Some(policy_to_proto(&read_all())),
    };
    permission_denied(
        h.client.put_source_policy(service(), policy).await,
        "put source policy",
    );
    let conversation = pb::RegisterConversationRequest {
        conversation_id: "c1".into(),
        project_id: support::PROJECT.into(),
        parent_conversation_id: String::new(),
    };
    permission_denied(
        h.client
            .register_conversation(service(), conversation)
            .await,
        "register conversation",
    );
}

async fn a_non_administrator_is_permission_denied_not_unauthenticated(h: Harness) {
    let switch = pb::SetSourceEnabledRequest {
        source_id: SOURCE.into(),
        enabled: false,
    };
    let result = h.client.set_source_enabled(member(), switch).await;
    permission_denied(result, "a verified member switching a source");
}

async fn cross_project_administration_is_refused(h: Harness) {
    put_policy(&h.client, &read_all()).await;
    let outsider = of_project("owner", "other");
    let floor = UriPolicy {
        paths: vec![PathRule {
            read: Some(false),
            floor: true,
            ..PathRule::new("**")
        }],
        ..read_all()
    };
    let put = pb::PutSourcePolicyRequest {
        source_id: SOURCE.into(),
        policy: Some(policy_to_proto(&floor)),
    };
    permission_denied(
        h.client.put_source_policy(outsider.clone(), put).await,
        "put",
    );
    let switch = pb::SetSourceEnabledRequest {
        source_id: SOURCE.into(),
        enabled: false,
    };
    permission_denied(
        h.client.set_source_enabled(outsider.clone(), switch).await,
        "switch",
    );
    let read = pb::GetSourcePolicyRequest {
        source_id: SOURCE.into(),
    };
    permission_denied(
        h.client.get_source_policy(outsider.clone(), read).await,
        "read",
    );
    let package = pb::SetPackageEnabledRequest {
        project_id: support::PROJECT.into(),
        package_key: PACKAGE.into(),
        enabled: false,
        reset: false,
    };
    permission_denied(
        h.client.set_package_enabled(outsider, package).await,
        "package",
    );
    let stored = h.store.source(SOURCE).await.unwrap().unwrap();
    assert!(stored.enabled, "the switch is unchanged");
    assert!(
        stored.policy.unwrap().paths.is_empty(),
        "no floor reached the source of another project"
    );
}

async fn a_member_of_another_project_cannot_set_overrides_in_a_conversation(h: Harness) {
    let register = pb::RegisterConversationRequest {
        conversation_id: "c1".into(),
        project_id: support::PROJECT.into(),
        parent_conversation_id: String::new(),
    };
    h.client
        .register_conversation(member(), register.clone())
        .await
        .unwrap();
    permission_denied(
        h.client
            .register_conversation(
                of_project("member", "other"),
                pb::RegisterConversationRequest {
                    conversation_id: "c2".into(),
                    ..register
                },
            )
            .await,
        "registering in another project",
    );
    let toggle_in = |project: &str, conversation: &str| pb::SetFileOverrideRequest {
        scope: pb::OverrideScope::Conversation.into(),
        owner_id: conversation.into(),
        package_key: PACKAGE.into(),
        file_path: ".claude/rules/style.md".into(),
        state: pb::OverrideState::Off.into(),
        project_id: project.into(),
    };
    let toggle = |conversation: &str| toggle_in(support::PROJECT, conversation);
    let foreign = h
        .client
        .set_file_override(of_project("member", "other"), toggle("c1"))
        .await;
    let unknown = h
        .client
        .set_file_override(of_project("member", "other"), toggle("never-registered"))
        .await;
    // The id of this project's conversation, named in the other member's own project,
    // is a conversation that does not exist there.
    let same_id_own_project = h
        .client
        .set_file_override(of_project("member", "other"), toggle_in("other", "c1"))
        .await;
    assert_eq!(foreign, unknown, "unknown and foreign read alike");
    assert_eq!(foreign, same_id_own_project, "ids are per project");
    permission_denied(foreign, "a member of another project");
    let bound_elsewhere = token_with(Claims {
        conversation: Some("c9".into()),
        ..support::claims()
    });
    permission_denied(
        h.client
            .set_file_override(bound_elsewhere, toggle("c1"))
            .await,
        "a token bound to another conversation",
    );
    h.client
        .set_file_override(member(), toggle("c1"))
        .await
        .unwrap();
}

async fn role_grants_and_agent_overrides_need_a_platform_wide_administrator(h: Harness) {
    let grants = || pb::PutRoleGrantsRequest {
        grantor: pb::GrantorKind::Administrator.into(),
        package_id: String::new(),
        grants: vec![pb::RoleGrant {
            role: "member".into(),
            features: vec!["beta".into()],
            revoked: vec![],
        }],
        project_id: String::new(),
    };
    let agent_override = || pb::SetFileOverrideRequest {
        scope: pb::OverrideScope::Agent.into(),
        owner_id: "a1".into(),
        package_key: PACKAGE.into(),
        file_path: ".claude/rules/style.md".into(),
        state: pb::OverrideState::On.into(),
        project_id: String::new(),
    };
    permission_denied(
        h.client.put_role_grants(admin(), grants()).await,
        "grants by a project admin",
    );
    permission_denied(
        h.client.set_file_override(admin(), agent_override()).await,
        "agent override by a project admin",
    );
    h.client
        .put_role_grants(platform_admin(), grants())
        .await
        .unwrap();
    h.client
        .set_file_override(platform_admin(), agent_override())
        .await
        .unwrap();
}

/// The package states stored in the project.
async fn package_states(h: &Harness) -> std::collections::HashMap<String, bool> {
    let query = neuralis_access_store::SnapshotQuery {
        project: support::PROJECT.into(),
        role: "member".into(),
        agent: None,
        conversation: None,
        source_ids: Vec::new(),
    };
    h.store.snapshot(&query).await.unwrap().package_enabled
}

async fn a_reset_forgets_a_package_state_and_refuses_enabled_beside_it(h: Harness) {
    let request = |enabled, reset| pb::SetPackageEnabledRequest {
        project_id: support::PROJECT.into(),
        package_key: PACKAGE.into(),
        enabled,
        reset,
    };
    h.client
        .set_package_enabled(admin(), request(false, false))
        .await
        .unwrap();
    assert_eq!(package_states(&h).await.get(PACKAGE), Some(&false));
    match h
        .client
        .set_package_enabled(admin(), request(true, true))
        .await
    {
        Err(PolicyError::InvalidArgument { field, .. }) => assert_eq!(field, "enabled"),
        other => panic!("{other:?}"),
    }
    assert_eq!(package_states(&h).await.get(PACKAGE), Some(&false));
    // The attacker's resets: a member of the project, and another project's
    // administrator, forget nothing.
    let outsider = of_project("owner", "other");
    for (caller, who) in [
        (member(), "a member"),
        (outsider, "another project's admin"),
    ] {
        permission_denied(
            h.client
                .set_package_enabled(caller, request(false, true))
                .await,
            who,
        );
        assert_eq!(package_states(&h).await.get(PACKAGE), Some(&false), "{who}");
    }
    h.client
        .set_package_enabled(admin(), request(false, true))
        .await
        .unwrap();
    assert_eq!(package_states(&h).await.get(PACKAGE), None);
}
