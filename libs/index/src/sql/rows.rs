//! File rows, chunk rows and the project revision.

use super::Dialect;
use super::codec::{self, file_columns};
use crate::{FileRow, IndexError, ProjectSnapshot, StoredFile};
use futures::TryStreamExt;
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

/// Streams a source's rows in their comparison form; the payload column is read only
/// for rows that are not plain files.
pub(crate) async fn visit_source_files(
    pool: &AnyPool,
    project: &str,
    source: &str,
    visit: &mut (dyn FnMut(StoredFile) + Send),
) -> Result<(), IndexError> {
    let mut rows = sqlx::query(
        "SELECT path, size, modified, content_hash, payload_version, privacy_owner, \
         classification, CASE WHEN classification = 'file' THEN NULL ELSE payload END AS payload \
         FROM index_files WHERE project = $1 AND source = $2",
    )
    .bind(project)
    .bind(source)
    .fetch(pool);
    while let Some(row) = rows.try_next().await? {
        visit(codec::stored_file(&row)?);
    }
    Ok(())
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
