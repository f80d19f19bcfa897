//! Manifest access at attach (issue 10 item 3; seed 002 "requires", "uriPolicies"),
//! through the policy service on both stores: "a package gated by accessFeature is
//! invisible to every role until an administrator copies grants by hand" no more; "an
//! administrator must still be able to revoke a default grant"; a floor is "a denial
//! that no later override, admin edit, or policy-route call can remove", and it is shown
//! where an administrator reads the policy.

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::{
    DecisionCode, EvaluationRequest, Origin, PackageCandidate, PathRule, UriPolicy,
};
use neuralis_policy::convert::{policy_from_proto, policy_to_proto};
use neuralis_policy::{BearerToken, PolicyApi, PolicyError};
use neuralis_proto::policy::v1 as pb;
use support::{
    Harness, admin, batch, evaluate_as, member, platform_admin, read_all, service, token,
};

on_both_stores!(
    a_default_role_grant_opens_an_access_feature_until_an_administrator_revokes_it,
    an_attached_floor_cannot_be_loosened_and_is_shown_to_the_administrator,
    only_services_attach_and_only_platform_administrators_read_an_installed_scope,
    a_removed_package_no_longer_grants_by_default_and_an_administrator_grant_stays,
    a_data_baseline_denying_read_hides_the_data_source_file_under_that_zone,
);

const SCOPE: &str = "packages://acme";

fn floor(pattern: &str) -> PathRule {
    PathRule {
        read: Some(false),
        floor: true,
        ..PathRule::new(pattern)
    }
}

fn attach_request() -> pb::AttachPackagesRequest {
    let baseline = UriPolicy {
        paths: vec![floor("skills/secret/**")],
        ..read_all()
    };
    pb::AttachPackagesRequest {
        packages: vec![pb::PackageAttachment {
            package_id: "acme".into(),
            default_role_grants: vec![pb::RoleGrant {
                role: "member".into(),
                features: vec!["acme.access".into()],
                revoked: vec![],
            }],
            baselines: vec![pb::ScopeBaseline {
                scope: SCOPE.into(),
                policy: Some(policy_to_proto(&baseline)),
            }],
        }],
        complete: false,
    }
}

/// Installed package `acme`, gated by `acme.access`, with two skills.
fn installed() -> EvaluationRequest {
    let mut request = batch();
    request.sources.clear();
    request.packages = vec![PackageCandidate {
        key: "acme".into(),
        origin: Origin::Installed,
        root: String::new(),
        access_feature: Some("acme.access".into()),
        private_owner: None,
        found_in: None,
    }];
    request.files.truncate(2);
    request.files[0].path = "skills/open/SKILL.md".into();
    request.files[1].path = "skills/secret/SKILL.md".into();
    request.files[1].category = neuralis_layout::Category::Skill;
    request.files[1].default_enabled = true;
    request
}

async fn codes(h: &Harness, token: BearerToken) -> (DecisionCode, Vec<DecisionCode>) {
    let evaluation = evaluate_as(&h.client, token, None, &installed())
        .await
        .unwrap();
    (
        evaluation.packages[0].code,
        evaluation.files.iter().map(|d| d.code).collect(),
    )
}

use DecisionCode::{Hidden, VisibleActive as Active};

async fn a_default_role_grant_opens_an_access_feature_until_an_administrator_revokes_it(
    h: Harness,
) {
    assert_eq!(codes(&h, member()).await.0, Hidden, "before attach");
    h.client
        .attach_packages(service(), attach_request())
        .await
        .unwrap();
    assert_eq!(
        codes(&h, member()).await,
        (Active, vec![Active, Hidden]),
        "granted by the manifest; the floor hides its subtree"
    );
    assert_eq!(
        codes(&h, token("guest")).await.0,
        Hidden,
        "no default grant"
    );
    let revoke = pb::PutRoleGrantsRequest {
        grantor: pb::GrantorKind::Administrator.into(),
        package_id: String::new(),
        grants: vec![pb::RoleGrant {
            role: "member".into(),
            features: vec![],
            revoked: vec!["acme.access".into()],
        }],
        project_id: support::PROJECT.into(),
    };
    h.client.put_role_grants(admin(), revoke).await.unwrap();
    assert_eq!(codes(&h, member()).await.0, Hidden, "the revoke wins");
    h.client
        .attach_packages(service(), attach_request())
        .await
        .unwrap();
    assert_eq!(
        codes(&h, member()).await.0,
        Hidden,
        "and stays after re-attach"
    );
}

