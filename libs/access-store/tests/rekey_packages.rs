//! Re-keying stored package states and file overrides once (issue 10, stable keys;
//! migration 0004), on both backends: legacy keys move to today's keys on the first call
//! for a source, a later call moves nothing, a state set under the new key since the
//! upgrade wins, and another source's rows are untouched.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use neuralis_access::AccessSnapshot;
use neuralis_access_store::testing::{Backend, with_store};
use neuralis_access_store::{
    AccessStore, ConversationRecord, FileRef, OverrideTarget, PackageKeyMove, SnapshotQuery,
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
    legacy_package_keys_move_to_the_stable_keys_once,
    a_state_set_under_the_stable_key_since_the_upgrade_wins,
    rekeying_one_source_leaves_every_other_source_alone,
);

const SOURCE: &str = "p1/repo.0123456789abcdef";
const OTHER: &str = "p1/repo.fedcba9876543210";

fn full(source: &str, key: &str) -> String {
    format!("{source}/{key}")
}

fn moves() -> Vec<PackageKeyMove> {
    vec![PackageKeyMove {
        legacy: "helper".into(),
        key: "helper-1a2b3c4d".into(),
    }]
}

fn file(package_key: &str) -> FileRef {
    FileRef {
        package_key: package_key.into(),
        path: "rules/a.md".into(),
    }
}

async fn populate(store: &Store, package_key: &str, enabled: bool) {
    store
        .set_package_enabled("p1", package_key, enabled)
        .await
        .unwrap();
    for target in [
        OverrideTarget::Agent("a1".into()),
        OverrideTarget::Conversation {
            project: "p1".into(),
            id: "c1".into(),
        },
    ] {
        store
            .set_file_override(&target, &file(package_key), Some(enabled))
            .await
            .unwrap();
    }
}

async fn read(store: &Store) -> AccessSnapshot {
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
            source_ids: vec![SOURCE.into(), OTHER.into()],
        })
        .await
        .unwrap()
}

/// What is stored under `package_key`: the package state (None when none is stored, as
/// the default is on) and the agent and conversation overrides.
fn stored(snapshot: &AccessSnapshot, package_key: &str) -> [Option<bool>; 3] {
    [
        (!snapshot.package_enabled(package_key)).then_some(false),
        snapshot.agent_overrides.get(package_key, "rules/a.md"),
        snapshot
            .conversation_chain
            .iter()
            .find_map(|overrides| overrides.get(package_key, "rules/a.md")),
    ]
}

async fn legacy_package_keys_move_to_the_stable_keys_once(store: Store) {
    populate(&store, &full(SOURCE, "helper"), false).await;
    assert!(store.rekey_packages(SOURCE, &moves()).await.unwrap());
    let after = read(&store).await;
    assert_eq!(
        stored(&after, &full(SOURCE, "helper-1a2b3c4d")),
        [Some(false); 3]
    );
    assert_eq!(stored(&after, &full(SOURCE, "helper")), [None; 3]);

    // Once: a package later keyed by the bare legacy name inherits nothing, and a
    // second call moves nothing.
    populate(&store, &full(SOURCE, "helper"), false).await;
    assert!(!store.rekey_packages(SOURCE, &moves()).await.unwrap());
    let again = read(&store).await;
    assert_eq!(stored(&again, &full(SOURCE, "helper")), [Some(false); 3]);
}

async fn a_state_set_under_the_stable_key_since_the_upgrade_wins(store: Store) {
    populate(&store, &full(SOURCE, "helper"), false).await;
    populate(&store, &full(SOURCE, "helper-1a2b3c4d"), true).await;
    assert!(store.rekey_packages(SOURCE, &moves()).await.unwrap());
    let after = read(&store).await;
    assert_eq!(
        stored(&after, &full(SOURCE, "helper-1a2b3c4d")),
        [None, Some(true), Some(true)]
    );
    assert_eq!(stored(&after, &full(SOURCE, "helper")), [None; 3]);
}

async fn rekeying_one_source_leaves_every_other_source_alone(store: Store) {
    populate(&store, &full(OTHER, "helper"), false).await;
    assert!(store.rekey_packages(SOURCE, &moves()).await.unwrap());
    let after = read(&store).await;
    assert_eq!(stored(&after, &full(OTHER, "helper")), [Some(false); 3]);
    assert_eq!(stored(&after, &full(OTHER, "helper-1a2b3c4d")), [None; 3]);
    // The other source is still re-keyed on its own first call.
    assert!(store.rekey_packages(OTHER, &moves()).await.unwrap());
    let moved = read(&store).await;
    assert_eq!(
        stored(&moved, &full(OTHER, "helper-1a2b3c4d")),
        [Some(false); 3]
    );
}
