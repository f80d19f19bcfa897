//! File rows, chunk rows and the project revision.

use super::Dialect;
use super::codec::{self, file_columns};
use crate::{ChunkRow, FileRow, IndexError, ProjectSnapshot, RowWrite, WriteBatch, vector};
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

pub(crate) async fn write_batch(pool: &AnyPool, batch: &WriteBatch) -> Result<u64, IndexError> {
    let mut tx = pool.begin().await?;
    for write in &batch.writes {
        match write {
            RowWrite::Put { row, chunks } => {
                check_belongs(batch, row)?;
                put_row(&mut tx, row).await?;
                if let Some(chunks) = chunks {
                    replace_chunks(&mut tx, batch, &row.path, chunks).await?;
                }
            }
            RowWrite::Delete { path } => delete_row(&mut tx, batch, path).await?,
        }
    }
    let revision = raise_revision(&mut tx, &batch.project).await?;
    tx.commit().await?;
    Ok(revision)
}

/// A batch writes one source of one project; a row of another would raise the wrong
/// project's revision.
fn check_belongs(batch: &WriteBatch, row: &FileRow) -> Result<(), IndexError> {
    if row.project == batch.project && row.source == batch.source {
        Ok(())
    } else {
        Err(IndexError::InvalidValue {
            field: "row.source",
            message: format!(
                "row {:?} of {}/{} in a batch for {}/{}",
                row.path, row.project, row.source, batch.project, batch.source
            ),
        })
    }
}

async fn put_row(tx: &mut Transaction<'_, Any>, row: &FileRow) -> Result<(), IndexError> {
    let statement = concat!(
        "INSERT INTO index_files (",
        file_columns!(),
        ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
         ON CONFLICT (project, source, path) DO UPDATE SET \
         content_hash = excluded.content_hash, size = excluded.size, \
         modified = excluded.modified, classification = excluded.classification, \
         payload = excluded.payload, usable_manifest = excluded.usable_manifest, \
         privacy_owner = excluded.privacy_owner, payload_version = excluded.payload_version"
    );
    sqlx::query(statement)
        .bind(&row.project)
        .bind(&row.source)
        .bind(&row.path)
        .bind(&row.content_hash)
        .bind(codec::to_i64(row.size, "size")?)
        .bind(row.modified)
        .bind(&row.classification)
        .bind(row.payload.to_string())
        .bind(i64::from(row.usable_manifest))
        .bind(&row.privacy_owner)
        .bind(i64::from(row.payload_version))
        .execute(&mut **tx)
        .await?;
    Ok(())
}

async fn replace_chunks(
    tx: &mut Transaction<'_, Any>,
    batch: &WriteBatch,
    path: &str,
    chunks: &[ChunkRow],
) -> Result<(), IndexError> {
    delete_chunks(tx, batch, path).await?;
    for chunk in chunks {
        sqlx::query(
            "INSERT INTO index_chunks (project, source, path, ordinal, body, vector) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&batch.project)
        .bind(&batch.source)
        .bind(path)
        .bind(i64::from(chunk.ordinal))
        .bind(&chunk.body)
        .bind(chunk.vector.as_deref().map(vector::to_bytes))
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

async fn delete_chunks(
    tx: &mut Transaction<'_, Any>,
    batch: &WriteBatch,
    path: &str,
) -> Result<(), IndexError> {
    sqlx::query("DELETE FROM index_chunks WHERE project = $1 AND source = $2 AND path = $3")
        .bind(&batch.project)
        .bind(&batch.source)
        .bind(path)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

async fn delete_row(
    tx: &mut Transaction<'_, Any>,
    batch: &WriteBatch,
    path: &str,
) -> Result<(), IndexError> {
    delete_chunks(tx, batch, path).await?;
    sqlx::query("DELETE FROM index_files WHERE project = $1 AND source = $2 AND path = $3")
        .bind(&batch.project)
        .bind(&batch.source)
        .bind(path)
        .execute(&mut **tx)
        .await?;
    Ok(())
}