async fn an_attached_floor_cannot_be_loosened_and_is_shown_to_the_administrator(h: Harness) {
    h.client
        .attach_packages(service(), attach_request())
        .await
        .unwrap();
    let loosen = UriPolicy {
        paths: vec![PathRule {
            read: Some(true),
            override_rule: true,
            ..PathRule::new("skills/secret/**")
        }],
        ..read_all()
    };
    let request = pb::PutSourcePolicyRequest {
        source_id: SCOPE.into(),
        policy: Some(policy_to_proto(&loosen)),
    };
    h.client
        .put_source_policy(platform_admin(), request)
        .await
        .unwrap();
    let holder = support::token_with(neuralis_identity::Claims {
        features: vec!["acme.access".into()],
        ..support::claims()
    });
    assert_eq!(codes(&h, holder).await, (Active, vec![Active, Hidden]));
    let shown = h
        .client
        .get_source_policy(
            platform_admin(),
            pb::GetSourcePolicyRequest {
                source_id: SCOPE.into(),
            },
        )
        .await
        .unwrap();
    let shown = policy_from_proto(shown.policy.unwrap());
    assert!(
        shown.paths.contains(&floor("skills/secret/**")),
        "{shown:?}"
    );
}

async fn only_services_attach_and_only_platform_administrators_read_an_installed_scope(h: Harness) {
    let refused = h.client.attach_packages(admin(), attach_request()).await;
    assert!(
        matches!(
            refused,
            Err(PolicyError::PermissionDenied(_) | PolicyError::Unauthenticated)
        ),
        "{refused:?}"
    );
    h.client
        .attach_packages(service(), attach_request())
        .await
        .unwrap();
    // A project administrator's token names a project; an installed scope names none.
    let read = h
        .client
        .get_source_policy(
            admin(),
            pb::GetSourcePolicyRequest {
                source_id: SCOPE.into(),
            },
        )
        .await;
    assert!(
        matches!(read, Err(PolicyError::PermissionDenied(_))),
        "{read:?}"
    );
}

/// Seed 002, "defaultRoleGrants maps role names to the feature ids each role receives
/// by default": by default of an installed package, so a package removed (absent from a
/// complete attach) grants nothing any more; what an administrator granted stays.
async fn a_removed_package_no_longer_grants_by_default_and_an_administrator_grant_stays(
    h: Harness,
) {
    h.client
        .attach_packages(service(), attach_request())
        .await
        .unwrap();
    assert_eq!(
        codes(&h, member()).await.0,
        Active,
        "granted by the manifest"
    );
    let removed = pb::AttachPackagesRequest {
        packages: vec![],
        complete: true,
    };
    h.client
        .attach_packages(service(), removed.clone())
        .await
        .unwrap();
    assert_eq!(codes(&h, member()).await.0, Hidden, "the grantor is gone");
    let by_hand = pb::PutRoleGrantsRequest {
        grantor: pb::GrantorKind::Administrator.into(),
        package_id: String::new(),
        grants: vec![pb::RoleGrant {
            role: "member".into(),
            features: vec!["acme.access".into()],
            revoked: vec![],
        }],
        project_id: support::PROJECT.into(),
    };
    h.client.put_role_grants(admin(), by_hand).await.unwrap();
    h.client.attach_packages(service(), removed).await.unwrap();
    assert_eq!(
        codes(&h, member()).await.0,
        Active,
        "the administrator's grant stays"
    );
}

/// Seed 002, "uriPolicies": the loader "seeds matching baselines into source
/// configuration", and a data source is the `data://` namespace: the baseline of
/// `data://acme` decides the data-source files under `acme/`, for a member too.
async fn a_data_baseline_denying_read_hides_the_data_source_file_under_that_zone(h: Harness) {
    support::put_policy(&h.client, &read_all()).await;
    let denied = UriPolicy {
        paths: vec![PathRule {
            read: Some(false),
            ..PathRule::new("secret/**")
        }],
        ..read_all()
    };
    let attach = pb::AttachPackagesRequest {
        packages: vec![pb::PackageAttachment {
            package_id: "acme".into(),
            default_role_grants: vec![],
            baselines: vec![pb::ScopeBaseline {
                scope: "data://acme".into(),
                policy: Some(policy_to_proto(&denied)),
            }],
        }],
        complete: false,
    };
    h.client.attach_packages(service(), attach).await.unwrap();
    let mut request = batch();
    request.packages[0].root = String::new();
    request.files.truncate(2);
    request.files[0].path = "acme/secret/SKILL.md".into();
    request.files[1].path = "acme/skills/open/SKILL.md".into();
    request.files[1].category = neuralis_layout::Category::Skill;
    request.files[1].default_enabled = true;
    request.data_sources = vec![support::SOURCE.into()];
    let evaluation = evaluate_as(&h.client, member(), None, &request)
        .await
        .unwrap();
    let files: Vec<DecisionCode> = evaluation.files.iter().map(|d| d.code).collect();
    assert_eq!(
        files,
        [Hidden, Active],
        "the zone's secret subtree is hidden"
    );
}
