//! `ExplainAccess` (issue 30 item 1): an administrator of the project (or a platform-wide
//! one, for any project) asks why a file is decided as it is for a described caller, and
//! gets the state Evaluate gives that caller with the steps that led to it. A member
//! asking is refused PERMISSION_DENIED, and so is an administrator of another project.
#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::{DecisionCode, EvaluationRequest, PathRule};
use neuralis_identity::Claims;
use neuralis_policy::convert::batch_to_proto;
use neuralis_policy::{BearerToken, PolicyApi, PolicyError};
use neuralis_proto::policy::v1 as pb;
use support::{
    Harness, PROJECT, SOURCE, admin, batch, caller_of, evaluate_as, member, platform_admin,
    put_policy, read_all, token_with,
};

on_both_stores!(
    the_explanation_gives_evaluates_state_and_names_the_rule_that_decided,
    a_disabled_source_is_named_as_the_deciding_step,
    only_administrators_of_the_project_may_ask_for_an_explanation,
    an_installed_packages_attached_floor_and_its_default_role_grant_are_named,
    a_caller_token_describes_the_caller_its_claims_name,
    a_caller_token_that_does_not_verify_or_is_of_another_project_is_refused_naming_the_field,
    an_administrator_cannot_read_another_projects_source_by_naming_it_in_the_header,
);

/// The explanation of `batch().files[file]` for a member of the project.
fn explain_request(request: &EvaluationRequest, file: usize) -> pb::ExplainAccessRequest {
    let wire = batch_to_proto(request, None, &caller_of(&member()));
    let caller = pb::CallerScope {
        subject: String::new(),
        ..wire.caller.unwrap()
    };
    pb::ExplainAccessRequest {
        project_id: wire.project_id,
        conversation_id: String::new(),
        caller: Some(caller),
        source: wire.sources.into_iter().next(),
        package: wire.packages.into_iter().next(),
        file: wire.files.into_iter().nth(file),
        caller_token: String::new(),
    }
}

/// [`explain_request`] for the caller `token` describes instead of a described caller.
fn explain_token_request(
    request: &EvaluationRequest,
    file: usize,
    token: &BearerToken,
) -> pb::ExplainAccessRequest {
    pb::ExplainAccessRequest {
        caller: None,
        caller_token: token.expose().unwrap().to_owned(),
        ..explain_request(request, file)
    }
}

fn deciding(response: &pb::ExplainAccessResponse) -> &pb::ExplainStep {
    let mut deciding = response.steps.iter().filter(|step| step.deciding);
    let step = deciding.next().expect("one deciding step");
    assert!(deciding.next().is_none(), "exactly one deciding step");
    step
}

fn code(response: &pb::ExplainAccessResponse) -> pb::DecisionCode {
    pb::DecisionCode::try_from(response.code).unwrap()
}

fn wire_code(code: DecisionCode) -> pb::DecisionCode {
    match code {
        DecisionCode::Hidden => pb::DecisionCode::Hidden,
        DecisionCode::VisibleActive => pb::DecisionCode::VisibleActive,
        DecisionCode::VisibleOptIn => pb::DecisionCode::VisibleOptIn,
        DecisionCode::VisibleDisabled => pb::DecisionCode::VisibleDisabled,
        DecisionCode::VisibleManual => pb::DecisionCode::VisibleManual,
    }
}

async fn the_explanation_gives_evaluates_state_and_names_the_rule_that_decided(h: Harness) {
    let mut policy = read_all();
    policy.paths = vec![PathRule {
        read: Some(false),
        roles: vec!["member".into()],
        ..PathRule::new(".claude/docs/**")
    }];
    put_policy(&h.client, &policy).await;
    let request = batch();
    let evaluated = evaluate_as(&h.client, member(), None, &request)
        .await
        .unwrap();
    for (file, decision) in evaluated.files.iter().enumerate() {
        let explained = h
            .client
            .explain_access(admin(), explain_request(&request, file))
            .await
            .unwrap();
        assert_eq!(code(&explained), wire_code(decision.code), "file {file}");
        deciding(&explained);
    }
    let explained = h
        .client
        .explain_access(admin(), explain_request(&request, 2))
        .await
        .unwrap();
    let step = deciding(&explained);
    assert_eq!(step.kind(), pb::ExplainStepKind::UriRule);
    assert_eq!(step.effect(), pb::ExplainEffect::Hides);
    assert_eq!(
        (step.rule_index, step.rule_pattern.as_str()),
        (Some(0), ".claude/docs/**")
    );
}

