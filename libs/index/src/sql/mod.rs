//! The SQL implementation of [`IndexStore`], shared by both backends through sqlx's
//! `Any` driver: the statements are the same (`$N` placeholders work on both), only the
//! schema and the full-text search differ, and those are chosen by [`Dialect`].

pub(crate) mod codec;
mod leases;
mod listing;
mod rows;
mod schema;
mod search;

pub use search::SearchBudget;

mod sources;
mod tombstones;
mod write;

use crate::{
    ChunkHit, FileRow, IndexError, IndexStore, LeaseRow, PageBounds, ProjectChanges,
    ProjectSnapshot, Pruned, RowPages, SourceRecord, SourceTurn, StoredFile, SyncStatus,
    WriteBatch,
};
use sqlx::AnyPool;
use sqlx::any::AnyPoolOptions;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Which SQL backend a store talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Sqlite,
    Postgres,
}

/// The index on SQL: embedded (SQLite, one file) or PostgreSQL.
#[derive(Debug, Clone)]
pub struct SqlIndexStore {
    pool: AnyPool,
    dialect: Dialect,
    /// The embedded store's batch writer: one connection on a thread of its own
    /// (`write/sqlite/mod.rs` says why); `None` on PostgreSQL.
    writer: Option<Arc<write::sqlite::EmbeddedWriter>>,
    /// The embedded store's searcher, on read connections of its own
    /// (`search/embedded.rs` says why); `None` on PostgreSQL.
    searcher: Option<Arc<search::embedded::EmbeddedSearch>>,
    /// The embedded store's paged reader of a project's rows, on read connections of
    /// its own (`listing/mod.rs` says why); `None` on PostgreSQL.
    lister: Option<Arc<listing::embedded::EmbeddedLister>>,
    /// PostgreSQL's searches, within their budget and their number at once (the
    /// embedded store's `searcher` keeps both there); `None` on the embedded store.
    postgres_search: Option<Arc<search::PostgresSearch>>,
}

/// The embedded store's settings, applied on every connection:
/// - `journal_mode = WAL`: readers (a `ListEntries` snapshot) run beside the writer.
/// - `synchronous = NORMAL`: in WAL mode a commit is appended to the log without a
///   flush; the log is flushed at each checkpoint. A committed batch survives a crash
///   of the process; a power loss can lose the last batches committed before the next
///   checkpoint, never corrupt the file. That is the durability an index needs: every
///   row can be rebuilt from its source, and the next sync compares rows to files.
/// - `wal_autocheckpoint = 4000` pages (16 MiB at the 4 KiB page size) instead of the
///   default 1,000: a full sync of a large source checkpoints (and flushes) a quarter as
///   often; `journal_size_limit` gives the log's disk space back after a checkpoint.
/// - `cache_size`: [`EmbeddedSettings::page_cache_bytes`] per connection (8 MiB by
///   default) keeps the pages a sync's batches touch in memory; `temp_store = MEMORY`
///   keeps sorts for statements off the disk.
/// - `busy_timeout`: a writer waits up to 10 s for the write lock another connection
///   holds instead of failing at once.
fn sqlite_pragmas(settings: &EmbeddedSettings) -> String {
    // SQLite reads a negative cache size as KiB; at least one.
    let cache_kib = (settings.page_cache_bytes / 1024).max(1);
    format!(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
         PRAGMA wal_autocheckpoint = 4000; PRAGMA journal_size_limit = 67108864; \
         PRAGMA cache_size = -{cache_kib}; PRAGMA temp_store = MEMORY; \
         PRAGMA busy_timeout = 10000; PRAGMA foreign_keys = ON"
    )
}

/// What the embedded store may be tuned by (`sync.index.page_cache_bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbeddedSettings {
    /// SQLite's page cache of each connection, in bytes. The writer's is the one that
    /// fills: a sync of a 100,000-file source touched every page of 32 MiB when that was
    /// the size, for no measured gain in time over 8 MiB (BENCHMARKS.md, issue 31), and
    /// held it to the end of the process.
    pub page_cache_bytes: usize,
}

