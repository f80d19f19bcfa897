//! The statements of one batch on the writer's connection: `BEGIN IMMEDIATE`, the
//! revision, one probe (whether the batch replaces chunk rows, and the last chunk row
//! id), the deletes, the row upserts and chunk inserts in statements of a fixed number
//! of rows, the full-text insert, `COMMIT`.
//!
//! Each statement text is prepared once per connection and kept; a batch binds its
//! values straight from its rows (SQLite copies each text once). A statement carries a
//! fixed number of rows so that one text serves every batch: the last one of a batch
//! leaves its remaining rows unbound, which SQLite reads as `NULL`, and its `WHERE`
//! drops rows whose path is `NULL`.

use super::super::check as check_whole;
use super::super::{BatchWrites, ON_CONFLICT_UPDATE, Scope, is_current, payload_text};
use super::Progress;
use crate::sql::codec::{self, file_columns};
use crate::{ChunkRow, FileRow, IndexError, WriteBatch, vector};
use rusqlite::{Connection, OptionalExtension, Statement, ToSql, Transaction, TransactionBehavior};
use std::sync::LazyLock;

/// Rows per upsert statement.
const ROWS_PER_STATEMENT: usize = 128;
/// Chunks per insert statement.
const CHUNKS_PER_STATEMENT: usize = 128;

/// The id of the source the batch writes, read under the write lock
/// ([`WriteBatch::source_id`]).
const CURRENT_SOURCE: &str = "SELECT source_id FROM index_sources WHERE project = ? AND slug = ?";
const RAISE_REVISION: &str = "INSERT INTO index_projects (project, revision) VALUES (?, 1) \
     ON CONFLICT (project) DO UPDATE SET revision = index_projects.revision + 1 \
     RETURNING revision";
/// Whether the source has any chunk row in a range of paths (one index probe), and the
/// last chunk row id: every chunk row after it is one this batch inserts (the write lock
/// is held).
const PROBE: &str = "SELECT EXISTS (SELECT 1 FROM index_chunks \
     WHERE project = ? AND source = ? AND path >= ? AND path <= ?), \
     (SELECT coalesce(max(rowid), 0) FROM index_chunks)";
const LAST_CHUNK: &str = "SELECT coalesce(max(rowid), 0) FROM index_chunks";
const DELETE_CHUNKS: &str = "DELETE FROM index_chunks \
     WHERE project = ? AND source = ? AND path IN (SELECT value FROM json_each(?))";
const DELETE_FILES: &str = "DELETE FROM index_files \
     WHERE project = ? AND source = ? AND path IN (SELECT value FROM json_each(?))";
/// A deleted path leaves a tombstone at the deleting revision (deltas carry deletes).
const TOMBSTONES: &str = "INSERT INTO index_tombstones (project, source, path, revision) \
     SELECT ?, ?, value, ? FROM json_each(?) WHERE true \
     ON CONFLICT (project, source, path) DO UPDATE SET revision = excluded.revision";
/// The batch's new chunk rows enter the full-text index in one statement.
const INDEX_CHUNKS: &str = "INSERT INTO index_chunks_fts \
     (rowid, body, project, source, path, ordinal) \
     SELECT rowid, body, project, source, path, ordinal FROM index_chunks WHERE rowid > ?";

/// One full upsert statement. The batch's project, source and revision are bound once
/// (every row of a batch has them: `check_belongs`), each row binds its 11 other
/// columns; padding rows have a `NULL` path.
static UPSERT: LazyLock<String> = LazyLock::new(|| {
    let row: Vec<String> = (1..=ROW_VALUES).map(|n| format!("v.column{n}")).collect();
    format!(
        "INSERT INTO index_files ({}, revision) \
         SELECT s.project, s.source, {}, s.revision \
         FROM (SELECT ? AS project, ? AS source, ? AS revision) AS s, (VALUES {}) AS v \
         WHERE v.column1 IS NOT NULL {ON_CONFLICT_UPDATE}",
        file_columns!(),
        row.join(", "),
        groups(ROWS_PER_STATEMENT, ROW_VALUES)
    )
});
/// One full chunk insert statement: project and source bound once, each chunk binds
/// path, ordinal, body and vector; padding rows have a `NULL` path.
static INSERT_CHUNKS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "INSERT INTO index_chunks (project, source, path, ordinal, body, vector) \
         SELECT s.project, s.source, v.column1, v.column2, v.column3, v.column4 \
         FROM (SELECT ? AS project, ? AS source) AS s, (VALUES {}) AS v \
         WHERE v.column1 IS NOT NULL",
        groups(CHUNKS_PER_STATEMENT, CHUNK_VALUES)
    )
});
/// Values each row binds in `UPSERT`, each chunk in `INSERT_CHUNKS`.
const ROW_VALUES: usize = 11;
const CHUNK_VALUES: usize = 4;

