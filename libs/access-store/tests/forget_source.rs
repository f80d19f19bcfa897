//! Forgetting a source (DESIGN.md section 5: "deleting a source deletes its access
//! state"), on both backends: its policy with its floors, its switch, and every package
//! state and file override under `<source_id>/` go in one call; nothing of another
//! source goes with them, and forgetting twice, or an unknown source, succeeds.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use neuralis_access::{AccessSnapshot, Capabilities, PathRule, UriPolicy};
use neuralis_access_store::testing::{Backend, with_store};
use neuralis_access_store::{
    AccessStore, ConversationRecord, FileRef, OverrideTarget, SnapshotQuery,
};

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
    forgetting_a_source_deletes_its_policy_floors_switch_states_and_overrides,
    forgetting_a_source_keeps_every_other_source_and_key_that_only_shares_a_prefix,
    forgetting_an_unknown_source_or_forgetting_twice_succeeds,
    a_percent_or_underscore_in_a_source_id_is_a_plain_character,
);

const GONE: &str = "p1/repo.0123456789abcdef";
const KEPT: &str = "p1/repo.fedcba9876543210";

fn policy_with_floor() -> UriPolicy {
    UriPolicy {
        hide_flagged_files: false,
        default: Capabilities {
            read: true,
            ..Capabilities::default()
        },
        paths: vec![PathRule {
            read: Some(false),
            floor: true,
            ..PathRule::new("secret/**")
        }],
    }
}

fn key(source: &str) -> String {
    format!("{source}/.claude")
}

fn file(package_key: &str) -> FileRef {
    FileRef {
        package_key: package_key.into(),
        path: "rules/a.md".into(),
    }
}

/// Puts a policy, a switch, a package state and both kinds of override under `source`.
async fn populate(store: &Store, source: &str, package_key: &str) {
    store
        .put_source_policy(source, &policy_with_floor())
        .await
        .unwrap();
    store.set_source_enabled(source, false).await.unwrap();
    store
        .set_package_enabled("p1", package_key, false)
        .await
        .unwrap();
    store
        .set_file_override(
            &OverrideTarget::Agent("a1".into()),
            &file(package_key),
            Some(true),
        )
        .await
        .unwrap();
    store
        .set_file_override(
            &OverrideTarget::Conversation {
                project: "p1".into(),
                id: "c1".into(),
            },
            &file(package_key),
            Some(true),
        )
        .await
        .unwrap();
}

async fn read(store: &Store, sources: &[&str]) -> AccessSnapshot {
    store
        .register_conversation(&ConversationRecord {
            conversation: "c1".into(),
            project: "p1".into(),
            parent: None,
        })
        .await
        .unwrap();
    store
        .snapshot(&SnapshotQuery {
            project: "p1".into(),
            role: "member".into(),
            agent: Some("a1".into()),
            conversation: Some("c1".into()),
            source_ids: sources.iter().map(|s| (*s).to_owned()).collect(),
        })
        .await
        .unwrap()
}

/// Whether anything is stored under `package_key`: a package state or an override.
fn holds(snapshot: &AccessSnapshot, package_key: &str) -> [bool; 3] {
    [
        !snapshot.package_enabled(package_key),
        snapshot
            .agent_overrides
            .get(package_key, "rules/a.md")
            .is_some(),
        snapshot
            .conversation_chain
            .iter()
            .any(|overrides| overrides.get(package_key, "rules/a.md").is_some()),
    ]
}

async fn forgetting_a_source_deletes_its_policy_floors_switch_states_and_overrides(store: Store) {
    populate(&store, GONE, &key(GONE)).await;
    assert_eq!(holds(&read(&store, &[GONE]).await, &key(GONE)), [true; 3]);
    store.forget_source(GONE).await.unwrap();
    assert_eq!(store.source(GONE).await.unwrap(), None, "policy and switch");
    let after = read(&store, &[GONE]).await;
    assert!(after.sources.is_empty());
    assert_eq!(
        holds(&after, &key(GONE)),
        [false; 3],
        "states and overrides"
    );
    // A source recreated under the same id would start bare: no floor survives.
    store
        .put_source_policy(GONE, &UriPolicy::default())
        .await
        .unwrap();
    let fresh = store.source(GONE).await.unwrap().unwrap();
    assert!(fresh.enabled);
    assert_eq!(fresh.policy, Some(UriPolicy::default()));
}

async fn forgetting_a_source_keeps_every_other_source_and_key_that_only_shares_a_prefix(
    store: Store,
) {
    // `<id>x/...` and the bare `<id>` share the id as a string prefix, not as `<id>/`.
    let lookalikes = [key(KEPT), format!("{GONE}x/.claude"), GONE.to_owned()];
    populate(&store, GONE, &key(GONE)).await;
    populate(&store, KEPT, &lookalikes[0]).await;
    for lookalike in &lookalikes[1..] {
        populate(&store, KEPT, lookalike).await;
    }
    store.forget_source(GONE).await.unwrap();
    let after = read(&store, &[GONE, KEPT]).await;
    assert_eq!(after.sources.len(), 1);
    assert_eq!(
        after.sources.get(KEPT).and_then(|r| r.policy.clone()),
        Some(policy_with_floor())
    );
    for lookalike in &lookalikes {
        assert_eq!(holds(&after, lookalike), [true; 3], "{lookalike}");
    }
    assert_eq!(holds(&after, &key(GONE)), [false; 3]);
}

async fn forgetting_an_unknown_source_or_forgetting_twice_succeeds(store: Store) {
    store
        .forget_source("p1/never.0000000000000000")
        .await
        .unwrap();
    populate(&store, GONE, &key(GONE)).await;
    store.forget_source(GONE).await.unwrap();
    store.forget_source(GONE).await.unwrap();
    assert_eq!(store.source(GONE).await.unwrap(), None);
}

async fn a_percent_or_underscore_in_a_source_id_is_a_plain_character(store: Store) {
    // Were the prefix a LIKE pattern, `p1/%` would match every key of the project.
    let wildcard = "p1/%_";
    populate(&store, KEPT, &key(KEPT)).await;
    store.forget_source(wildcard).await.unwrap();
    assert_eq!(holds(&read(&store, &[KEPT]).await, &key(KEPT)), [true; 3]);
    populate(&store, wildcard, &key(wildcard)).await;
    store.forget_source(wildcard).await.unwrap();
    let after = read(&store, &[KEPT]).await;
    assert_eq!(holds(&after, &key(wildcard)), [false; 3]);
    assert_eq!(holds(&after, &key(KEPT)), [true; 3]);
}