impl Default for EmbeddedSettings {
    fn default() -> Self {
        Self {
            page_cache_bytes: 8 * 1024 * 1024,
        }
    }
}

impl SqlIndexStore {
    /// Opens (creating it when missing) the embedded store in one file and migrates it,
    /// with the default settings.
    pub async fn open_embedded(path: &Path) -> Result<Self, IndexError> {
        Self::open_embedded_with(path, EmbeddedSettings::default()).await
    }

    /// Opens (creating it when missing) the embedded store in one file, with `settings`,
    /// and migrates it.
    pub async fn open_embedded_with(
        path: &Path,
        settings: EmbeddedSettings,
    ) -> Result<Self, IndexError> {
        let pragmas: Arc<str> = sqlite_pragmas(&settings).into();
        sqlx::any::install_default_drivers();
        let text = path.to_str().ok_or_else(|| IndexError::InvalidValue {
            field: "index.embedded.path",
            message: "the path is not valid UTF-8".into(),
        })?;
        if let Some(parent) = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
        {
            std::fs::create_dir_all(parent).map_err(|err| IndexError::InvalidValue {
                field: "index.embedded.path",
                message: format!("cannot create {}: {err}", parent.display()),
            })?;
        }
        let url = format!("sqlite://{}?mode=rwc", percent_encode_path(text));
        let pool = AnyPoolOptions::new()
            .max_connections(4)
            .acquire_timeout(Duration::from_secs(30))
            // A connection to a local file cannot drop the way a network one can, and
            // the test costs a round trip to its worker thread per transaction (one
            // per batch of a sync).
            .test_before_acquire(false)
            .after_connect({
                let pragmas = Arc::clone(&pragmas);
                move |connection, _| {
                    let pragmas = Arc::clone(&pragmas);
                    Box::pin(async move {
                        // Built from constants and one integer (`sqlite_pragmas`).
                        let pragmas = sqlx::AssertSqlSafe(pragmas.to_string());
                        sqlx::raw_sql(pragmas).execute(connection).await?;
                        Ok(())
                    })
                }
            })
            .connect(&url)
            .await?;
        schema::migrate(&pool, Dialect::Sqlite, None, neuralis_schema::Mode::Apply).await?;
        let writer = write::sqlite::EmbeddedWriter::open(path, pragmas).await?;
        Ok(Self {
            pool,
            dialect: Dialect::Sqlite,
            writer: Some(Arc::new(writer)),
            searcher: Some(Arc::new(search::embedded::EmbeddedSearch::new(
                path,
                SearchBudget::default(),
            ))),
            lister: Some(Arc::new(listing::embedded::EmbeddedLister::new(path))),
            postgres_search: None,
        })
    }

    /// Connects to PostgreSQL at `url`, keeps every table in `schema` (created when
    /// missing) and migrates it.
    pub async fn connect_postgres(url: &str, schema: &str) -> Result<Self, IndexError> {
        Self::connect_postgres_with(url, schema, neuralis_schema::Mode::Apply).await
    }

    /// Connects to PostgreSQL at `url` with the tables in `schema`, and applies the
    /// missing migrations or, in `Mode::Check`, refuses a store that lacks one.
    pub async fn connect_postgres_with(
        url: &str,
        schema: &str,
        mode: neuralis_schema::Mode,
    ) -> Result<Self, IndexError> {
        let pool = postgres_pool(url, schema)?;
        if let Err(error) = schema::migrate(&pool, Dialect::Postgres, Some(schema), mode).await {
            return Err(why_unreachable(url, error).await);
        }
        Ok(Self {
            pool,
            dialect: Dialect::Postgres,
            writer: None,
            searcher: None,
            lister: None,
            postgres_search: Some(Arc::new(search::PostgresSearch::new(
                SearchBudget::default(),
            ))),
        })
    }

    /// Every migration version this release or the store at `url` knows, with its
    /// state; changes nothing (`neuralis migrate status`).
    pub async fn postgres_schema_status(
        url: &str,
        schema: &str,
    ) -> Result<Vec<(i64, neuralis_schema::State)>, IndexError> {
        let pool = postgres_pool(url, schema)?;
        let status = schema::status(&pool, Dialect::Postgres).await;
        pool.close().await;
        status
    }