async fn a_disabled_source_is_named_as_the_deciding_step(h: Harness) {
    put_policy(&h.client, &read_all()).await;
    let switch = pb::SetSourceEnabledRequest {
        source_id: SOURCE.into(),
        enabled: false,
    };
    h.client.set_source_enabled(admin(), switch).await.unwrap();
    let explained = h
        .client
        .explain_access(admin(), explain_request(&batch(), 0))
        .await
        .unwrap();
    assert_eq!(code(&explained), pb::DecisionCode::Hidden);
    let step = deciding(&explained);
    assert_eq!(step.kind(), pb::ExplainStepKind::SourceSwitch);
    assert!(step.matched.contains("is disabled"), "{step:?}");
}

fn of_project(role: &str, project: &str) -> BearerToken {
    token_with(Claims {
        role: role.into(),
        project: Some(project.into()),
        ..support::claims()
    })
}

async fn only_administrators_of_the_project_may_ask_for_an_explanation(h: Harness) {
    put_policy(&h.client, &read_all()).await;
    let request = explain_request(&batch(), 0);
    for (who, token) in [
        ("a member", member()),
        (
            "an administrator of another project",
            of_project("admin", "p2"),
        ),
    ] {
        let refused = h.client.explain_access(token, request.clone()).await;
        assert!(
            matches!(refused, Err(PolicyError::PermissionDenied(_))),
            "{who}: {refused:?}"
        );
    }
    for token in [admin(), platform_admin(), of_project("admin", PROJECT)] {
        h.client
            .explain_access(token, request.clone())
            .await
            .unwrap();
    }
}

/// Installed package `acme`: its `defaultRoleGrants` open its `accessFeature` to members,
/// its attached floor hides `skills/secret/**`.
async fn an_installed_packages_attached_floor_and_its_default_role_grant_are_named(h: Harness) {
    let floor = PathRule {
        read: Some(false),
        floor: true,
        ..PathRule::new("skills/secret/**")
    };
    let baseline = neuralis_access::UriPolicy {
        paths: vec![floor],
        ..read_all()
    };
    let attach = pb::AttachPackagesRequest {
        packages: vec![pb::PackageAttachment {
            package_id: "acme".into(),
            default_role_grants: vec![pb::RoleGrant {
                role: "member".into(),
                features: vec!["acme.access".into()],
                revoked: vec![],
            }],
            baselines: vec![pb::ScopeBaseline {
                scope: "packages://acme".into(),
                policy: Some(neuralis_policy::convert::policy_to_proto(&baseline)),
            }],
        }],
        complete: false,
    };
    h.client
        .attach_packages(support::service(), attach)
        .await
        .unwrap();
    let mut request = batch();
    request.sources.clear();
    request.packages[0] = neuralis_access::PackageCandidate {
        key: "acme".into(),
        origin: neuralis_access::Origin::Installed,
        root: String::new(),
        access_feature: Some("acme.access".into()),
        private_owner: None,
        found_in: None,
    };
    request.files[0].path = "skills/secret/SKILL.md".into();
    let explained = h
        .client
        .explain_access(admin(), explain_request(&request, 0))
        .await
        .unwrap();
    assert_eq!(code(&explained), pb::DecisionCode::Hidden);
    let step = deciding(&explained);
    assert_eq!(step.kind(), pb::ExplainStepKind::Floor);
    assert_eq!(
        (step.rule_index, step.rule_pattern.as_str()),
        (Some(0), "skills/secret/**")
    );
    let grant = explained
        .steps
        .iter()
        .find(|step| step.kind() == pb::ExplainStepKind::RoleGrant)
        .unwrap();
    assert!(
        grant.matched.contains("granted to role `member`"),
        "{grant:?}"
    );
    let evaluated = evaluate_as(&h.client, member(), None, &request)
        .await
        .unwrap();
    assert_eq!(evaluated.files[0].code, DecisionCode::Hidden);
}