/// Refuses a batch that is not whole (a path twice, a row of another source, a size
/// beyond the column) before it reaches the thread.
pub(super) fn check(batch: &WriteBatch) -> Result<(), IndexError> {
    check_whole(batch)
}

/// Applies a checked batch in one transaction on the writer's connection.
pub(super) fn apply(
    connection: &mut Connection,
    batch: &WriteBatch,
    progress: &Progress,
) -> Result<u64, IndexError> {
    let writes = BatchWrites::sorted(batch);
    let scope = Scope {
        project: &batch.project,
        source: &batch.source,
    };
    let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if let Some(id) = &batch.source_id {
        let current: Option<String> = tx
            .prepare_cached(CURRENT_SOURCE)?
            .query_row([scope.project, scope.source], |row| row.get(0))
            .optional()?;
        is_current(current.as_deref(), id, scope.project, scope.source)?;
    }
    let revision: i64 = tx
        .prepare_cached(RAISE_REVISION)?
        .query_row([scope.project], |row| row.get(0))?;
    let mut last = probe_and_delete(&tx, scope, &writes)?;
    if !writes.deleted.is_empty() {
        delete(&tx, DELETE_FILES, scope, &writes.deleted)?;
        tx.prepare_cached(TOMBSTONES)?.execute((
            scope.project,
            scope.source,
            revision,
            json_array(&writes.deleted),
        ))?;
    }
    if last.is_none() && !writes.chunks.is_empty() {
        last = Some(
            tx.prepare_cached(LAST_CHUNK)?
                .query_row([], |row| row.get(0))?,
        );
    }
    upsert_rows(&tx, scope, revision, &writes.rows, progress)?;
    if !writes.chunks.is_empty() {
        insert_chunks(&tx, scope, &writes.chunks, progress)?;
        tx.prepare_cached(INDEX_CHUNKS)?
            .execute([last.unwrap_or(0)])?;
    }
    progress.commit()?;
    tx.commit()?;
    codec::to_u64(revision, "revision")
}