    /// Every migration version this release or the embedded store knows, with its
    /// state; changes nothing (`neuralis migrate status`): a missing file is not
    /// created (it holds no migration), and an existing one is read, not migrated.
    pub async fn embedded_schema_status(
        path: &Path,
    ) -> Result<Vec<(i64, neuralis_schema::State)>, IndexError> {
        if !path.try_exists().map_err(|err| unreadable(path, &err))? {
            return Ok(schema::status_of(Dialect::Sqlite, &[]));
        }
        sqlx::any::install_default_drivers();
        let text = path.to_str().ok_or_else(|| IndexError::InvalidValue {
            field: "index.embedded.path",
            message: "the path is not valid UTF-8".into(),
        })?;
        let url = format!("sqlite://{}?mode=ro", percent_encode_path(text));
        let pool = AnyPoolOptions::new()
            .max_connections(1)
            .connect(&url)
            .await?;
        let status = schema::status(&pool, Dialect::Sqlite).await;
        pool.close().await;
        status
    }

    /// The same store with `budget` for every search, full text or vector, from now on.
    pub fn with_search_budget(mut self, budget: SearchBudget) -> Self {
        if let Some(searcher) = &mut self.searcher {
            *searcher = Arc::new(searcher.with_budget(budget));
        }
        if let Some(search) = &mut self.postgres_search {
            *search = Arc::new(search::PostgresSearch::new(budget));
        }
        self
    }

    /// Closes every connection (the embedded file is then safe to copy or remove).
    pub async fn close(&self) {
        if let Some(writer) = &self.writer {
            writer.close().await;
        }
        if let Some(searcher) = &self.searcher {
            searcher.close();
        }
        if let Some(lister) = &self.lister {
            lister.close();
        }
        self.pool.close().await;
    }
}

/// How long a call waits for a PostgreSQL connection. Well under a caller's deadline
/// (5 s by default): while the database restarts, a read fails as UNAVAILABLE (and is
/// retried) within this instead of holding the caller until its deadline; the pool
/// connects again at the next call once the database answers (issue 26).
const POSTGRES_ACQUIRE_TIMEOUT: Duration = Duration::from_millis(1_500);

/// A lazy pool on PostgreSQL at `url` whose connections work in `schema`.
fn postgres_pool(url: &str, schema: &str) -> Result<AnyPool, IndexError> {
    sqlx::any::install_default_drivers();
    validate_schema_name(schema)?;
    // Custom plans always: a generic plan cached while the tables were small would
    // keep scanning them whole once they have grown.
    let set_path =
        format!("SET search_path TO \"{schema}\"; SET plan_cache_mode = force_custom_plan");
    let pool = AnyPoolOptions::new()
        .max_connections(8)
        .acquire_timeout(POSTGRES_ACQUIRE_TIMEOUT)
        .after_connect(move |connection, _| {
            let set_path = set_path.clone();
            Box::pin(async move {
                // Audited: the schema name passed `validate_schema_name`.
                sqlx::raw_sql(sqlx::AssertSqlSafe(set_path))
                    .execute(connection)
                    .await?;
                Ok(())
            })
        })
        .connect_lazy(url)
        .map_err(|err| IndexError::InvalidValue {
            field: "index.postgres.url",
            message: err.to_string(),
        })?;
    Ok(pool)
}

/// A schema name goes into SQL text (it cannot be bound), so only plain identifiers pass.
fn validate_schema_name(schema: &str) -> Result<(), IndexError> {
    let plain = !schema.is_empty()
        && schema.len() <= 63
        && schema
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_')
        && !schema.as_bytes()[0].is_ascii_digit();
    if plain {
        Ok(())
    } else {
        Err(IndexError::InvalidValue {
            field: "index.postgres.schema",
            message: format!("{schema:?} is not a plain lowercase identifier"),
        })
    }
}

/// A path whose existence cannot be told (a folder on the way that cannot be read).
fn unreadable(path: &Path, err: &std::io::Error) -> IndexError {
    IndexError::InvalidValue {
        field: "index.embedded.path",
        message: format!("cannot read {}: {err}", path.display()),
    }
}

