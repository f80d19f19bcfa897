//! Migrations, applied at start. Each version runs once, in a transaction; on
//! PostgreSQL an advisory lock keeps replicas that start together from racing.

use super::Dialect;
use crate::IndexError;
use sqlx::AnyPool;

/// Arbitrary, fixed: the advisory lock id of index migrations.
const MIGRATION_LOCK: i64 = 0x6e65_7572_616c;

const FILES_AND_PROJECTS: &str = "
CREATE TABLE IF NOT EXISTS index_projects (
    project TEXT PRIMARY KEY,
    revision BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS index_sources (
    project TEXT NOT NULL,
    slug TEXT NOT NULL,
    kind TEXT NOT NULL,
    root TEXT NOT NULL,
    machine_uri TEXT,
    scope TEXT NOT NULL,
    owner TEXT,
    sync_trigger TEXT NOT NULL,
    privacy_patterns TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (project, slug)
);
CREATE TABLE IF NOT EXISTS index_files (
    project TEXT NOT NULL,
    source TEXT NOT NULL,
    path TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    size BIGINT NOT NULL,
    modified BIGINT NOT NULL,
    classification TEXT NOT NULL,
    payload TEXT NOT NULL,
    usable_manifest BIGINT NOT NULL,
    privacy_owner TEXT,
    payload_version BIGINT NOT NULL,
    PRIMARY KEY (project, source, path)
);
";

const SQLITE_CHUNKS: &str = "
CREATE TABLE IF NOT EXISTS index_chunks (
    project TEXT NOT NULL,
    source TEXT NOT NULL,
    path TEXT NOT NULL,
    ordinal BIGINT NOT NULL,
    body TEXT NOT NULL,
    vector BLOB,
    PRIMARY KEY (project, source, path, ordinal)
);
CREATE VIRTUAL TABLE IF NOT EXISTS index_chunks_fts USING fts5(
    body, project UNINDEXED, source UNINDEXED, path UNINDEXED, ordinal UNINDEXED,
    content = 'index_chunks', content_rowid = 'rowid'
);
CREATE TRIGGER IF NOT EXISTS index_chunks_fts_insert AFTER INSERT ON index_chunks BEGIN
    INSERT INTO index_chunks_fts (rowid, body, project, source, path, ordinal)
    VALUES (new.rowid, new.body, new.project, new.source, new.path, new.ordinal);
END;
CREATE TRIGGER IF NOT EXISTS index_chunks_fts_delete AFTER DELETE ON index_chunks BEGIN
    INSERT INTO index_chunks_fts (index_chunks_fts, rowid, body, project, source, path, ordinal)
    VALUES ('delete', old.rowid, old.body, old.project, old.source, old.path, old.ordinal);
END;
";

const POSTGRES_CHUNKS: &str = "
CREATE TABLE IF NOT EXISTS index_chunks (
    project TEXT NOT NULL,
    source TEXT NOT NULL,
    path TEXT NOT NULL,
    ordinal BIGINT NOT NULL,
    body TEXT NOT NULL,
    vector BYTEA,
    PRIMARY KEY (project, source, path, ordinal)
);
CREATE INDEX IF NOT EXISTS index_chunks_fts ON index_chunks
    USING GIN (to_tsvector('simple', body));
";

/// SQLite: chunk rows reach the full-text index by one statement per batch, not by a
/// trigger per row. FTS5 flushes its pending terms at every statement of a transaction
/// once it takes part in it, so a trigger made each insert statement write a small
/// segment, and the segments then had to be merged (about a fifth of a full sync's
/// work). Deletes keep their trigger: they are rare, and a source's deletion relies on it.
const SQLITE_BULK_FULL_TEXT: &str = "DROP TRIGGER IF EXISTS index_chunks_fts_insert;";

/// Source ids that are never reused, and the real path of a file reached through an
/// in-root symlink. A source stored before this migration keeps the id access control
/// already knows it by, `<project>/<slug>`, so its policy, switch, package states and
/// overrides stay attached across the upgrade; it is still never reused, because every
/// id made after this migration ends in `.<16 hex>` (a source deleted and created again
/// gets a new one).
const SQLITE_IDS_AND_REAL_PATHS: &str = "
ALTER TABLE index_sources ADD COLUMN source_id TEXT;
UPDATE index_sources SET source_id = project || '/' || slug WHERE source_id IS NULL;
CREATE UNIQUE INDEX IF NOT EXISTS index_sources_id ON index_sources (source_id);
ALTER TABLE index_files ADD COLUMN real_path TEXT;
";

const POSTGRES_IDS_AND_REAL_PATHS: &str = "
ALTER TABLE index_sources ADD COLUMN IF NOT EXISTS source_id TEXT;
UPDATE index_sources SET source_id = project || '/' || slug WHERE source_id IS NULL;
CREATE UNIQUE INDEX IF NOT EXISTS index_sources_id ON index_sources (source_id);
ALTER TABLE index_files ADD COLUMN IF NOT EXISTS real_path TEXT;
";

/// Deltas (DESIGN.md section 3: "rows changed since revision R"): every file row
/// remembers the revision that last wrote it, every deleted path (and every deleted
/// source, as the path `''`) leaves a tombstone at the revision that deleted it, and
/// `delta_floor` is the oldest revision a delta can start from. Rows written before
/// this migration carry revision 0 and no tombstone records their deletes, so the floor
/// starts at the revision each project has now: an older reader gets a full re-read.
const SQLITE_DELTAS: &str = "
ALTER TABLE index_files ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
ALTER TABLE index_projects ADD COLUMN delta_floor BIGINT NOT NULL DEFAULT 0;
UPDATE index_projects SET delta_floor = revision;
CREATE INDEX IF NOT EXISTS index_files_revision ON index_files (project, revision);
CREATE TABLE IF NOT EXISTS index_tombstones (
    project TEXT NOT NULL,
    source TEXT NOT NULL,
    path TEXT NOT NULL,
    revision BIGINT NOT NULL,
    PRIMARY KEY (project, source, path)
);
";

const POSTGRES_DELTAS: &str = "
ALTER TABLE index_files ADD COLUMN IF NOT EXISTS revision BIGINT NOT NULL DEFAULT 0;
ALTER TABLE index_projects ADD COLUMN IF NOT EXISTS delta_floor BIGINT NOT NULL DEFAULT 0;
UPDATE index_projects SET delta_floor = revision;
CREATE INDEX IF NOT EXISTS index_files_revision ON index_files (project, revision);
CREATE TABLE IF NOT EXISTS index_tombstones (
    project TEXT NOT NULL,
    source TEXT NOT NULL,
    path TEXT NOT NULL,
    revision BIGINT NOT NULL,
    PRIMARY KEY (project, source, path)
);
";

/// Content flags at index time (issue 10 item 6): the flags `neuralis-content-flags`
/// found in a file at its last read, names joined by commas. Every row is marked for a
/// payload-only refresh (payload version 0, which no capture writes), so the next
/// regular sync reads the files the flags apply to and stores theirs (seed 000: "Files
/// that were already indexed before a metadata field existed pick it up through a
/// payload-only refresh on the next regular sync").
const SQLITE_CONTENT_FLAGS: &str = "
ALTER TABLE index_files ADD COLUMN content_flags TEXT NOT NULL DEFAULT '';
UPDATE index_files SET payload_version = 0;
";

const POSTGRES_CONTENT_FLAGS: &str = "
ALTER TABLE index_files ADD COLUMN IF NOT EXISTS content_flags TEXT NOT NULL DEFAULT '';
UPDATE index_files SET payload_version = 0;
";

/// SQLite: the full-text index merges its segments 16 at a time instead of FTS5's default
/// 4. Every committed batch writes one segment, and with the default each chunk's
/// terms were rewritten about log4(batches) times over a large sync: the merges were a
/// fifth of SQLite's instructions in a 100,000-file first sync, a quarter of that at
/// 16 (`BENCHMARKS.md`). Search answers do not depend on how the index is segmented
/// (bm25 reads per-document statistics); a query reads at most 15 segments per level
/// instead of 3, a cost paid per query term, not per row. The setting is stored in the
/// index itself (its config table), so every connection follows it.
const SQLITE_FULL_TEXT_MERGES: &str =
    "INSERT INTO index_chunks_fts (index_chunks_fts, rank) VALUES ('automerge', 16);";

/// SQLite: segments are merged 64 at a time, by the incremental merge and by the crisis
/// merge alike (FTS5's crisis merge, at 16 segments by default, merged a whole level at
/// once whatever `automerge` said). A sync commits one segment per batch, so a first
/// sync of 100,000 files (about 50 batches) rewrote every term of three quarters of its
/// segments once more before it finished: an eighth of the writer's instructions
/// (callgrind, `BENCHMARKS.md`, "Issue 13"). At 64 a term is rewritten once per 64-fold
/// growth of the index instead of 16-fold, so the index does less work in all, not the
/// same work later; what it costs is a query reading up to 63 segments per level (one
/// B-tree seek each per query term). Search answers do not depend on the segmenting.
const SQLITE_WIDER_MERGES: &str = "INSERT INTO index_chunks_fts (index_chunks_fts, rank) VALUES ('automerge', 64); \
     INSERT INTO index_chunks_fts (index_chunks_fts, rank) VALUES ('crisismerge', 64);";

/// Sync replicas that take turns (issue 26 item 1): per source, the lease of the replica
/// running it (holder `''` when free) and when its `interval:` trigger is due next (`0`:
/// never scheduled). Additive: a release before it never reads the table. The same
/// text on both backends.
const SOURCE_LEASES: &str = "
CREATE TABLE IF NOT EXISTS index_leases (
    project TEXT NOT NULL,
    slug TEXT NOT NULL,
    holder TEXT NOT NULL DEFAULT '',
    expires_at BIGINT NOT NULL DEFAULT 0,
    next_due BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (project, slug)
);
";

/// A source's exclude globs (seed 002, "machineWritten": a new data source "leaves the
/// metrics files out of its index from the start"), a JSON list like the privacy
/// patterns, and whether a local source is also a package source (seed 000,
/// `recognizesPackages`, 0 or 1). Additive: a release before it never reads the columns,
/// and every source stored before it excludes nothing more and recognizes no package.
const SQLITE_EXCLUDE_GLOBS: &str = "ALTER TABLE index_sources ADD COLUMN exclude_globs TEXT NOT NULL DEFAULT '[]'; \
     ALTER TABLE index_sources ADD COLUMN recognizes_packages BIGINT NOT NULL DEFAULT 0;";

const POSTGRES_EXCLUDE_GLOBS: &str = "ALTER TABLE index_sources ADD COLUMN IF NOT EXISTS exclude_globs TEXT NOT NULL DEFAULT '[]'; \
     ALTER TABLE index_sources ADD COLUMN IF NOT EXISTS recognizes_packages BIGINT NOT NULL DEFAULT 0;";

/// The migrations of one dialect, in order: (version, statements).
fn migrations(dialect: Dialect) -> [(i64, &'static str); 10] {
    let (chunks, full_text, ids, deltas, flags, merges, wider_merges) = match dialect {
        Dialect::Sqlite => (
            SQLITE_CHUNKS,
            SQLITE_BULK_FULL_TEXT,
            SQLITE_IDS_AND_REAL_PATHS,
            SQLITE_DELTAS,
            SQLITE_CONTENT_FLAGS,
            SQLITE_FULL_TEXT_MERGES,
            SQLITE_WIDER_MERGES,
        ),
        // Nothing to change: the GIN index follows the rows.
        Dialect::Postgres => (
            POSTGRES_CHUNKS,
            "SELECT 1;",
            POSTGRES_IDS_AND_REAL_PATHS,
            POSTGRES_DELTAS,
            POSTGRES_CONTENT_FLAGS,
            "SELECT 1;",
            "SELECT 1;",
        ),
    };
    [
        (1, FILES_AND_PROJECTS),
        (2, chunks),
        (3, full_text),
        (4, ids),
        (5, deltas),
        (6, flags),
        (7, merges),
        (8, wider_merges),
        (9, SOURCE_LEASES),
        (
            10,
            match dialect {
                Dialect::Sqlite => SQLITE_EXCLUDE_GLOBS,
                Dialect::Postgres => POSTGRES_EXCLUDE_GLOBS,
            },
        ),
    ]
}

/// Migrations the release before the one that shipped it does not survive (DESIGN: a
/// contract step). Every other version is an expand step, marked compatible in the store
/// when applied, so that release can be rolled back to. A new migration is compatible
/// unless listed here, and a contract step ships one release after the code stopped
/// needing what it removes (docs/upgrading.md).
const INCOMPATIBLE: [i64; 3] = [
    // The first schema: there was no release before it.
    1,
    // SQLite: chunk rows reach the full-text index by statement, not trigger; a release
    // before it would write chunks search cannot find.
    3, // Deltas: a release before it writes no tombstones and no revisions.
    5,
];

fn known(dialect: Dialect) -> Vec<neuralis_schema::Known> {
    migrations(dialect)
        .iter()
        .map(|(version, _)| neuralis_schema::Known {
            version: *version,
            compatible: !INCOMPATIBLE.contains(version),
        })
        .collect()
}

/// Applies the missing migrations (`Mode::Apply`), or checks that none is missing
/// (`Mode::Check`); either way refuses a store holding a later release's migration not
/// marked compatible. `schema` (PostgreSQL only, already validated as a plain
/// identifier) is created under the same lock, so replicas never race on it.
pub(crate) async fn migrate(
    pool: &AnyPool,
    dialect: Dialect,
    schema: Option<&str>,
    mode: neuralis_schema::Mode,
) -> Result<(), IndexError> {
    if mode == neuralis_schema::Mode::Check {
        let applied = applied(pool).await?;
        neuralis_schema::plan(&known(dialect), &applied, mode).map_err(refused)?;
        return Ok(());
    }
    let mut tx = pool.begin().await?;
    if dialect == Dialect::Postgres {
        // The lock function returns `void`, which the Any driver cannot carry: wrap it.
        sqlx::query("SELECT 1 FROM (SELECT pg_advisory_xact_lock($1)) AS locked")
            .bind(MIGRATION_LOCK)
            .execute(&mut *tx)
            .await?;
    }
    if let Some(schema) = schema {
        let create = format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\"");
        sqlx::raw_sql(sqlx::AssertSqlSafe(create))
            .execute(&mut *tx)
            .await?;
    }
    sqlx::raw_sql(BOOKKEEPING).execute(&mut *tx).await?;
    let applied = applied_in(&mut tx).await?;
    let known = known(dialect);
    let plan = neuralis_schema::plan(&known, &applied, mode).map_err(refused)?;
    let statements = migrations(dialect);
    for version in plan.apply {
        let Some((_, sql)) = statements.iter().find(|(v, _)| *v == version) else {
            continue;
        };
        sqlx::raw_sql(*sql).execute(&mut *tx).await?;
        sqlx::query("INSERT INTO index_migrations (version) VALUES ($1)")
            .bind(version)
            .execute(&mut *tx)
            .await?;
        if known.iter().any(|k| k.version == version && k.compatible) {
            sqlx::query("INSERT INTO index_migrations_compatible (version) VALUES ($1)")
                .bind(version)
                .execute(&mut *tx)
                .await?;
        }
        tracing::info!(version, "index migration applied");
    }
    tx.commit().await?;
    Ok(())
}

/// The migrations table, and beside it the versions marked compatible with the release
/// before theirs (a table of its own: a release that predates it reads the first
/// unchanged).
const BOOKKEEPING: &str = "CREATE TABLE IF NOT EXISTS index_migrations (version BIGINT PRIMARY KEY); \
     CREATE TABLE IF NOT EXISTS index_migrations_compatible (version BIGINT PRIMARY KEY);";

async fn applied_in(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
) -> Result<Vec<neuralis_schema::Applied>, IndexError> {
    let versions: Vec<i64> = sqlx::query_scalar("SELECT version FROM index_migrations")
        .fetch_all(&mut **tx)
        .await?;
    let marked: Vec<i64> = sqlx::query_scalar("SELECT version FROM index_migrations_compatible")
        .fetch_all(&mut **tx)
        .await?;
    Ok(versions
        .into_iter()
        .map(|version| neuralis_schema::Applied {
            version,
            compatible: marked.contains(&version),
        })
        .collect())
}

/// What the store holds, read without changing it: nothing when it has no tables yet.
async fn applied(pool: &AnyPool) -> Result<Vec<neuralis_schema::Applied>, IndexError> {
    let versions = versions_in(pool, "SELECT version FROM index_migrations").await?;
    let marked = versions_in(pool, "SELECT version FROM index_migrations_compatible").await?;
    Ok(versions
        .into_iter()
        .map(|version| neuralis_schema::Applied {
            version,
            compatible: marked.contains(&version),
        })
        .collect())
}

/// The versions a bookkeeping table lists; none when the table does not exist yet (the
/// database answers with an error of its own), unavailable when the database does not
/// answer at all.
async fn versions_in(pool: &AnyPool, query: &'static str) -> Result<Vec<i64>, IndexError> {
    match sqlx::query_scalar(query).fetch_all(pool).await {
        Ok(versions) => Ok(versions),
        Err(sqlx::Error::Database(_)) => Ok(Vec::new()),
        Err(other) => Err(other.into()),
    }
}

/// Every version the store or this release knows, with its state (`neuralis migrate
/// status`).
pub(crate) async fn status(
    pool: &AnyPool,
    dialect: Dialect,
) -> Result<Vec<(i64, neuralis_schema::State)>, IndexError> {
    Ok(status_of(dialect, &applied(pool).await?))
}

/// Every version this release knows or `applied` lists, with its state.
pub(crate) fn status_of(
    dialect: Dialect,
    applied: &[neuralis_schema::Applied],
) -> Vec<(i64, neuralis_schema::State)> {
    neuralis_schema::status(&known(dialect), applied)
}

fn refused(refusal: neuralis_schema::Refusal) -> IndexError {
    IndexError::Schema(refusal.to_string())
}
