//! A grantor's grants are replaced whole, also when two replacements run at once: the
//! store ends with one of the two sets, never both, and neither call fails. On
//! PostgreSQL, under READ COMMITTED, the second replacement's delete did not see the
//! first's new rows: the two sets were stored together (or a duplicate key failed the
//! call). The administrator's grants and revocations are replaced in one transaction.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use neuralis_access::{Grantor, RoleGrants};
use neuralis_access_store::testing::{Backend, with_store};
use neuralis_access_store::{AccessStore, RoleFeatures, SnapshotQuery};

type Store = Arc<dyn AccessStore>;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_replacements_of_one_grantors_grants_keep_one_set_embedded() {
    with_store(Backend::Embedded, |s, _| {
        concurrent_replacements_of_one_grantors_grants_keep_one_set(s)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_replacements_of_one_grantors_grants_keep_one_set_postgres() {
    with_store(Backend::Postgres, |s, _| {
        concurrent_replacements_of_one_grantors_grants_keep_one_set(s)
    })
    .await
}

fn member(features: &[&str]) -> RoleFeatures {
    let features: BTreeSet<String> = features.iter().map(|f| (*f).to_owned()).collect();
    BTreeMap::from([("member".to_owned(), features)])
}

async fn granted(store: &Store) -> BTreeSet<String> {
    let query = SnapshotQuery {
        project: "p1".into(),
        role: "member".into(),
        agent: None,
        conversation: None,
        source_ids: Vec::new(),
    };
    store.snapshot(&query).await.unwrap().role_features
}

async fn concurrent_replacements_of_one_grantors_grants_keep_one_set(store: Store) {
    let sets: [&[&str]; 2] = [&["a.one", "shared.x"], &["b.one", "shared.x"]];
    for round in 0..20 {
        let calls = sets.map(|set| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let grants = RoleGrants {
                    grantor: Grantor::Administrator,
                    roles: member(set),
                };
                store.put_role_grants(Some("p1"), &grants).await
            })
        });
        for call in calls {
            call.await.unwrap().unwrap();
        }
        let stored = granted(&store).await;
        let one_of = sets.map(|set| set.iter().map(|f| (*f).to_owned()).collect());
        assert!(one_of.contains(&stored), "round {round}: {stored:?}");
    }
    // And the administrator's grants with its revocations, both sides at once.
    let calls = sets.map(|set| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            store
                .put_administrator_grants(Some("p1"), &member(set), &member(set))
                .await
        })
    });
    for call in calls {
        call.await.unwrap().unwrap();
    }
    let revoked = store.grant_revocations(Some("p1")).await.unwrap();
    let stored = granted(&store).await;
    assert_eq!(
        revoked.get("member"),
        Some(&stored),
        "the grants and revocations of one call"
    );
}
