//! `neuralis migrate status` on the embedded index (`SqlIndexStore::
//! embedded_schema_status`) reads the store's migrations and changes nothing: a missing
//! file is not created, and a file that lacks migrations is not migrated.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use neuralis_index::SqlIndexStore;
use neuralis_schema::State;

/// The index's own tables in the file at `path`.
fn index_tables(path: &Path) -> i64 {
    let connection = rusqlite::Connection::open(path).unwrap();
    connection
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name LIKE 'index_%'",
            [],
            |row| row.get(0),
        )
        .unwrap()
}

#[tokio::test]
async fn status_of_a_missing_store_lists_every_migration_pending_and_creates_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let lines = SqlIndexStore::embedded_schema_status(&path).await.unwrap();
    assert!(!lines.is_empty());
    assert!(
        lines.iter().all(|(_, state)| *state == State::Pending),
        "{lines:?}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing created"
    );
}

#[tokio::test]
async fn status_of_a_store_without_migrations_lists_them_pending_and_applies_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE unrelated (x)")
        .unwrap();
    let lines = SqlIndexStore::embedded_schema_status(&path).await.unwrap();
    assert!(
        lines.iter().all(|(_, state)| *state == State::Pending),
        "{lines:?}"
    );
    assert_eq!(index_tables(&path), 0, "status migrated the store");
}

#[tokio::test]
async fn status_of_a_migrated_store_lists_every_migration_applied() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let pending = SqlIndexStore::embedded_schema_status(&path).await.unwrap();
    SqlIndexStore::open_embedded(&path)
        .await
        .unwrap()
        .close()
        .await;
    let applied = SqlIndexStore::embedded_schema_status(&path).await.unwrap();
    assert_eq!(
        applied,
        pending
            .iter()
            .map(|(version, _)| (*version, State::Applied))
            .collect::<Vec<_>>()
    );
}
