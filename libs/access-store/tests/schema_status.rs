//! `neuralis migrate status` on the embedded access store (`schema_status` of an
//! embedded configuration) reads the store's migrations and changes nothing: a missing
//! file is not created, and a file that lacks migrations is not migrated.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use neuralis_access_store::{EmbeddedStore, StoreConfig, schema_status};
use neuralis_schema::State;

fn embedded(path: &Path) -> StoreConfig {
    StoreConfig::Embedded {
        path: path.to_owned(),
    }
}

/// The tables in the file at `path`.
fn tables(path: &Path) -> Vec<String> {
    let connection = rusqlite::Connection::open(path).unwrap();
    let mut statement = connection
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap();
    statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[tokio::test]
async fn status_of_a_missing_store_lists_every_migration_pending_and_creates_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("policy.db");
    let lines = schema_status(&embedded(&path)).await.unwrap();
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
    let path = dir.path().join("policy.db");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE unrelated (x)")
        .unwrap();
    let lines = schema_status(&embedded(&path)).await.unwrap();
    assert!(
        lines.iter().all(|(_, state)| *state == State::Pending),
        "{lines:?}"
    );
    assert_eq!(tables(&path), ["unrelated"], "status migrated the store");
}

#[tokio::test]
async fn status_of_a_migrated_store_lists_every_migration_applied() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("policy.db");
    let pending = schema_status(&embedded(&path)).await.unwrap();
    EmbeddedStore::open(&path).await.unwrap().close().await;
    let applied = schema_status(&embedded(&path)).await.unwrap();
    assert_eq!(
        applied,
        pending
            .iter()
            .map(|(version, _)| (*version, State::Applied))
            .collect::<Vec<_>>()
    );
}
