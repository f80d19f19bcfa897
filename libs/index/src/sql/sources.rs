//! Persisted sources.

use super::codec::{self, source_columns};
use super::{Dialect, rows};
use crate::{IndexError, SourceRecord, SyncStatus};
use sqlx::AnyPool;

/// A project's sources are counted under this lock (PostgreSQL; SQLite's one writer
/// at a time already excludes another create): two creates at once would otherwise
/// both see room for one more.
const SOURCES_LOCK_PG: &str =
    "SELECT pg_advisory_xact_lock(hashtextextended('index-sources/' || CAST($1 AS TEXT), 0))";

/// Inserts `source` while its project holds fewer than `max_in_project` sources, in one
/// statement: the count and the insert are one step of the store's.
pub(crate) async fn create(
    pool: &AnyPool,
    dialect: Dialect,
    source: &SourceRecord,
    max_in_project: usize,
) -> Result<(), IndexError> {
    let statement = concat!(
        "INSERT INTO index_sources (",
        source_columns!(),
        ") SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15 \
         WHERE (SELECT COUNT(*) FROM index_sources WHERE project = $1) < $16 \
         ON CONFLICT DO NOTHING"
    );
    let max = i64::try_from(max_in_project).unwrap_or(i64::MAX);
    let mut tx = pool.begin().await?;
    if dialect == Dialect::Postgres {
        sqlx::query(SOURCES_LOCK_PG)
            .bind(&source.project)
            .execute(&mut *tx)
            .await?;
    }
    let inserted = sqlx::query(statement)
        .bind(&source.project)
        .bind(&source.slug)
        .bind(source.kind.as_str())
        .bind(&source.root)
        .bind(&source.machine_uri)
        .bind(source.scope.as_str())
        .bind(&source.owner)
        .bind(&source.trigger)
        .bind(codec::encode_patterns(&source.privacy_patterns))
        .bind(codec::encode_status(&source.status))
        .bind(source.created_at)
        .bind(source.updated_at)
        .bind(&source.id)
        .bind(codec::encode_patterns(&source.exclude_globs))
        .bind(i64::from(source.recognizes_packages))
        .bind(max)
        .execute(&mut *tx)
        .await?;
    if inserted.rows_affected() == 1 {
        tx.commit().await?;
        return Ok(());
    }
    // Nothing inserted: the project is full, or the slug (or, never in practice, the
    // id: 64 random bits) is taken.
    let (held,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM index_sources WHERE project = $1")
        .bind(&source.project)
        .fetch_one(&mut *tx)
        .await?;
    let held = usize::try_from(held).unwrap_or(usize::MAX);
    Err(crate::source::refused(held, source, max_in_project))
}

pub(crate) async fn get(
    pool: &AnyPool,
    project: &str,
    slug: &str,
) -> Result<Option<SourceRecord>, IndexError> {
    let statement = concat!(
        "SELECT ",
        source_columns!(),
        " FROM index_sources WHERE project = $1 AND slug = $2"
    );
    let row = sqlx::query(statement)
        .bind(project)
        .bind(slug)
        .fetch_optional(pool)
        .await?;
    row.as_ref().map(codec::source_record).transpose()
}

pub(crate) async fn list(
    pool: &AnyPool,
    project: Option<&str>,
) -> Result<Vec<SourceRecord>, IndexError> {
    let rows = match project {
        Some(project) => {
            let statement = concat!(
                "SELECT ",
                source_columns!(),
                " FROM index_sources WHERE project = $1 ORDER BY slug"
            );
            sqlx::query(statement).bind(project).fetch_all(pool).await?
        }
        None => {
            let statement = concat!(
                "SELECT ",
                source_columns!(),
                " FROM index_sources ORDER BY project, slug"
            );
            sqlx::query(statement).fetch_all(pool).await?
        }
    };
    rows.iter().map(codec::source_record).collect()
}

pub(crate) async fn update(pool: &AnyPool, source: &SourceRecord) -> Result<(), IndexError> {
    let updated = sqlx::query(
        "UPDATE index_sources SET kind = $3, root = $4, machine_uri = $5, scope = $6, \
         owner = $7, sync_trigger = $8, privacy_patterns = $9, updated_at = $10, \
         exclude_globs = $11, recognizes_packages = $12 \
         WHERE project = $1 AND slug = $2",
    )
    .bind(&source.project)
    .bind(&source.slug)
    .bind(source.kind.as_str())
    .bind(&source.root)
    .bind(&source.machine_uri)
    .bind(source.scope.as_str())
    .bind(&source.owner)
    .bind(&source.trigger)
    .bind(codec::encode_patterns(&source.privacy_patterns))
    .bind(source.updated_at)
    .bind(codec::encode_patterns(&source.exclude_globs))
    .bind(i64::from(source.recognizes_packages))
    .execute(pool)
    .await?;
    found(updated.rows_affected(), &source.project, &source.slug)
}

/// Records the status of the source record `(project, slug, source_id)`: only while the
/// slug still holds that record.
pub(crate) async fn record_status(
    pool: &AnyPool,
    (project, slug, source_id): (&str, &str, &str),
    status: &SyncStatus,
) -> Result<(), IndexError> {
    let updated = sqlx::query(
        "UPDATE index_sources SET status = $3 \
         WHERE project = $1 AND slug = $2 AND source_id = $4",
    )
    .bind(project)
    .bind(slug)
    .bind(codec::encode_status(status))
    .bind(source_id)
    .execute(pool)
    .await?;
    found(updated.rows_affected(), project, slug)
}

pub(crate) async fn delete(
    pool: &AnyPool,
    project: &str,
    slug: &str,
) -> Result<Option<u64>, IndexError> {
    let mut tx = pool.begin().await?;
    let removed = sqlx::query("DELETE FROM index_sources WHERE project = $1 AND slug = $2")
        .bind(project)
        .bind(slug)
        .execute(&mut *tx)
        .await?;
    found(removed.rows_affected(), project, slug)?;
    // A source created again under the slug starts with a free lease and a fresh schedule.
    sqlx::query("DELETE FROM index_leases WHERE project = $1 AND slug = $2")
        .bind(project)
        .bind(slug)
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM index_chunks WHERE project = $1 AND source = $2")
        .bind(project)
        .bind(slug)
        .execute(&mut *tx)
        .await?;
    let files = sqlx::query("DELETE FROM index_files WHERE project = $1 AND source = $2")
        .bind(project)
        .bind(slug)
        .execute(&mut *tx)
        .await?;
    let revision = if files.rows_affected() > 0 {
        let revision = rows::raise_revision(&mut tx, project).await?;
        // One tombstone stands for the whole source (the path `''`, which no file
        // has); its paths' own tombstones say nothing more.
        sqlx::query("DELETE FROM index_tombstones WHERE project = $1 AND source = $2")
            .bind(project)
            .bind(slug)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO index_tombstones (project, source, path, revision) \
             VALUES ($1, $2, '', $3)",
        )
        .bind(project)
        .bind(slug)
        .bind(codec::to_i64(revision, "revision")?)
        .execute(&mut *tx)
        .await?;
        Some(revision)
    } else {
        None
    };
    tx.commit().await?;
    Ok(revision)
}

fn found(affected: u64, project: &str, slug: &str) -> Result<(), IndexError> {
    if affected == 0 {
        Err(IndexError::NotFound(crate::source::described(
            project, slug,
        )))
    } else {
        Ok(())
    }
}