/// The characters a SQLite URL would read as syntax.
fn percent_encode_path(path: &str) -> String {
    path.chars()
        .map(|character| match character {
            '%' => "%25".to_owned(),
            '?' => "%3F".to_owned(),
            '#' => "%23".to_owned(),
            other => other.to_string(),
        })
        .collect()
}

#[async_trait::async_trait]
impl IndexStore for SqlIndexStore {
    async fn create_source(&self, source: &SourceRecord) -> Result<(), IndexError> {
        sources::create(&self.pool, self.dialect, source, usize::MAX).await
    }

    async fn create_source_within(
        &self,
        source: &SourceRecord,
        max_in_project: usize,
    ) -> Result<(), IndexError> {
        sources::create(&self.pool, self.dialect, source, max_in_project).await
    }

    async fn get_source(
        &self,
        project: &str,
        slug: &str,
    ) -> Result<Option<SourceRecord>, IndexError> {
        sources::get(&self.pool, project, slug).await
    }

    async fn list_sources(&self, project: Option<&str>) -> Result<Vec<SourceRecord>, IndexError> {
        match (&self.lister, project) {
            (Some(lister), Some(project)) => lister.sources(project).await,
            _ => sources::list(&self.pool, project).await,
        }
    }

    async fn update_source(&self, source: &SourceRecord) -> Result<(), IndexError> {
        sources::update(&self.pool, source).await
    }

    async fn record_status(
        &self,
        project: &str,
        slug: &str,
        source_id: &str,
        status: &SyncStatus,
    ) -> Result<(), IndexError> {
        sources::record_status(&self.pool, (project, slug, source_id), status).await
    }

    async fn delete_source(&self, project: &str, slug: &str) -> Result<Option<u64>, IndexError> {
        sources::delete(&self.pool, project, slug).await
    }

    async fn source_turn(
        &self,
        project: &str,
        slug: &str,
    ) -> Result<Option<SourceTurn>, IndexError> {
        leases::turn(&self.pool, project, slug).await
    }

    async fn swap_lease(
        &self,
        project: &str,
        slug: &str,
        seen: &LeaseRow,
        next: &LeaseRow,
    ) -> Result<bool, IndexError> {
        leases::swap_lease(&self.pool, project, slug, seen, next).await
    }

    async fn swap_due(
        &self,
        project: &str,
        slug: &str,
        seen: i64,
        next: i64,
    ) -> Result<bool, IndexError> {
        leases::swap_due(&self.pool, project, slug, seen, next).await
    }

    async fn revision(&self, project: &str) -> Result<u64, IndexError> {
        rows::revision(&self.pool, project).await
    }

    async fn source_rows(&self, project: &str, source: &str) -> Result<Vec<FileRow>, IndexError> {
        rows::source_rows(&self.pool, project, source).await
    }

    async fn visit_source_files(
        &self,
        project: &str,
        source: &str,
        visit: &mut (dyn FnMut(StoredFile) + Send),
    ) -> Result<(), IndexError> {
        rows::visit_source_files(&self.pool, self.dialect, project, source, visit).await
    }

    async fn project_rows(&self, project: &str) -> Result<ProjectSnapshot, IndexError> {
        rows::project_rows(&self.pool, self.dialect, project).await
    }

    async fn project_pages(
        &self,
        project: &str,
        bounds: PageBounds,
    ) -> Result<RowPages, IndexError> {
        match &self.lister {
            Some(lister) => lister.pages(project, bounds).await,
            None => listing::any::pages(&self.pool, self.dialect, project, bounds).await,
        }
    }

    async fn changes_since(
        &self,
        project: &str,
        since: u64,
    ) -> Result<Option<ProjectChanges>, IndexError> {
        match &self.lister {
            Some(lister) => lister.changes_since(project, since).await,
            None => rows::changes_since(&self.pool, self.dialect, project, since).await,
        }
    }

    async fn prune_tombstones(&self, project: &str, keep: u64) -> Result<Pruned, IndexError> {
        tombstones::prune(&self.pool, self.dialect, project, keep).await
    }

