//! Applying a batch: one transaction, a few statements per table, the revision raised
//! once at the end.
//!
//! The statements differ by backend, for speed only:
//! - SQLite: multi-row statements with anonymous `?` placeholders. SQLite looks a named
//!   parameter up by a linear scan, and the driver asks for every parameter's name, so
//!   `$N` placeholders made binding a 2,000-parameter statement quadratic (it was the
//!   largest cost of a full sync).
//! - PostgreSQL: one statement per table and batch, whatever its size: the rows travel
//!   as one JSON array parameter, expanded server-side by `json_to_recordset` (the
//!   `UNNEST` idea without array binds, which the driver layer shared by both backends
//!   cannot carry), so the server parses and plans one short statement per batch.

use super::Dialect;
use super::codec::{self, file_columns};
use super::rows::raise_revision;
use crate::{ChunkRow, FileRow, IndexError, RowWrite, WriteBatch, vector};
use serde_json::{Value, json};
use sqlx::any::Any;
use sqlx::{AnyPool, Transaction};

/// SQLite: rows per upsert statement (11 parameters each).
const ROWS_PER_STATEMENT: usize = 100;
/// SQLite: chunks per insert statement (6 parameters each).
const CHUNKS_PER_STATEMENT: usize = 150;
/// SQLite: paths per delete statement.
const PATHS_PER_STATEMENT: usize = 500;

/// Applies a batch: chunk deletes, row deletes, row upserts, chunk inserts, then the
/// revision. Each path appears at most once, so the grouping cannot reorder two writes
/// of one path.
pub(crate) async fn write_batch(
    pool: &AnyPool,
    dialect: Dialect,
    batch: &WriteBatch,
) -> Result<u64, IndexError> {
    let writes = BatchWrites::of(batch)?;
    let scope = Scope {
        project: &batch.project,
        source: &batch.source,
    };
    let mut tx = pool.begin().await?;
    match dialect {
        Dialect::Sqlite => sqlite::apply(&mut tx, scope, &writes).await?,
        Dialect::Postgres => postgres::apply(&mut tx, scope, &writes).await?,
    }
    let revision = raise_revision(&mut tx, &batch.project).await?;
    tx.commit().await?;
    Ok(revision)
}

/// The project and source every write of a batch belongs to.
#[derive(Clone, Copy)]
struct Scope<'a> {
    project: &'a str,
    source: &'a str,
}

/// A batch sorted into what each statement needs.
struct BatchWrites<'a> {
    rows: Vec<&'a FileRow>,
    chunks: Vec<(&'a str, &'a ChunkRow)>,
    chunk_replacing: Vec<&'a str>,
    deleted: Vec<&'a str>,
}

