//! Manifest access at attach (issue 10 item 3; seed 002 "requires", "uriPolicies"), on
//! both backends: "defaultRoleGrants maps role names to the feature ids each role
//! receives by default", and an administrator can still revoke one (a revoked default
//! stays revoked across re-attaches); the loader "seeds matching baselines into source
//! configuration at first attach"; a floor is "a denial that no later override, admin
//! edit, or policy-route call can remove".

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use neuralis_access::{Capabilities, Grantor, PathRule, RoleGrants, UriPolicy};
use neuralis_access_store::testing::{Backend, with_store};
use neuralis_access_store::{AccessStore, PackageDefaults, RoleFeatures, SnapshotQuery};

type Store = Arc<dyn AccessStore>;

macro_rules! on_both_backends {
    ($($case:ident),* $(,)?) => {
        mod embedded {
            $( #[tokio::test] async fn $case() { super::with_store(super::Backend::Embedded, |s, _| super::$case(s)).await } )*
        }
        mod postgres {
            $( #[tokio::test] async fn $case() { super::with_store(super::Backend::Postgres, |s, _| super::$case(s)).await } )*
        }
    };
}

on_both_backends!(
    a_default_role_grant_reaches_its_role_without_an_administrator,
    an_administrator_revoke_wins_over_a_default_and_survives_reattach,
    a_baseline_is_seeded_at_first_attach_and_an_admin_edit_survives_reattach,
    a_manifest_floor_cannot_be_loosened_by_an_edit_or_a_reattach,
    a_removed_package_grants_nothing_and_what_an_administrator_set_stays,
);

fn roles(pairs: &[(&str, &[&str])]) -> RoleFeatures {
    pairs
        .iter()
        .map(|(role, features)| {
            (
                role.to_string(),
                features.iter().map(|f| f.to_string()).collect(),
            )
        })
        .collect()
}

fn defaults(grants: &[(&str, &[&str])], baselines: Vec<(String, UriPolicy)>) -> PackageDefaults {
    PackageDefaults {
        package_id: "acme".into(),
        default_role_grants: roles(grants),
        baselines,
    }
}

async fn features(store: &Store, project: &str, role: &str) -> BTreeSet<String> {
    let query = SnapshotQuery {
        project: project.into(),
        role: role.into(),
        agent: None,
        conversation: None,
        source_ids: vec![],
    };
    store.snapshot(&query).await.unwrap().role_features
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

async fn a_default_role_grant_reaches_its_role_without_an_administrator(store: Store) {
    let member: &[&str] = &["acme.access", "acme.read"];
    store
        .attach_package(&defaults(&[("member", member)], vec![]))
        .await
        .unwrap();
    assert_eq!(features(&store, "p1", "member").await, set(member));
    assert!(features(&store, "p1", "guest").await.is_empty());
    // A manifest that no longer declares a grant stops granting it at the next attach.
    store
        .attach_package(&defaults(&[("member", &["acme.access"])], vec![]))
        .await
        .unwrap();
    assert_eq!(
        features(&store, "p1", "member").await,
        set(&["acme.access"])
    );
}

async fn an_administrator_revoke_wins_over_a_default_and_survives_reattach(store: Store) {
    let attach = defaults(&[("member", &["acme.access", "acme.read"])], vec![]);
    store.attach_package(&attach).await.unwrap();
    store
        .put_grant_revocations(Some("p1"), &roles(&[("member", &["acme.access"])]))
        .await
        .unwrap();
    store.attach_package(&attach).await.unwrap();
    assert_eq!(features(&store, "p1", "member").await, set(&["acme.read"]));
    // Per project: another project keeps the default.
    assert_eq!(
        features(&store, "p2", "member").await,
        set(&["acme.access", "acme.read"])
    );
    assert_eq!(
        store.grant_revocations(Some("p1")).await.unwrap(),
        roles(&[("member", &["acme.access"])])
    );
    // The administrator's own grant is never masked: granting back wins.
    let admin = RoleGrants {
        grantor: Grantor::Administrator,
        roles: BTreeMap::from([("member".to_owned(), set(&["acme.access"]))]),
    };
    store.put_role_grants(Some("p1"), &admin).await.unwrap();
    assert_eq!(
        features(&store, "p1", "member").await,
        set(&["acme.access", "acme.read"])
    );
}

fn baseline(read: bool, paths: Vec<PathRule>) -> UriPolicy {
    UriPolicy {
        hide_flagged_files: false,
        default: Capabilities {
            read,
            ..Capabilities::default()
        },
        paths,
    }
}

fn floor(pattern: &str) -> PathRule {
    PathRule {
        read: Some(false),
        floor: true,
        ..PathRule::new(pattern)
    }
}

async fn a_baseline_is_seeded_at_first_attach_and_an_admin_edit_survives_reattach(store: Store) {
    let scope = "packages://acme".to_owned();
    let attach = defaults(&[], vec![(scope.clone(), baseline(true, vec![]))]);
    store.attach_package(&attach).await.unwrap();
    let seeded = store.source(&scope).await.unwrap().unwrap();
    assert!(seeded.enabled);
    assert_eq!(seeded.policy, Some(baseline(true, vec![])));
    let edited = baseline(false, vec![]);
    store.put_source_policy(&scope, &edited).await.unwrap();
    store.attach_package(&attach).await.unwrap();
    assert_eq!(
        store.source(&scope).await.unwrap().unwrap().policy,
        Some(edited)
    );
}

async fn a_manifest_floor_cannot_be_loosened_by_an_edit_or_a_reattach(store: Store) {
    let scope = "packages://acme".to_owned();
    let attach = defaults(
        &[],
        vec![(scope.clone(), baseline(true, vec![floor("secret/**")]))],
    );
    store.attach_package(&attach).await.unwrap();
    let loosened = baseline(
        true,
        vec![PathRule {
            read: Some(true),
            override_rule: true,
            ..PathRule::new("secret/**")
        }],
    );
    let stored = store.put_source_policy(&scope, &loosened).await.unwrap();
    assert!(stored.paths.contains(&floor("secret/**")), "{stored:?}");
    store.attach_package(&attach).await.unwrap();
    let shown = store.source(&scope).await.unwrap().unwrap().policy.unwrap();
    assert_eq!(shown.paths.iter().filter(|r| r.floor).count(), 1);
    // A floor added by a newer manifest reaches a policy an administrator edited.
    let newer = defaults(
        &[],
        vec![(
            scope.clone(),
            baseline(true, vec![floor("secret/**"), floor("keys/**")]),
        )],
    );
    store.attach_package(&newer).await.unwrap();
    let shown = store.source(&scope).await.unwrap().unwrap().policy.unwrap();
    assert!(shown.paths.contains(&floor("keys/**")));
}

/// Issue 27: the grantor of a default grant is its package, so a package no longer
/// installed grants nothing; an administrator's grants and revocations stay.
async fn a_removed_package_grants_nothing_and_what_an_administrator_set_stays(store: Store) {
    store
        .attach_package(&defaults(&[("member", &["acme.access"])], vec![]))
        .await
        .unwrap();
    let other = PackageDefaults {
        package_id: "other".into(),
        default_role_grants: roles(&[("member", &["other.read"])]),
        baselines: vec![],
    };
    store.attach_package(&other).await.unwrap();
    let admin = RoleGrants {
        grantor: Grantor::Administrator,
        roles: BTreeMap::from([("member".to_owned(), set(&["acme.admin-set"]))]),
    };
    store.put_role_grants(None, &admin).await.unwrap();
    store
        .put_grant_revocations(Some("p1"), &roles(&[("member", &["other.read"])]))
        .await
        .unwrap();
    store.retire_packages(&set(&["other"])).await.unwrap();
    assert_eq!(
        features(&store, "p2", "member").await,
        set(&["acme.admin-set", "other.read"]),
        "acme is gone; other and the administrator's grant stay"
    );
    assert_eq!(
        store.grant_revocations(Some("p1")).await.unwrap(),
        roles(&[("member", &["other.read"])])
    );
    store.retire_packages(&BTreeSet::new()).await.unwrap();
    assert_eq!(
        features(&store, "p2", "member").await,
        set(&["acme.admin-set"])
    );
}
