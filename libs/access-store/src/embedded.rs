//! The embedded backend: one SQLite file, no server (the all-in-one default).

use std::path::Path;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteQueryResult};
use sqlx::{Sqlite, SqlitePool, Transaction};

use crate::dialect::Dialect;
use crate::snapshot_read::SnapshotReader;
use crate::{SqlStore, StoreError, schema, sql};

/// Connections per process: SQLite serializes writers, readers run beside them (WAL).
const MAX_CONNECTIONS: u32 = 4;

/// The access store in a single SQLite file.
pub type EmbeddedStore = SqlStore<Sqlite>;

impl SqlStore<Sqlite> {
    /// Opens (creating when missing) the database at `path` and runs the migrations.
    pub async fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|error| StoreError::Config {
                field: "path",
                message: format!("cannot create its folder: {error}"),
            })?;
        }
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .connect_with(options)
            .await?;
        schema::prepare(&pool, schema::migrator(), neuralis_schema::Mode::Apply).await?;
        Ok(SqlStore::new(pool).with_snapshots(SnapshotReader::new(path)))
    }

    /// Every migration version this release or the file at `path` knows, with its
    /// state; changes nothing (`neuralis migrate status`): a missing file is not
    /// created (it holds no migration), and an existing one is read, not migrated.
    pub async fn schema_status_at(
        path: &Path,
    ) -> Result<Vec<(i64, neuralis_schema::State)>, StoreError> {
        let exists = path.try_exists().map_err(|error| StoreError::Config {
            field: "path",
            message: format!("cannot read {}: {error}", path.display()),
        })?;
        if !exists {
            return Ok(schema::status_of(&[]));
        }
        let options = SqliteConnectOptions::new()
            .filename(path)
            .read_only(true)
            .busy_timeout(Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await?;
        let status = schema::status(&pool).await;
        pool.close().await;
        status
    }
}

impl Dialect for Sqlite {
    /// The write transaction is `BEGIN IMMEDIATE`, which already excludes writers.
    const POLICY_FOR_UPDATE: &'static str = sql::POLICY_FOR_UPDATE_SQLITE;

    /// Nothing more to lock: `BEGIN IMMEDIATE` excludes writers.
    const CONVERSATION_OVERRIDES_LOCK: &'static str = sql::CONVERSATION_OVERRIDES_LOCK_SQLITE;
    const CONVERSATION_OVERRIDE_TOTALS: &'static str = sql::CONVERSATION_OVERRIDE_TOTALS_SQLITE;
    const GRANTS_LOCK: &'static str = sql::GRANTS_LOCK_SQLITE;
    const PROJECT_LOCK: &'static str = sql::PROJECT_LOCK_SQLITE;

    /// Takes the write lock at once, so a read-then-write cannot fail half-way on a
    /// lock upgrade.
    async fn begin_write(pool: &SqlitePool) -> Result<Transaction<'static, Sqlite>, sqlx::Error> {
        pool.begin_with("BEGIN IMMEDIATE").await
    }

    /// In WAL mode one read transaction sees one committed state throughout.
    async fn begin_snapshot(
        pool: &SqlitePool,
    ) -> Result<Transaction<'static, Sqlite>, sqlx::Error> {
        pool.begin().await
    }

    /// The ids are bound as one JSON array.
    const SOURCES: &'static str = sql::SOURCES_SQLITE;

    type SourceIds<'a> = String;

    fn source_ids(ids: &[String]) -> Result<String, StoreError> {
        serde_json::to_string(ids).map_err(|_| StoreError::Internal("source ids".into()))
    }

    fn rows_affected(result: &SqliteQueryResult) -> u64 {
        result.rows_affected()
    }
}
