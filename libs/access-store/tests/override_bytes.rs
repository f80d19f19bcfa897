//! A conversation's file overrides name at most `MAX_CONVERSATION_OVERRIDE_BYTES` of
//! package keys and paths, on both backends: each name may be 4 KiB, and an evaluation
//! reads 64 generations of a delegate chain, so the count bound alone let one member
//! make a single evaluation read about 512 MiB. Bytes are counted, not characters.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use neuralis_access_store::testing::{Backend, with_store};
use neuralis_access_store::{
    AccessStore, FileRef, MAX_CONVERSATION_OVERRIDE_BYTES, OverrideTarget, StoreError,
};

type Store = Arc<dyn AccessStore>;

#[tokio::test]
async fn a_conversations_overrides_name_at_most_the_bound_of_bytes_embedded() {
    with_store(Backend::Embedded, |s, _| {
        a_conversations_overrides_name_at_most_the_bound_of_bytes(s)
    })
    .await
}

#[tokio::test]
async fn a_conversations_overrides_name_at_most_the_bound_of_bytes_postgres() {
    with_store(Backend::Postgres, |s, _| {
        a_conversations_overrides_name_at_most_the_bound_of_bytes(s)
    })
    .await
}

fn conversation() -> OverrideTarget {
    OverrideTarget::Conversation {
        project: "p1".into(),
        id: "c1".into(),
    }
}

/// A file whose key and path take 4,096 bytes together, in two-byte characters.
fn wide(index: usize) -> FileRef {
    let key = "k".repeat(95);
    let path = format!("{index:04}/{}", "é".repeat(1_998));
    assert_eq!(key.len() + path.len(), 4_096);
    FileRef {
        package_key: key,
        path,
    }
}

async fn a_conversations_overrides_name_at_most_the_bound_of_bytes(store: Store) {
    let fit = usize::try_from(MAX_CONVERSATION_OVERRIDE_BYTES).unwrap() / 4_096;
    for index in 0..fit {
        store
            .set_file_override(&conversation(), &wide(index), Some(true))
            .await
            .unwrap();
    }
    let refused = store
        .set_file_override(&conversation(), &wide(fit), Some(true))
        .await;
    assert!(
        matches!(refused, Err(StoreError::LimitReached { field: "file_path", ref message })
            if message.contains(&MAX_CONVERSATION_OVERRIDE_BYTES.to_string())),
        "{refused:?}"
    );
    // One it holds can still change, and clearing one makes room.
    store
        .set_file_override(&conversation(), &wide(0), Some(false))
        .await
        .unwrap();
    store
        .set_file_override(&conversation(), &wide(0), None)
        .await
        .unwrap();
    store
        .set_file_override(&conversation(), &wide(fit), Some(true))
        .await
        .unwrap();
}
