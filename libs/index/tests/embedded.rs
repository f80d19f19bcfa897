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
        writes: vec![],
    };
    store.write_batch(batch).await.expect("commits");
    store.close().await;
    let reopened = SqlIndexStore::open_embedded(&path).await.expect("reopens");
    assert_eq!(reopened.revision("p").await.expect("read"), 1);
}
