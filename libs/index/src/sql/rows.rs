//! File rows, chunk rows and the project revision.

use super::Dialect;
use super::codec::{self, StoredColumns, file_columns};
use crate::{FileRow, IndexError, ProjectChanges, ProjectSnapshot, Removed, StoredFile};
use sqlx::AnyPool;
use sqlx::any::Any;
use sqlx::{Executor, Transaction};

pub(crate) async fn revision(pool: &AnyPool, project: &str) -> Result<u64, IndexError> {
    read_revision(pool, project).await
}

async fn read_revision<'c, E>(executor: E, project: &str) -> Result<u64, IndexError>
where
    E: Executor<'c, Database = Any>,
{
    let revision: Option<i64> =
        sqlx::query_scalar("SELECT revision FROM index_projects WHERE project = $1")
            .bind(project)
            .fetch_optional(executor)
            .await?;
    codec::to_u64(revision.unwrap_or(0), "revision")
}

/// Raises the project's revision inside the write's transaction, so the revision and
/// the rows commit together (or not at all).
pub(crate) async fn raise_revision(
    tx: &mut Transaction<'_, Any>,
    project: &str,
) -> Result<u64, IndexError> {
    let revision: i64 = sqlx::query_scalar(
        "INSERT INTO index_projects (project, revision) VALUES ($1, 1) \
         ON CONFLICT (project) DO UPDATE SET revision = index_projects.revision + 1 \
         RETURNING revision",
    )
    .bind(project)
    .fetch_one(&mut **tx)
    .await?;
    codec::to_u64(revision, "revision")
}

pub(crate) async fn source_rows(
    pool: &AnyPool,
    project: &str,
    source: &str,
) -> Result<Vec<FileRow>, IndexError> {
    let statement = concat!(
        "SELECT ",
        file_columns!(),
        " FROM index_files WHERE project = $1 AND source = $2 ORDER BY path"
    );
    let rows = sqlx::query(statement)
        .bind(project)
        .bind(source)
        .fetch_all(pool)
        .await?;
    rows.iter().map(codec::file_row).collect()
}

/// Rows per page of [`visit_source_files`].
const ROWS_PER_PAGE: i64 = 5_000;

/// One page: the database encodes the rows as one JSON array (a row per element, the
/// columns in the order `StoredColumns` reads them), so a page crosses the driver as
/// one value instead of thousands of rows of decoded columns. The payload is read only
/// for rows that are not plain files.
const SQLITE_PAGE: &str = "SELECT json_group_array(json_array(path, size, modified, \
     content_hash, payload_version, privacy_owner, \
     CASE WHEN classification = 'file' THEN NULL ELSE payload END, real_path)) \
     FROM (SELECT * FROM index_files WHERE project = $1 AND source = $2 AND path > $3 \
     ORDER BY path LIMIT $4)";
const POSTGRES_PAGE: &str = "SELECT CAST(json_agg(json_build_array(path, size, modified, \
     content_hash, payload_version, privacy_owner, \
     CASE WHEN classification = 'file' THEN NULL ELSE payload END, real_path) ORDER BY path) \
     AS TEXT) \
     FROM (SELECT * FROM index_files WHERE project = $1 AND source = $2 AND path > $3 \
     ORDER BY path LIMIT $4) AS page";

/// Streams a source's rows in their comparison form, a page at a time (keyset pages in
/// path order), so neither side holds the whole source.
pub(crate) async fn visit_source_files(
    pool: &AnyPool,
    dialect: Dialect,
    project: &str,
    source: &str,
    visit: &mut (dyn FnMut(StoredFile) + Send),
) -> Result<(), IndexError> {
    let statement = match dialect {
        Dialect::Sqlite => SQLITE_PAGE,
        Dialect::Postgres => POSTGRES_PAGE,
    };
    let mut after = String::new();
    loop {
        let page: Option<String> = sqlx::query_scalar(statement)
            .bind(project)
            .bind(source)
            .bind(after.as_str())
            .bind(ROWS_PER_PAGE)
            .fetch_one(pool)
            .await?;
        let rows: Vec<StoredColumns> = match page {
            Some(text) => serde_json::from_str(&text)
                .map_err(|err| codec::corrupt("page", err.to_string()))?,
            None => Vec::new(),
        };
        let full = rows.len() as i64 == ROWS_PER_PAGE;
        // The next page starts after this page's greatest path: in byte order on SQLite
        // (its `BINARY` collation), and on PostgreSQL the last of the aggregate's own
        // `ORDER BY`, which follows the column's collation.
        let greatest = match dialect {
            Dialect::Sqlite => rows.iter().map(|row| &row.0).max(),
            Dialect::Postgres => rows.last().map(|row| &row.0),
        };
        if let Some(greatest) = greatest {
            after.clone_from(greatest);
        }
        for row in rows {
            visit(codec::stored_file(row)?);
        }
        if !full {
            return Ok(());
        }
    }
}