    async fn file_row(
        &self,
        project: &str,
        source: &str,
        path: &str,
    ) -> Result<Option<FileRow>, IndexError> {
        rows::file_row(&self.pool, project, source, path).await
    }

    async fn write_batch(&self, batch: WriteBatch) -> Result<u64, IndexError> {
        match &self.writer {
            Some(writer) => writer.write(batch).await,
            None => write::write_batch(&self.pool, &batch).await,
        }
    }

    async fn search_text(
        &self,
        project: &str,
        query: &str,
        limit: u32,
    ) -> Result<Vec<ChunkHit>, IndexError> {
        match (&self.searcher, &self.postgres_search) {
            (Some(searcher), _) => search::embedded_text(searcher, project, query, limit).await,
            (None, Some(search)) => search.text(&self.pool, project, query, limit).await,
            (None, None) => Err(no_searcher()),
        }
    }

    async fn search_vector(
        &self,
        project: &str,
        vector: &[f32],
        limit: u32,
    ) -> Result<Vec<ChunkHit>, IndexError> {
        match (&self.searcher, &self.postgres_search) {
            (Some(searcher), _) => search::embedded_vector(searcher, project, vector, limit).await,
            (None, Some(search)) => search.nearest(&self.pool, project, vector, limit).await,
            (None, None) => Err(no_searcher()),
        }
    }
}

/// Each store is made with one searcher or the other; this cannot happen.
fn no_searcher() -> IndexError {
    IndexError::Backend("the store has no searcher".into())
}

/// A pool that timed out keeps no cause; one direct attempt tells a refused TLS
/// handshake (sslmode, sslrootcert) from a server that is down.
async fn why_unreachable(url: &str, error: IndexError) -> IndexError {
    use sqlx::Connection as _;
    if !matches!(&error, IndexError::Unavailable(message) if message.contains("timed out")) {
        return error;
    }
    match sqlx::AnyConnection::connect(url).await {
        Err(cause) => cause.into(),
        Ok(_) => error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_schema_names_pass() {
        for good in ["neuralis", "test_1", "a"] {
            assert!(validate_schema_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "1abc",
            "Upper",
            "a-b",
            "a\"; drop table x; --",
            &"x".repeat(64),
        ] {
            assert!(validate_schema_name(bad).is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn the_embedded_full_text_index_merges_sixty_four_segments_at_a_time() {
        let folder = tempfile::tempdir().expect("tempdir");
        let store = SqlIndexStore::open_embedded(&folder.path().join("index.db"))
            .await
            .expect("opens");
        for setting in ["automerge", "crisismerge"] {
            let value: i64 =
                sqlx::query_scalar("SELECT v FROM index_chunks_fts_config WHERE k = $1")
                    .bind(setting)
                    .fetch_one(&store.pool)
                    .await
                    .expect("the setting is stored");
            assert_eq!(value, 64, "{setting}");
        }
        store.close().await;
    }

    #[tokio::test]
    async fn the_page_cache_of_each_connection_is_the_configured_bytes() {
        let folder = tempfile::tempdir().expect("tempdir");
        for (bytes, kib) in [(3 * 1024 * 1024, -3072_i64), (0, -1), (1536, -1)] {
            let settings = EmbeddedSettings {
                page_cache_bytes: bytes,
            };
            let path = folder.path().join(format!("index-{bytes}.db"));
            let store = SqlIndexStore::open_embedded_with(&path, settings)
                .await
                .expect("opens");
            let cache: i64 = sqlx::query_scalar("PRAGMA cache_size")
                .fetch_one(&store.pool)
                .await
                .expect("reads the pragma");
            assert_eq!(cache, kib, "{bytes} bytes");
            store.close().await;
        }
        assert!(sqlite_pragmas(&EmbeddedSettings::default()).contains("cache_size = -8192;"));
    }

    #[test]
    fn url_syntax_in_a_path_is_escaped() {
        assert_eq!(percent_encode_path("/tmp/a?b#c%d"), "/tmp/a%3Fb%23c%25d");
    }
}