/// Deletes the old chunks of the paths the batch replaces, when the source has any
/// chunk row between the least and the greatest of them (SQLite's `BINARY` order of text
/// is the byte order Rust compares `str` by): a first sync writes paths in listing
/// order, so its batches pass with this one probe. Yields the last chunk row id when no
/// delete ran after reading it.
fn probe_and_delete(
    tx: &Transaction<'_>,
    scope: Scope<'_>,
    writes: &BatchWrites<'_>,
) -> Result<Option<i64>, IndexError> {
    let paths = &writes.chunk_replacing;
    let (Some(least), Some(greatest)) = (paths.iter().min(), paths.iter().max()) else {
        return Ok(None);
    };
    let (found, last): (i64, i64) = tx
        .prepare_cached(PROBE)?
        .query_row((scope.project, scope.source, *least, *greatest), |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?;
    if found == 0 {
        return Ok(Some(last));
    }
    delete(tx, DELETE_CHUNKS, scope, paths)?;
    Ok(None)
}

fn delete(
    tx: &Transaction<'_>,
    statement: &'static str,
    scope: Scope<'_>,
    paths: &[&str],
) -> Result<(), IndexError> {
    tx.prepare_cached(statement)?
        .execute((scope.project, scope.source, json_array(paths)))?;
    Ok(())
}

fn json_array(paths: &[&str]) -> String {
    // A list of strings always serializes.
    serde_json::to_string(paths).unwrap_or_default()
}

/// The batch's rows, `ROWS_PER_STATEMENT` per statement.
fn upsert_rows(
    tx: &Transaction<'_>,
    scope: Scope<'_>,
    revision: i64,
    rows: &[&FileRow],
    progress: &Progress,
) -> Result<(), IndexError> {
    let shared: [&dyn ToSql; 3] = [&scope.project, &scope.source, &revision];
    let shape = (ROWS_PER_STATEMENT, ROW_VALUES);
    in_statements(tx, &UPSERT, &shared, rows, shape, progress, bind_row)
}

/// The batch's chunk rows, `CHUNKS_PER_STATEMENT` per statement.
fn insert_chunks(
    tx: &Transaction<'_>,
    scope: Scope<'_>,
    chunks: &[(&str, &ChunkRow)],
    progress: &Progress,
) -> Result<(), IndexError> {
    let shared: [&dyn ToSql; 2] = [&scope.project, &scope.source];
    let shape = (CHUNKS_PER_STATEMENT, CHUNK_VALUES);
    in_statements(
        tx,
        &INSERT_CHUNKS,
        &shared,
        chunks,
        shape,
        progress,
        bind_chunk,
    )
}

/// Runs `text` once per group of `per_statement` items: the `shared` values first, then
/// each item's `width` values bound by `bind` from its first parameter on. A statement
/// comes back from the cache with no value bound, so the items a group leaves out are
/// `NULL`s, which the statements' `WHERE` drops.
fn in_statements<T>(
    tx: &Transaction<'_>,
    text: &str,
    shared: &[&dyn ToSql],
    items: &[T],
    (per_statement, width): (usize, usize),
    progress: &Progress,
    bind: fn(&mut Statement<'_>, usize, &T) -> Result<(), IndexError>,
) -> Result<(), IndexError> {
    for group in items.chunks(per_statement) {
        let mut statement = tx.prepare_cached(text)?;
        for (at, value) in shared.iter().enumerate() {
            statement.raw_bind_parameter(at + 1, value)?;
        }
        let first = shared.len() + 1;
        for (at, item) in group.iter().enumerate() {
            bind(&mut statement, first + at * width, item)?;
        }
        statement.raw_execute()?;
        progress.still_wanted()?;
    }
    Ok(())
}

/// A row's values but project, source and revision, in `file_columns!` order, from
/// parameter `first` on.
fn bind_row(statement: &mut Statement<'_>, first: usize, row: &&FileRow) -> Result<(), IndexError> {
    statement.raw_bind_parameter(first, row.path.as_str())?;
    statement.raw_bind_parameter(first + 1, row.content_hash.as_str())?;
    statement.raw_bind_parameter(first + 2, codec::to_i64(row.size, "size")?)?;
    statement.raw_bind_parameter(first + 3, row.modified)?;
    statement.raw_bind_parameter(first + 4, row.classification.as_str())?;
    statement.raw_bind_parameter(first + 5, payload_text(row))?;
    statement.raw_bind_parameter(first + 6, i64::from(row.usable_manifest))?;
    statement.raw_bind_parameter(first + 7, row.privacy_owner.as_deref())?;
    statement.raw_bind_parameter(first + 8, i64::from(row.payload_version))?;
    statement.raw_bind_parameter(first + 9, row.real_path.as_deref())?;
    statement.raw_bind_parameter(first + 10, codec::encode_flags(&row.content_flags))?;
    Ok(())
}

fn bind_chunk(
    statement: &mut Statement<'_>,
    first: usize,
    (path, chunk): &(&str, &ChunkRow),
) -> Result<(), IndexError> {
    statement.raw_bind_parameter(first, path)?;
    statement.raw_bind_parameter(first + 1, i64::from(chunk.ordinal))?;
    statement.raw_bind_parameter(first + 2, chunk.body.as_str())?;
    statement.raw_bind_parameter(first + 3, chunk.vector.as_deref().map(vector::to_bytes))?;
    Ok(())
}

/// `count` groups of `width` anonymous placeholders: `(?, ?), (?, ?)`.
pub(super) fn groups(count: usize, width: usize) -> String {
    let group = format!("({})", vec!["?"; width].join(", "));
    vec![group; count].join(", ")
}

#[cfg(test)]
mod tests {
    use super::groups;
    use rusqlite::Connection;

    #[test]
    fn placeholder_groups_have_the_asked_shape() {
        assert_eq!(groups(2, 3), "(?, ?, ?), (?, ?, ?)");
        assert_eq!(groups(1, 1), "(?)");
        assert_eq!(groups(0, 2), "");
    }

    /// The last statement of a batch binds only its own rows: a statement taken from
    /// the cache again must hold no value of its previous use, or an earlier row would
    /// be written twice (with the `NULL`-path filter, never a wrong row, but a skipped
    /// padding would become a duplicate path).
    #[test]
    fn a_statement_taken_from_the_cache_again_has_no_value_bound() {
        let connection = Connection::open_in_memory().expect("opens");
        connection
            .execute_batch("CREATE TABLE t (a TEXT)")
            .expect("creates");
        let insert = format!(
            "INSERT INTO t (a) SELECT v.column1 FROM (VALUES {}) AS v \
             WHERE v.column1 IS NOT NULL",
            groups(3, 1)
        );
        for values in [&["x", "y", "z"][..], &["w"][..]] {
            let mut statement = connection.prepare_cached(&insert).expect("prepares");
            for (at, value) in values.iter().enumerate() {
                statement.raw_bind_parameter(at + 1, *value).expect("binds");
            }
            statement.raw_execute().expect("inserts");
        }
        let count: i64 = connection
            .query_row("SELECT count(*) FROM t", [], |row| row.get(0))
            .expect("counts");
        assert_eq!(count, 4);
    }
}
