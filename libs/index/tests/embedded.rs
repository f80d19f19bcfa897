//! The conformance suite on the embedded store (SQLite, one file).

mod conformance;

use neuralis_index::{IndexStore, SqlIndexStore};
use std::sync::Arc;

struct EmbeddedFixture {
    store: Arc<SqlIndexStore>,
    _dir: tempfile::TempDir,
}

impl conformance::Fixture for EmbeddedFixture {
    fn store(&self) -> Arc<dyn IndexStore> {
        self.store.clone()
    }

    async fn cleanup(self) {
        self.store.close().await;
    }
}

async fn fresh(_case: &str) -> EmbeddedFixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = SqlIndexStore::open_embedded(&dir.path().join("index.db"))
        .await
        .expect("opens");
    EmbeddedFixture {
        store: Arc::new(store),
        _dir: dir,
    }
}

all_conformance_cases!(fresh);

#[tokio::test]
async fn the_embedded_store_is_one_file_that_survives_a_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("nested/index.db");
    let store = SqlIndexStore::open_embedded(&path).await.expect("opens");
    let batch = neuralis_index::WriteBatch {
        project: "p".into(),
        source: "s".into(),
        source_id: None,
        writes: vec![],
    };
    store.write_batch(batch).await.expect("commits");
    store.close().await;
    let reopened = SqlIndexStore::open_embedded(&path).await.expect("reopens");
    assert_eq!(reopened.revision("p").await.expect("read"), 1);
}

/// A caller that stops waiting for its write (the sync's write timeout drops the
/// future) gets nothing written: the writer thread, busy with an earlier batch when the
/// caller left, never applies the abandoned one, and the batches after it still commit.
#[tokio::test]
async fn a_write_its_caller_abandons_before_it_starts_is_never_applied() {
    use conformance::cases::{batch, chunk, put, row};
    use futures::FutureExt;
    let fixture = fresh("abandoned").await;
    let store = &fixture.store;
    // Large enough that the thread is still on it when the next write is abandoned.
    let large: Vec<_> = (0..20_000)
        .map(|n| {
            let path = format!("big/{n:05}.md");
            put(
                row("p", "s", &path),
                Some(vec![chunk(0, &format!("text {n}"))]),
            )
        })
        .collect();
    let busy = store.write_batch(batch("p", "s", large));
    let abandoned = store.write_batch(batch("p", "s", vec![put(row("p", "s", "gone.md"), None)]));
    let (busy, abandoned) = {
        let mut busy = Box::pin(busy);
        // Queue the large batch, then the small one, and leave the small one.
        assert!(
            (&mut busy).now_or_never().is_none(),
            "the large batch is still running"
        );
        let mut abandoned = Box::pin(abandoned);
        assert!(
            (&mut abandoned).now_or_never().is_none(),
            "queued behind the large one"
        );
        (busy, abandoned)
    };
    drop(abandoned);
    assert_eq!(busy.await.expect("the large batch commits"), 1);
    let after = store
        .write_batch(batch("p", "s", vec![put(row("p", "s", "kept.md"), None)]))
        .await
        .expect("a later batch commits");
    assert_eq!(after, 2, "the abandoned batch raised no revision");
    let paths: Vec<String> = store
        .source_rows("p", "s")
        .await
        .expect("rows")
        .into_iter()
        .map(|row| row.path)
        .filter(|path| !path.starts_with("big/"))
        .collect();
    assert_eq!(paths, ["kept.md"]);
    conformance::Fixture::cleanup(fixture).await;
}

/// The short reads on the lister's own connections (a project's sources, a delta) end
/// with the store: after `close` they answer unavailable, as the pool's reads do.
#[tokio::test]
async fn the_lister_s_short_reads_are_unavailable_after_close() {
    short_reads_end_with_the_store().await;
}

/// The same where the short reads run in place on a worker (a spawned task on a
/// multi-thread runtime, as the services' handlers run), not on a blocking thread.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lister_s_short_reads_in_place_are_unavailable_after_close() {
    tokio::spawn(short_reads_end_with_the_store())
        .await
        .unwrap();
}

async fn short_reads_end_with_the_store() {
    use neuralis_index::IndexError;
    let fixture = fresh("closed").await;
    let store = &fixture.store;
    store
        .list_sources(Some("p"))
        .await
        .expect("reads while open");
    store.changes_since("p", 0).await.expect("reads while open");
    store.close().await;
    let sources = store.list_sources(Some("p")).await;
    assert!(
        matches!(sources, Err(IndexError::Unavailable(_))),
        "{sources:?}"
    );
    let changes = store.changes_since("p", 0).await;
    assert!(
        matches!(changes, Err(IndexError::Unavailable(_))),
        "{changes:?}"
    );
}