async fn a_caller_token_describes_the_caller_its_claims_name(h: Harness) {
    let mut policy = read_all();
    policy.paths = vec![PathRule {
        read: Some(false),
        roles: vec!["member".into()],
        ..PathRule::new(".claude/docs/**")
    }];
    put_policy(&h.client, &policy).await;
    let request = batch();
    // The doc is hidden from a member's token and shown to an administrator's.
    for (token, expected) in [
        (member(), pb::DecisionCode::Hidden),
        (admin(), pb::DecisionCode::VisibleManual),
    ] {
        let explained = h
            .client
            .explain_access(admin(), explain_token_request(&request, 2, &token))
            .await
            .unwrap();
        assert_eq!(code(&explained), expected);
    }
    let hidden = h
        .client
        .explain_access(admin(), explain_token_request(&request, 2, &member()))
        .await
        .unwrap();
    assert_eq!(deciding(&hidden).kind(), pb::ExplainStepKind::UriRule);
}

async fn a_caller_token_that_does_not_verify_or_is_of_another_project_is_refused_naming_the_field(
    h: Harness,
) {
    put_policy(&h.client, &read_all()).await;
    let request = batch();
    let expired = token_with(Claims {
        exp: 1,
        ..support::claims()
    });
    let forged = BearerToken::new(Some("eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl".into()));
    for (what, token) in [
        ("expired", expired),
        ("forged", forged),
        ("of another project", of_project("member", "p2")),
    ] {
        let refused = h
            .client
            .explain_access(admin(), explain_token_request(&request, 0, &token))
            .await;
        match refused {
            Err(PolicyError::InvalidArgument { field, .. }) => {
                assert_eq!(field, "caller_token", "{what}")
            }
            other => panic!("{what}: expected INVALID_ARGUMENT, got {other:?}"),
        }
    }
    // Both a described caller and a token: one or the other.
    let both = pb::ExplainAccessRequest {
        caller_token: member().expose().unwrap().to_owned(),
        ..explain_request(&request, 0)
    };
    let refused = h.client.explain_access(admin(), both).await;
    assert!(
        matches!(&refused, Err(PolicyError::InvalidArgument { field, .. }) if field == "caller_token"),
        "{refused:?}"
    );
}

/// The attacker: an administrator of project p2 explains "in p2" with a header naming
/// p1's source (scope and owner made p2's). Its switch and its rules' patterns are p1's
/// stored state, which no p2 token may read (GetSourcePolicy refuses it): refused,
/// naming the field, before any read; so is a platform-wide administrator's request that
/// mixes two projects. The honest request for p1 still explains.
async fn an_administrator_cannot_read_another_projects_source_by_naming_it_in_the_header(
    h: Harness,
) {
    let mut policy = read_all();
    policy.paths = vec![PathRule {
        read: Some(false),
        ..PathRule::new(".claude/docs/**")
    }];
    put_policy(&h.client, &policy).await;
    let mut request = explain_request(&batch(), 2);
    request.project_id = "p2".into();
    if let Some(caller) = request.caller.as_mut() {
        caller.project_id = "p2".into();
    }
    if let Some(source) = request.source.as_mut() {
        source.owner = "p2".into();
    }
    for token in [of_project("admin", "p2"), platform_admin()] {
        let refused = h.client.explain_access(token, request.clone()).await;
        match refused {
            Err(PolicyError::InvalidArgument { field, message }) => {
                assert_eq!(field, "source.source_id");
                assert!(!message.contains(".claude") && !message.contains(SOURCE));
            }
            other => panic!("explained another project's source: {other:?}"),
        }
    }
    h.client
        .explain_access(admin(), explain_request(&batch(), 2))
        .await
        .unwrap();
}
