//! PostgreSQL statements of a batch: JSON record sets (see the parent module).

use super::{BatchWrites, ON_CONFLICT_UPDATE, Scope, hex, payload_text};
use crate::sql::codec::file_columns;
use crate::{ChunkRow, FileRow, IndexError, vector};
use serde::Serialize;
use sqlx::Transaction;
use sqlx::any::Any;

/// Deletes look each path up by the primary key, whatever the planner's statistics.
/// The plain `path IN (SELECT json_array_elements_text($3))` let the planner choose,
/// and on a table whose statistics were taken while it was empty (autovacuum off, or
/// not run yet during a first sync) it estimated one row for the source and scanned
/// all the source's rows for every batch: a full sync grew quadratically. Here each
/// path is a `LATERAL` subquery behind an `OFFSET 0` fence, which the planner can
/// neither flatten into a join it reorders nor run other than once per path, with
/// equality on every key column (a B-tree path always takes all of them as index
/// conditions); the rows found are then deleted by their tuple ids (a TID scan).
/// Tuple ids are stable within the statement: chunk and file rows of a project are
/// only written under its revision row's lock, taken first by every batch.
macro_rules! delete_by_key {
    ($table:literal) => {
        concat!(
            "DELETE FROM ",
            $table,
            " WHERE ctid = ANY(ARRAY(SELECT found.ctid \
             FROM json_array_elements_text($3::json) AS wanted(path) \
             CROSS JOIN LATERAL (SELECT ctid FROM ",
            $table,
            " WHERE project = $1 AND source = $2 AND path = wanted.path OFFSET 0) AS found))"
        )
    };
}
pub(super) const DELETE_CHUNKS: &str = delete_by_key!("index_chunks");
pub(super) const DELETE_FILES: &str = delete_by_key!("index_files");
/// A deleted path leaves a tombstone at the deleting revision (deltas carry deletes).
const TOMBSTONES: &str = "INSERT INTO index_tombstones (project, source, path, revision) \
     SELECT $1, $2, p, $4 FROM json_array_elements_text($3::json) AS p \
     ON CONFLICT (project, source, path) DO UPDATE SET revision = excluded.revision";
const INSERT_CHUNKS: &str = "INSERT INTO index_chunks \
     (project, source, path, ordinal, body, vector) \
     SELECT $1, $2, r.path, r.ordinal, r.body, decode(r.vector, 'hex') \
     FROM json_to_recordset($3::json) \
     AS r(path TEXT, ordinal BIGINT, body TEXT, vector TEXT)";

pub(super) async fn apply(
    tx: &mut Transaction<'_, Any>,
    scope: Scope<'_>,
    writes: &BatchWrites<'_>,
    revision: i64,
) -> Result<(), IndexError> {
    if !writes.chunk_replacing.is_empty() {
        execute(tx, DELETE_CHUNKS, scope, &writes.chunk_replacing).await?;
    }
    if !writes.deleted.is_empty() {
        execute(tx, DELETE_FILES, scope, &writes.deleted).await?;
        execute_at(tx, TOMBSTONES, scope, &writes.deleted, revision).await?;
    }
    if !writes.rows.is_empty() {
        let rows: Vec<RowRecord<'_>> = writes.rows.iter().map(|row| row_record(row)).collect();
        execute_at(tx, &upsert_statement(), scope, &rows, revision).await?;
    }
    if !writes.chunks.is_empty() {
        let chunks: Vec<ChunkRecord<'_>> = writes
            .chunks
            .iter()
            .map(|(path, chunk)| chunk_record(path, chunk))
            .collect();
        execute(tx, INSERT_CHUNKS, scope, &chunks).await?;
    }
    Ok(())
}

fn upsert_statement() -> String {
    format!(
        "INSERT INTO index_files ({}, revision) \
         SELECT $1, $2, r.path, r.content_hash, r.size, r.modified, r.classification, \
         r.payload, r.usable_manifest, r.privacy_owner, r.payload_version, r.real_path, \
         r.content_flags, $4 \
         FROM json_to_recordset($3::json) AS r(path TEXT, content_hash TEXT, \
         size BIGINT, modified BIGINT, classification TEXT, payload TEXT, \
         usable_manifest BIGINT, privacy_owner TEXT, payload_version BIGINT, \
         real_path TEXT, content_flags TEXT) \
         {ON_CONFLICT_UPDATE}",
        file_columns!()
    )
}

/// A file row as `json_to_recordset` reads it (by field name).
#[derive(Serialize)]
struct RowRecord<'a> {
    path: &'a str,
    content_hash: &'a str,
    size: u64,
    modified: i64,
    classification: &'a str,
    payload: String,
    usable_manifest: i64,
    privacy_owner: Option<&'a str>,
    payload_version: u32,
    real_path: Option<&'a str>,
    content_flags: String,
}

fn row_record(row: &FileRow) -> RowRecord<'_> {
    RowRecord {
        path: &row.path,
        content_hash: &row.content_hash,
        size: row.size,
        modified: row.modified,
        classification: &row.classification,
        payload: payload_text(row),
        usable_manifest: i64::from(row.usable_manifest),
        privacy_owner: row.privacy_owner.as_deref(),
        payload_version: row.payload_version,
        real_path: row.real_path.as_deref(),
        content_flags: crate::sql::codec::encode_flags(&row.content_flags),
    }
}

/// A chunk row as `json_to_recordset` reads it; the vector's bytes as hex.
#[derive(Serialize)]
struct ChunkRecord<'a> {
    path: &'a str,
    ordinal: u32,
    body: &'a str,
    vector: Option<String>,
}

fn chunk_record<'a>(path: &'a str, chunk: &'a ChunkRow) -> ChunkRecord<'a> {
    ChunkRecord {
        path,
        ordinal: chunk.ordinal,
        body: &chunk.body,
        vector: chunk.vector.as_deref().map(|v| hex(&vector::to_bytes(v))),
    }
}

async fn execute(
    tx: &mut Transaction<'_, Any>,
    statement: &str,
    scope: Scope<'_>,
    records: &impl Serialize,
) -> Result<(), IndexError> {
    // Audited: the statements are fixed text; every value is a bound parameter.
    sqlx::query(sqlx::AssertSqlSafe(statement.to_owned()))
        .bind(scope.project)
        .bind(scope.source)
        // Strings, numbers and options always serialize.
        .bind(serde_json::to_string(records).unwrap_or_default())
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// [`execute`] with the batch's revision as `$4`.
async fn execute_at(
    tx: &mut Transaction<'_, Any>,
    statement: &str,
    scope: Scope<'_>,
    records: &impl Serialize,
    revision: i64,
) -> Result<(), IndexError> {
    // Audited: the statements are fixed text; every value is a bound parameter.
    sqlx::query(sqlx::AssertSqlSafe(statement.to_owned()))
        .bind(scope.project)
        .bind(scope.source)
        .bind(serde_json::to_string(records).unwrap_or_default())
        .bind(revision)
        .execute(&mut **tx)
        .await?;
    Ok(())
}
