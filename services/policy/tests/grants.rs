//! Role grants per project (issue 9, "project binding everywhere"): an administrator of
//! a project sets that project's grants, never another's; grants for every project need
//! a platform-wide administrator; a role's features in a project are the project's
//! grants and those for every project.

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::DecisionCode;
use neuralis_identity::Claims;
use neuralis_policy::{BearerToken, PolicyApi, PolicyError};
use neuralis_proto::policy::v1 as pb;
use support::{
    Harness, PROJECT, admin, batch, caller_of, member, platform_admin, put_policy, read_all,
    service, token_with,
};

on_both_stores!(a_project_administrator_sets_role_grants_for_its_project_only);

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

async fn a_project_administrator_sets_role_grants_for_its_project_only(h: Harness) {
    put_policy(&h.client, &read_all()).await;
    let grants = |project: &str, features: &[&str]| pb::PutRoleGrantsRequest {
        grantor: pb::GrantorKind::Administrator.into(),
        package_id: String::new(),
        grants: vec![pb::RoleGrant {
            role: "member".into(),
            features: features.iter().map(|f| f.to_string()).collect(),
            revoked: vec![],
        }],
        project_id: project.into(),
    };
    permission_denied(
        h.client
            .put_role_grants(admin(), grants("other", &["review.use"]))
            .await,
        "grants in another project",
    );
    permission_denied(
        h.client
            .put_role_grants(member(), grants(PROJECT, &[]))
            .await,
        "grants by a member",
    );
    h.client
        .put_role_grants(admin(), grants(PROJECT, &["review.use"]))
        .await
        .unwrap();
    let gated = |project: &str| {
        let mut request = batch();
        request.project = project.into();
        request.sources[0].scope.owner = project.into();
        request.files[0].required_features = vec!["review.use".into()];
        request
    };
    let skill = |project: &'static str, token: BearerToken| {
        let client = h.client.clone();
        async move {
            let caller = caller_of(&token);
            let evaluated = client
                .evaluate_batch(service(), &caller, None, &gated(project))
                .await
                .unwrap();
            evaluated.files[0].code
        }
    };
    assert_eq!(
        skill(PROJECT, member()).await,
        DecisionCode::VisibleActive,
        "granted in its project"
    );
    // The same role in another project holds nothing of p1's grants.
    assert_eq!(
        skill("p2", of_project("member", "p2")).await,
        DecisionCode::Hidden,
        "not granted in another project"
    );
    // A platform-wide grant adds to the project's, in every project.
    h.client
        .put_role_grants(platform_admin(), grants("", &["review.use"]))
        .await
        .unwrap();
    assert_eq!(
        skill("p2", of_project("member", "p2")).await,
        DecisionCode::VisibleActive
    );
    h.client
        .put_role_grants(admin(), grants(PROJECT, &[]))
        .await
        .unwrap();
    assert_eq!(
        skill(PROJECT, member()).await,
        DecisionCode::VisibleActive,
        "the grant for every project still holds"
    );
}
