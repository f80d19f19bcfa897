//! An installed package's manifest access, end to end against real servers (issue 10;
//! seed 002, "requires"): discovery loads the drop-zone and attaches every package's
//! `defaultRoleGrants` to policy itself (`AttachPackages`), so a package gated by its
//! `accessFeature` is visible to a caller of a granted role with no administrator
//! action, stays hidden from other roles, and an administrator's revoke
//! (`PutRoleGrants` with `revoked`) hides it on the next call.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;
use std::time::Duration;

use neuralis_discovery::CallerToken;
use neuralis_policy::BearerToken;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_tests::cluster::eventually;
use neuralis_tests::fixture::{scope, write_tree};
use neuralis_tests::{Cluster, Mode};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";

/// A drop-zone package visible only through `gated.access`, which its manifest grants
/// to members by default.
const ZONE: &[(&str, &str)] = &[
    (
        "gated/package.json",
        r#"{"name": "gated", "version": "1.0.0", "neuralis": {"requires": {
            "providesFeatures": ["gated.access"],
            "defaultRoleGrants": {"member": ["gated.access"]},
            "accessFeature": "gated.access"}}}"#,
    ),
    (
        "gated/skills/gate/SKILL.md",
        "---\nname: gate\n---\nOpen.\n",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_role_grants_show_a_gated_installed_package_until_an_admin_revokes_all_in_one() {
    let zone = tempfile::tempdir().unwrap();
    write_tree(zone.path(), ZONE).unwrap();
    let cluster = Cluster::all_in_one(drop_zone(zone.path())).await.unwrap();
    default_role_grants_then_revoke(cluster).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_role_grants_show_a_gated_installed_package_until_an_admin_revokes_split() {
    let zone = tempfile::tempdir().unwrap();
    write_tree(zone.path(), ZONE).unwrap();
    let cluster = Cluster::split_with(NODE, false, drop_zone(zone.path()))
        .await
        .unwrap();
    assert_eq!(cluster.mode, Mode::Split);
    default_role_grants_then_revoke(cluster).await;
}

fn drop_zone(zone: &std::path::Path) -> HashMap<String, String> {
    HashMap::from([(
        "NEURALIS__DISCOVERY__INSTALLED__DROP_ZONE".to_owned(),
        zone.display().to_string(),
    )])
}

/// The installed packages `token` sees, by id.
async fn installed(cluster: &Cluster, token: &str) -> Vec<String> {
    let answer = cluster
        .discovery
        .list_packages(
            CallerToken::new(Some(token.to_owned())),
            discovery::ListPackagesRequest {
                scope: scope(P, "", ""),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    answer
        .packages
        .into_iter()
        .filter(|p| p.origin == common::PackageOrigin::Installed as i32)
        .map(|p| p.package_id)
        .collect()
}

async fn default_role_grants_then_revoke(cluster: Cluster) {
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", None, P);
    let guest = cluster.token("gus", "guest", None, P);
    // Discovery attaches at start, in the background: no call of this test does it.
    let attached = eventually(Duration::from_secs(20), || async {
        installed(&cluster, &member).await == ["gated"]
    })
    .await;
    assert!(attached, "the manifest's default grant shows the package");
    assert!(
        installed(&cluster, &guest).await.is_empty(),
        "a role without the grant sees none of the package"
    );

    let revoke = policy::PutRoleGrantsRequest {
        grantor: policy::GrantorKind::Administrator as i32,
        package_id: String::new(),
        grants: vec![policy::RoleGrant {
            role: "member".into(),
            features: Vec::new(),
            revoked: vec!["gated.access".into()],
        }],
        project_id: P.into(),
    };
    cluster
        .policy
        .put_role_grants(BearerToken::new(Some(admin)), revoke)
        .await
        .expect("revoke");
    assert!(
        installed(&cluster, &member).await.is_empty(),
        "the administrator's revoke hides it on the next call"
    );
    cluster.stop().await.unwrap();
}