/// Reads the revision and the rows in one transaction: on PostgreSQL at REPEATABLE READ,
/// on SQLite a read transaction (one WAL snapshot), so the rows are exactly those of
/// the revision returned.
pub(crate) async fn project_rows(
    pool: &AnyPool,
    dialect: Dialect,
    project: &str,
) -> Result<ProjectSnapshot, IndexError> {
    let mut tx = pool.begin().await?;
    if dialect == Dialect::Postgres {
        sqlx::raw_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .execute(&mut *tx)
            .await?;
    }
    let revision = read_revision(&mut *tx, project).await?;
    let statement = concat!(
        "SELECT ",
        file_columns!(),
        " FROM index_files WHERE project = $1 ORDER BY source, path"
    );
    let rows = sqlx::query(statement)
        .bind(project)
        .fetch_all(&mut *tx)
        .await?;
    tx.commit().await?;
    let rows = rows.iter().map(codec::file_row).collect::<Result<_, _>>()?;
    Ok(ProjectSnapshot { revision, rows })
}

pub(crate) async fn file_row(
    pool: &AnyPool,
    project: &str,
    source: &str,
    path: &str,
) -> Result<Option<FileRow>, IndexError> {
    let statement = concat!(
        "SELECT ",
        file_columns!(),
        " FROM index_files WHERE project = $1 AND source = $2 AND path = $3"
    );
    let row = sqlx::query(statement)
        .bind(project)
        .bind(source)
        .bind(path)
        .fetch_optional(pool)
        .await?;
    row.as_ref().map(codec::file_row).transpose()
}

/// The rows changed since `since`, tombstones included, read in one snapshot (as
/// [`project_rows`]); `None` when the index cannot tell (`since` is older than the
/// project's delta floor, or newer than its revision: the caller re-reads in full).
/// A project's revision and the oldest revision a delta can start from.
pub(crate) const REVISION_AND_FLOOR: &str =
    "SELECT revision, delta_floor FROM index_projects WHERE project = $1";

/// Every row written after revision `$2`, as it is now.
pub(crate) const CHANGED_ROWS: &str = concat!(
    "SELECT ",
    file_columns!(),
    " FROM index_files WHERE project = $1 AND revision > $2 ORDER BY source, path"
);

/// Every path deleted after revision `$2` and still gone: a path deleted and written
/// again is a row, not a tombstone.
pub(crate) const REMOVED_SINCE: &str = "SELECT t.source, t.path FROM index_tombstones t \
     WHERE t.project = $1 AND t.revision > $2 AND NOT EXISTS (SELECT 1 FROM index_files f \
     WHERE f.project = t.project AND f.source = t.source AND f.path = t.path) \
     ORDER BY t.source, t.path";

/// Whether a delta can start at `since`: not before the floor (older tombstones are
/// pruned), not after the revision.
pub(crate) fn delta_reaches(since: u64, (revision, floor): (i64, i64)) -> Result<bool, IndexError> {
    let revision = codec::to_u64(revision, "revision")?;
    let floor = codec::to_u64(floor, "delta_floor")?;
    Ok(since >= floor && since <= revision)
}

/// The tombstones of a delta: an empty path stands for the whole source.
pub(crate) fn removed(rows: Vec<(String, String)>) -> Vec<Removed> {
    rows.into_iter()
        .map(|(source, path)| {
            if path.is_empty() {
                Removed::Source { source }
            } else {
                Removed::File { source, path }
            }
        })
        .collect()
}

pub(crate) async fn changes_since(
    pool: &AnyPool,
    dialect: Dialect,
    project: &str,
    since: u64,
) -> Result<Option<ProjectChanges>, IndexError> {
    let mut tx = pool.begin().await?;
    if dialect == Dialect::Postgres {
        sqlx::raw_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .execute(&mut *tx)
            .await?;
    }
    let found: Option<(i64, i64)> = sqlx::query_as(REVISION_AND_FLOOR)
        .bind(project)
        .fetch_optional(&mut *tx)
        .await?;
    let found = found.unwrap_or((0, 0));
    if !delta_reaches(since, found)? {
        tx.commit().await?;
        return Ok(None);
    }
    let after = codec::to_i64(since, "revision")?;
    let rows = sqlx::query(CHANGED_ROWS)
        .bind(project)
        .bind(after)
        .fetch_all(&mut *tx)
        .await?;
    let removed_rows: Vec<(String, String)> = sqlx::query_as(REMOVED_SINCE)
        .bind(project)
        .bind(after)
        .fetch_all(&mut *tx)
        .await?;
    tx.commit().await?;
    let rows = rows.iter().map(codec::file_row).collect::<Result<_, _>>()?;
    Ok(Some(ProjectChanges {
        since,
        revision: codec::to_u64(found.0, "revision")?,
        rows,
        removed: removed(removed_rows),
    }))
}