impl<'a> BatchWrites<'a> {
    fn of(batch: &'a WriteBatch) -> Result<Self, IndexError> {
        let mut seen = std::collections::HashSet::with_capacity(batch.writes.len());
        let mut writes = BatchWrites {
            rows: Vec::with_capacity(batch.writes.len()),
            chunks: Vec::new(),
            chunk_replacing: Vec::with_capacity(batch.writes.len()),
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
                codec::to_i64(row.size, "size")?;
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

/// The update half of both backends' upsert.
const ON_CONFLICT_UPDATE: &str = "ON CONFLICT (project, source, path) DO UPDATE SET \
     content_hash = excluded.content_hash, size = excluded.size, \
     modified = excluded.modified, classification = excluded.classification, \
     payload = excluded.payload, usable_manifest = excluded.usable_manifest, \
     privacy_owner = excluded.privacy_owner, payload_version = excluded.payload_version";

mod sqlite {
    use super::*;

    pub(super) async fn apply(
        tx: &mut Transaction<'_, Any>,
        scope: Scope<'_>,
        writes: &BatchWrites<'_>,
    ) -> Result<(), IndexError> {
        for paths in writes.chunk_replacing.chunks(PATHS_PER_STATEMENT) {
            delete_where_path_in(tx, "index_chunks", scope, paths).await?;
        }
        for paths in writes.deleted.chunks(PATHS_PER_STATEMENT) {
            delete_where_path_in(tx, "index_files", scope, paths).await?;
        }
        for rows in writes.rows.chunks(ROWS_PER_STATEMENT) {
            upsert_rows(tx, rows).await?;
        }
        for chunks in writes.chunks.chunks(CHUNKS_PER_STATEMENT) {
            insert_chunks(tx, scope, chunks).await?;
        }
        Ok(())
    }

    /// `count` groups of `width` anonymous placeholders: `(?, ?), (?, ?)`.
    pub(super) fn groups(count: usize, width: usize) -> String {
        let group = format!("({})", vec!["?"; width].join(", "));
        vec![group; count].join(", ")
    }

    async fn delete_where_path_in(
        tx: &mut Transaction<'_, Any>,
        table: &'static str,
        scope: Scope<'_>,
        paths: &[&str],
    ) -> Result<(), IndexError> {
        // Audited: only the fixed table name and placeholders enter the text.
        let statement = format!(
            "DELETE FROM {table} WHERE project = ? AND source = ? AND path IN ({})",
            vec!["?"; paths.len()].join(", ")
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(statement))
            .bind(scope.project)
            .bind(scope.source);
        for path in paths {
            query = query.bind(*path);
        }
        query.execute(&mut **tx).await?;
        Ok(())
    }

    async fn upsert_rows(
        tx: &mut Transaction<'_, Any>,
        rows: &[&FileRow],
    ) -> Result<(), IndexError> {
        // Audited: only placeholders and fixed text enter the statement.
        let statement = format!(
            "INSERT INTO index_files ({}) VALUES {} {ON_CONFLICT_UPDATE}",
            file_columns!(),
            groups(rows.len(), 11)
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(statement));
        for row in rows {
            query = query
                .bind(row.project.as_str())
                .bind(row.source.as_str())
                .bind(row.path.as_str())
                .bind(row.content_hash.as_str())
                .bind(codec::to_i64(row.size, "size")?)
                .bind(row.modified)
                .bind(row.classification.as_str())
                .bind(row.payload.to_string())
                .bind(i64::from(row.usable_manifest))
                .bind(row.privacy_owner.as_deref())
                .bind(i64::from(row.payload_version));
        }
        query.execute(&mut **tx).await?;
        Ok(())
    }

    async fn insert_chunks(
        tx: &mut Transaction<'_, Any>,
        scope: Scope<'_>,
        chunks: &[(&str, &ChunkRow)],
    ) -> Result<(), IndexError> {
        // Audited: only placeholders enter the statement.
        let statement = format!(
            "INSERT INTO index_chunks (project, source, path, ordinal, body, vector) VALUES {}",
            groups(chunks.len(), 6)
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(statement));
        for (path, chunk) in chunks {
            query = query
                .bind(scope.project)
                .bind(scope.source)
                .bind(*path)
                .bind(i64::from(chunk.ordinal))
                .bind(chunk.body.as_str())
                .bind(chunk.vector.as_deref().map(vector::to_bytes));
        }
        query.execute(&mut **tx).await?;
        Ok(())
    }
}

mod postgres {
    use super::*;

    const DELETE_CHUNKS: &str = "DELETE FROM index_chunks \
         WHERE project = $1 AND source = $2 \
         AND path IN (SELECT json_array_elements_text($3::json))";
    const DELETE_FILES: &str = "DELETE FROM index_files \
         WHERE project = $1 AND source = $2 \
         AND path IN (SELECT json_array_elements_text($3::json))";
    const INSERT_CHUNKS: &str = "INSERT INTO index_chunks \
         (project, source, path, ordinal, body, vector) \
         SELECT $1, $2, r.path, r.ordinal, r.body, decode(r.vector, 'hex') \
         FROM json_to_recordset($3::json) \
         AS r(path TEXT, ordinal BIGINT, body TEXT, vector TEXT)";

    pub(super) async fn apply(
        tx: &mut Transaction<'_, Any>,
        scope: Scope<'_>,
        writes: &BatchWrites<'_>,
    ) -> Result<(), IndexError> {
        if !writes.chunk_replacing.is_empty() {
            execute(tx, DELETE_CHUNKS, scope, json!(writes.chunk_replacing)).await?;
        }
        if !writes.deleted.is_empty() {
            execute(tx, DELETE_FILES, scope, json!(writes.deleted)).await?;
        }
        if !writes.rows.is_empty() {
            let rows: Vec<Value> = writes.rows.iter().map(|row| row_record(row)).collect();
            execute(tx, &upsert_statement(), scope, Value::Array(rows)).await?;
        }
        if !writes.chunks.is_empty() {
            let chunks = writes
                .chunks
                .iter()
                .map(|(path, chunk)| chunk_record(path, chunk));
            execute(tx, INSERT_CHUNKS, scope, Value::Array(chunks.collect())).await?;
        }
        Ok(())
    }

    fn upsert_statement() -> String {
        format!(
            "INSERT INTO index_files ({}) \
             SELECT $1, $2, r.path, r.content_hash, r.size, r.modified, r.classification, \
             r.payload, r.usable_manifest, r.privacy_owner, r.payload_version \
             FROM json_to_recordset($3::json) AS r(path TEXT, content_hash TEXT, \
             size BIGINT, modified BIGINT, classification TEXT, payload TEXT, \
             usable_manifest BIGINT, privacy_owner TEXT, payload_version BIGINT) \
             {ON_CONFLICT_UPDATE}",
            file_columns!()
        )
    }

    fn row_record(row: &FileRow) -> Value {
        json!({
            "path": row.path,
            "content_hash": row.content_hash,
            "size": row.size,
            "modified": row.modified,
            "classification": row.classification,
            "payload": row.payload.to_string(),
            "usable_manifest": i64::from(row.usable_manifest),
            "privacy_owner": row.privacy_owner,
            "payload_version": row.payload_version,
        })
    }

    fn chunk_record(path: &str, chunk: &ChunkRow) -> Value {
        json!({
            "path": path,
            "ordinal": chunk.ordinal,
            "body": chunk.body,
            "vector": chunk.vector.as_deref().map(|v| hex(&vector::to_bytes(v))),
        })
    }

    fn hex(bytes: &[u8]) -> String {
        use std::fmt::Write;
        bytes
            .iter()
            .fold(String::with_capacity(bytes.len() * 2), |mut text, byte| {
                let _ = write!(text, "{byte:02x}");
                text
            })
    }

    async fn execute(
        tx: &mut Transaction<'_, Any>,
        statement: &str,
        scope: Scope<'_>,
        records: Value,
    ) -> Result<(), IndexError> {
        // Audited: the statements are fixed text; every value is a bound parameter.
        sqlx::query(sqlx::AssertSqlSafe(statement.to_owned()))
            .bind(scope.project)
            .bind(scope.source)
            .bind(records.to_string())
            .execute(&mut **tx)
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::sqlite::groups;

    #[test]
    fn placeholder_groups_have_the_asked_shape() {
        assert_eq!(groups(2, 3), "(?, ?, ?), (?, ?, ?)");
        assert_eq!(groups(1, 1), "(?)");
        assert_eq!(groups(0, 2), "");
    }
}
