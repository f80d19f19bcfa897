//! The embedded store's snapshot read (`snapshot_read.rs`), beyond the conformance
//! suite: it runs on connections of its own, so what the pool guaranteed is proved
//! again here.

#![allow(clippy::unwrap_used)]

use neuralis_access_store::{AccessStore, EmbeddedStore, SnapshotQuery, StoreError};

fn query(source: &str) -> SnapshotQuery {
    SnapshotQuery {
        project: "p1".into(),
        role: "member".into(),
        agent: Some("a1".into()),
        conversation: None,
        source_ids: vec![source.into()],
    }
}

#[tokio::test]
async fn a_snapshot_after_close_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let store = EmbeddedStore::open(&dir.path().join("access.db"))
        .await
        .unwrap();
    store.snapshot(&query("s1")).await.unwrap();
    store.close().await;
    let after = store.snapshot(&query("s1")).await;
    assert!(
        matches!(after, Err(StoreError::Unavailable(_))),
        "{after:?}"
    );
}

/// A write transaction left open by another connection neither blocks the read nor
/// shows in it (WAL: one committed state per read).
#[tokio::test]
async fn a_snapshot_reads_the_committed_state_beside_an_open_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("access.db");
    let store = EmbeddedStore::open(&path).await.unwrap();
    store.set_source_enabled("s1", true).await.unwrap();
    let writer = rusqlite::Connection::open(&path).unwrap();
    writer
        .execute_batch(
            "BEGIN IMMEDIATE; UPDATE access_sources SET enabled = FALSE WHERE source_id = 's1'",
        )
        .unwrap();
    let during = store.snapshot(&query("s1")).await.unwrap();
    assert!(during.sources["s1"].enabled, "the uncommitted write shows");
    writer.execute_batch("COMMIT").unwrap();
    let after = store.snapshot(&query("s1")).await.unwrap();
    assert!(
        !after.sources["s1"].enabled,
        "the committed write is missed"
    );
}
