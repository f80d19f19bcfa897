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

/// Applies a batch with a few multi-row statements: chunk deletes, row deletes, row
/// upserts, chunk inserts, then the revision. Each path appears at most once, so the
/// grouping cannot reorder two writes of one path.
pub(crate) async fn write_batch(pool: &AnyPool, batch: &WriteBatch) -> Result<u64, IndexError> {
    let writes = BatchWrites::of(batch)?;
    let mut tx = pool.begin().await?;
    let scope = [batch.project.as_str(), batch.source.as_str()];
    for paths in writes.chunk_replacing.chunks(PATHS_PER_STATEMENT) {
        delete_where_path_in(&mut tx, "index_chunks", scope, paths).await?;
    }
    for paths in writes.deleted.chunks(PATHS_PER_STATEMENT) {
        delete_where_path_in(&mut tx, "index_files", scope, paths).await?;
    }
    for rows in writes.rows.chunks(ROWS_PER_STATEMENT) {
        upsert_rows(&mut tx, rows).await?;
    }
    for chunks in writes.chunks.chunks(CHUNKS_PER_STATEMENT) {
        insert_chunks(&mut tx, scope, chunks).await?;
    }
    let revision = raise_revision(&mut tx, &batch.project).await?;
    tx.commit().await?;
    Ok(revision)
}

/// Rows per upsert statement (11 parameters each).
const ROWS_PER_STATEMENT: usize = 200;
/// Chunks per insert statement (5 parameters each).
const CHUNKS_PER_STATEMENT: usize = 400;
/// Paths per delete statement.
const PATHS_PER_STATEMENT: usize = 500;

/// A batch sorted into what each statement needs.
struct BatchWrites<'a> {
    rows: Vec<&'a FileRow>,
    chunks: Vec<(&'a str, &'a ChunkRow)>,
    chunk_replacing: Vec<&'a str>,
    deleted: Vec<&'a str>,
}

impl<'a> BatchWrites<'a> {
    fn of(batch: &'a WriteBatch) -> Result<Self, IndexError> {
        let mut seen = std::collections::HashSet::new();
        let mut writes = BatchWrites {
            rows: Vec::new(),
            chunks: Vec::new(),
            chunk_replacing: Vec::new(),
            deleted: Vec::new(),
        };
        for write in &batch.writes {
            let path = match write {
                RowWrite::Put { row, .. } => row.path.as_str(),
                RowWrite::Delete { path } => path.as_str(),
            };
            if !seen.insert(path) {
                return Err(IndexError::InvalidValue {
                    field: "batch.writes",
                    message: format!("{path:?} is written twice in one batch"),
                });
            }
            writes.add(batch, write)?;
        }
        Ok(writes)
    }

    fn add(&mut self, batch: &WriteBatch, write: &'a RowWrite) -> Result<(), IndexError> {
        match write {
            RowWrite::Put { row, chunks } => {
                check_belongs(batch, row)?;
                self.rows.push(row);
                if let Some(chunks) = chunks {
                    self.chunk_replacing.push(&row.path);
                    self.chunks
                        .extend(chunks.iter().map(|chunk| (row.path.as_str(), chunk)));
                }
            }
            RowWrite::Delete { path } => {
                self.chunk_replacing.push(path);
                self.deleted.push(path);
            }
        }
        Ok(())
    }
}

/// `($first, $first+1, ..)` groups for `rows` rows of `width` parameters from `$first`.
fn placeholders(rows: usize, width: usize, first: usize) -> String {
    (0..rows)
        .map(|row| {
            let start = first + row * width;
            let params: Vec<String> = (start..start + width).map(|n| format!("${n}")).collect();
            format!("({})", params.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

async fn delete_where_path_in(
    tx: &mut Transaction<'_, Any>,
    table: &'static str,
    [project, source]: [&str; 2],
    paths: &[&str],
) -> Result<(), IndexError> {
    let list: Vec<String> = (3..3 + paths.len()).map(|n| format!("${n}")).collect();
    // Audited: only the fixed table name and generated placeholders enter the text.
    let statement = format!(
        "DELETE FROM {table} WHERE project = $1 AND source = $2 AND path IN ({})",
        list.join(", ")
    );
    let mut query = sqlx::query(sqlx::AssertSqlSafe(statement))
        .bind(project)
        .bind(source);
    for path in paths {
        query = query.bind(*path);
    }
    query.execute(&mut **tx).await?;
    Ok(())
}

async fn upsert_rows(tx: &mut Transaction<'_, Any>, rows: &[&FileRow]) -> Result<(), IndexError> {
    // Audited: only generated placeholders enter the text.
    let statement = format!(
        "INSERT INTO index_files ({}) VALUES {} \
         ON CONFLICT (project, source, path) DO UPDATE SET \
         content_hash = excluded.content_hash, size = excluded.size, \
         modified = excluded.modified, classification = excluded.classification, \
         payload = excluded.payload, usable_manifest = excluded.usable_manifest, \
         privacy_owner = excluded.privacy_owner, payload_version = excluded.payload_version",
        file_columns!(),
        placeholders(rows.len(), 11, 1)
    );
    let mut query = sqlx::query(sqlx::AssertSqlSafe(statement));
    for row in rows {
        query = query
            .bind(row.project.clone())
            .bind(row.source.clone())
            .bind(row.path.clone())
            .bind(row.content_hash.clone())
            .bind(codec::to_i64(row.size, "size")?)
            .bind(row.modified)
            .bind(row.classification.clone())
            .bind(row.payload.to_string())
            .bind(i64::from(row.usable_manifest))
            .bind(row.privacy_owner.clone())
            .bind(i64::from(row.payload_version));
    }
    query.execute(&mut **tx).await?;
    Ok(())
}

async fn insert_chunks(
    tx: &mut Transaction<'_, Any>,
    [project, source]: [&str; 2],
    chunks: &[(&str, &ChunkRow)],
) -> Result<(), IndexError> {
    // Audited: only generated placeholders enter the text.
    let statement = format!(
        "INSERT INTO index_chunks (project, source, path, ordinal, body, vector) VALUES {}",
        (0..chunks.len())
            .map(|at| {
                let base = 3 + at * 4;
                format!(
                    "($1, $2, ${}, ${}, ${}, ${})",
                    base,
                    base + 1,
                    base + 2,
                    base + 3
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut query = sqlx::query(sqlx::AssertSqlSafe(statement))
        .bind(project)
        .bind(source);
    for (path, chunk) in chunks {
        query = query
            .bind(*path)
            .bind(i64::from(chunk.ordinal))
            .bind(chunk.body.clone())
            .bind(chunk.vector.as_deref().map(vector::to_bytes));
    }
    query.execute(&mut **tx).await?;
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::placeholders;

    #[test]
    fn placeholders_number_every_parameter_once_in_order() {
        assert_eq!(placeholders(2, 3, 1), "($1, $2, $3), ($4, $5, $6)");
        assert_eq!(placeholders(1, 2, 3), "($3, $4)");
        assert_eq!(placeholders(0, 2, 1), "");
    }
}
