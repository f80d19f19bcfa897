//! Stable package keys end to end (issue 10), against real servers in both shapes:
//! - a package switched off stays off when a package of the same name appears
//!   elsewhere in its source and the source is synced again (a key is a function of the
//!   package's own root and name, never of its neighbours);
//! - a package state stored under a legacy key (earlier releases keyed a package by its
//!   name) moves to the package's stable key on the first answer, discovery calling
//!   policy's `RekeyPackages` itself. The legacy state is written through the public
//!   API: `SetPackageEnabled` stores any key, and the name is the legacy key.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use neuralis_discovery::CallerToken;
use neuralis_policy::BearerToken;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_tests::fixture::{read_policy, register, resync, scope, write_tree};
use neuralis_tests::{Cluster, Mode};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";

macro_rules! in_both_modes {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn all_in_one() {
                super::$scenario(super::Mode::AllInOne).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn split() {
                super::$scenario(super::Mode::Split).await;
            }
        }
    )*};
}

in_both_modes!(
    a_disabled_package_stays_disabled_when_a_same_named_package_appears_and_syncs,
    a_legacy_keyed_package_state_moves_to_the_stable_key_on_the_first_answer,
);

/// A manifest package named `helper` rooted at `root`, with one skill.
fn helper_at(root: &str, skill: &str) -> Vec<(String, String)> {
    vec![
        (
            format!("{root}/package.json"),
            r#"{"name": "helper", "neuralis": {}}"#.to_owned(),
        ),
        (
            format!("{root}/skills/{skill}/SKILL.md"),
            format!("---\nname: {skill}\n---\nUse {skill}.\n"),
        ),
    ]
}

fn write(dir: &std::path::Path, files: &[(String, String)]) {
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    write_tree(dir, &files).unwrap();
}

/// `(root, policy_key, enabled)` of every source package `token` sees.
async fn packages(cluster: &Cluster, token: &str) -> Vec<(String, String, bool)> {
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
        .filter(|p| p.origin == common::PackageOrigin::Source as i32)
        .map(|p| (p.root, p.policy_key, p.enabled))
        .collect()
}

async fn set_enabled(cluster: &Cluster, admin: &str, package_key: String, enabled: bool) {
    let request = policy::SetPackageEnabledRequest {
        project_id: P.into(),
        package_key,
        enabled,
        reset: false,
    };
    cluster
        .policy
        .set_package_enabled(BearerToken::new(Some(admin.to_owned())), request)
        .await
        .expect("set package enabled");
}

async fn a_disabled_package_stays_disabled_when_a_same_named_package_appears_and_syncs(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", None, P);
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &helper_at("packages/a", "deploy"));
    register(&cluster, &admin, P, "repo", dir.path(), read_policy(vec![]))
        .await
        .expect("register");
    let before = packages(&cluster, &member).await;
    assert_eq!(before.len(), 1, "{before:?}");
    let (_, first_key, enabled) = before[0].clone();
    assert!(enabled);
    set_enabled(&cluster, &admin, first_key.clone(), false).await;

    write(dir.path(), &helper_at("packages/b", "release"));
    resync(&cluster, &admin, P, "repo").await.expect("resync");
    let after = packages(&cluster, &member).await;
    let roots: Vec<&str> = after.iter().map(|(root, _, _)| root.as_str()).collect();
    assert_eq!(roots, ["packages/a", "packages/b"], "{after:?}");
    assert_eq!(
        after[0],
        ("packages/a".to_owned(), first_key.clone(), false),
        "the first package keeps its key and stays disabled"
    );
    assert!(after[1].2, "the newcomer is on: {after:?}");
    assert_ne!(after[1].1, first_key, "the newcomer has its own key");
    cluster.stop().await.unwrap();
}

async fn a_legacy_keyed_package_state_moves_to_the_stable_key_on_the_first_answer(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", None, P);
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &helper_at("packages/helper", "deploy"));
    let source_id = register(&cluster, &admin, P, "repo", dir.path(), read_policy(vec![]))
        .await
        .expect("register");
    // What an earlier release stored: the package switched off under its name's slug.
    // Nothing has answered for this source yet, so nothing has been re-keyed.
    set_enabled(&cluster, &admin, format!("{source_id}/helper"), false).await;

    let first = packages(&cluster, &member).await;
    assert_eq!(first.len(), 1, "{first:?}");
    let (root, key, enabled) = first[0].clone();
    assert_eq!(root, "packages/helper");
    assert_ne!(
        key,
        format!("{source_id}/helper"),
        "a nested package's stable key names its root"
    );
    assert!(
        !enabled,
        "the legacy state moved to {key} on the first answer"
    );
    // Moved, not copied: switching the stable key on turns the package on.
    set_enabled(&cluster, &admin, key.clone(), true).await;
    let again = packages(&cluster, &member).await;
    assert_eq!(again, [(root, key, true)]);
    cluster.stop().await.unwrap();
}
