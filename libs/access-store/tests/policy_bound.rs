//! A source's stored policy holds at most `MAX_RULES` rules, the floors kept from earlier
//! puts counted: floors are never removed, so a put whose rules fit alone but not with
//! them is refused (naming `policy.paths` and how many floors were kept), and nothing is
//! stored; restating the kept floors adds no rule. On both backends.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use neuralis_access::policy::MAX_RULES;
use neuralis_access::{Capabilities, PathRule, UriPolicy};
use neuralis_access_store::testing::{Backend, with_store};
use neuralis_access_store::{AccessStore, StoreError};

type Store = Arc<dyn AccessStore>;

#[tokio::test]
async fn kept_floors_count_against_the_rule_bound_embedded() {
    with_store(Backend::Embedded, |s, _| {
        kept_floors_count_against_the_rule_bound(s)
    })
    .await
}

#[tokio::test]
async fn kept_floors_count_against_the_rule_bound_postgres() {
    with_store(Backend::Postgres, |s, _| {
        kept_floors_count_against_the_rule_bound(s)
    })
    .await
}

fn policy(floors: impl Iterator<Item = String>) -> UriPolicy {
    UriPolicy {
        hide_flagged_files: false,
        default: Capabilities {
            read: true,
            ..Capabilities::default()
        },
        paths: floors
            .map(|pattern| PathRule {
                read: Some(false),
                floor: true,
                ..PathRule::new(pattern)
            })
            .collect(),
    }
}

fn named(prefix: &str, count: usize) -> impl Iterator<Item = String> + '_ {
    (0..count).map(move |index| format!("{prefix}{index:04}/**"))
}

async fn kept_floors_count_against_the_rule_bound(store: Store) {
    let source = "p1/repo";
    store
        .put_source_policy(source, &policy(named("first", 1_000)))
        .await
        .unwrap();
    match store
        .put_source_policy(source, &policy(named("second", 1_000)))
        .await
    {
        Err(StoreError::LimitReached { field, message }) => {
            assert_eq!(field, "policy.paths");
            assert!(message.contains("the 1000 floors stored"), "{message}");
            assert!(message.contains(&MAX_RULES.to_string()), "{message}");
        }
        other => panic!("stored past the bound: {:?}", other.map(|p| p.paths.len())),
    }
    let stored = store.source(source).await.unwrap().unwrap().policy.unwrap();
    assert_eq!(stored.paths.len(), 1_000, "nothing stored");
    // Exactly at the bound with the kept floors restated: stored.
    let within = policy(named("first", 1_000).chain(named("second", MAX_RULES - 1_000)));
    let stored = store.put_source_policy(source, &within).await.unwrap();
    assert_eq!(stored.paths.len(), MAX_RULES);
    // One more, the kept floors restated: refused, one past the bound.
    let past = policy(named("first", 1_000).chain(named("second", MAX_RULES - 999)));
    assert!(matches!(
        store.put_source_policy(source, &past).await,
        Err(StoreError::LimitReached { .. })
    ));
}
