//! SQLite statements of a batch, on the SQLite driver itself (not `Any`), in as few
//! round trips to the driver's worker thread as the statements allow.
//!
//! Within a transaction every statement is a round trip: the async side binds it,
//! hands it to the worker thread, waits, and only then binds the next one, so binding
//! and SQLite's work were serial, and each hand-over waited for a thread to be
//! scheduled (a batch took about 18). Now a batch takes five: `BEGIN`, the revision,
//! one probe (the chunk delete's range and the last chunk row id), one text holding
//! every row upsert, chunk insert and the full-text insert, and `COMMIT`. The driver
//! binds one argument list across the statements of a text in order. Through `Any`
//! every text value was also copied twice before SQLite copied it again; the SQLite
//! driver copies it once.
//!
//! Statement texts are cached by the driver, and a cache miss parses every statement
//! again (a few million instructions for a few hundred `VALUES` rows), so the batch's
//! text must come from a small set: each statement carries a fixed number of rows,
//! the last one padded with rows of `NULL`s that its `WHERE` drops. A batch's text then
//! depends only on how many statements of each kind it needs.

use super::{BatchWrites, ON_CONFLICT_UPDATE, Scope, payload_text};
use crate::sql::codec::{self, file_columns};
use crate::{ChunkRow, FileRow, IndexError, WriteBatch, vector};
use sqlx::query::Query;
use sqlx::sqlite::{Sqlite, SqliteArguments};
use sqlx::{SqlitePool, Transaction};
use std::sync::LazyLock;

/// Rows per upsert statement.
const ROWS_PER_STATEMENT: usize = 128;
/// Chunks per insert statement.
const CHUNKS_PER_STATEMENT: usize = 128;
/// Texts the writer's connection keeps prepared: every (upserts, inserts) pair a
/// batch can need, with room to spare (see `open_embedded`).
pub(crate) const STATEMENT_CACHE: usize = 512;

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

/// Applies a batch in one transaction on the writer's connection.
pub(crate) async fn write_batch(pool: &SqlitePool, batch: &WriteBatch) -> Result<u64, IndexError> {
    let writes = BatchWrites::of(batch)?;
    let scope = Scope {
        project: &batch.project,
        source: &batch.source,
    };
    let mut tx = pool.begin().await?;
    let revision: i64 = sqlx::query_scalar(RAISE_REVISION)
        .bind(scope.project)
        .fetch_one(&mut *tx)
        .await?;
    let mut last = probe_and_delete(&mut tx, scope, &writes).await?;
    if !writes.deleted.is_empty() {
        delete(&mut tx, DELETE_FILES, scope, &writes.deleted).await?;
        sqlx::query(TOMBSTONES)
            .bind(scope.project)
            .bind(scope.source)
            .bind(revision)
            .bind(serde_json::to_string(&writes.deleted).unwrap_or_default())
            .execute(&mut *tx)
            .await?;
    }
    if last.is_none() && !writes.chunks.is_empty() {
        last = Some(sqlx::query_scalar(LAST_CHUNK).fetch_one(&mut *tx).await?);
    }
    if !writes.rows.is_empty() || !writes.chunks.is_empty() {
        bulk(scope, &writes, revision, last.unwrap_or(0))?
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    codec::to_u64(revision, "revision")
}

/// Deletes the old chunks of the paths the batch replaces, when the source has any
/// chunk row between the least and the greatest of them (SQLite's `BINARY` order of text
/// is the byte order Rust compares `str` by): a first sync writes paths in listing
/// order, so its batches pass with this one probe. Yields the last chunk row id when no
/// delete ran after reading it.
async fn probe_and_delete(
    tx: &mut Transaction<'_, Sqlite>,
    scope: Scope<'_>,
    writes: &BatchWrites<'_>,
) -> Result<Option<i64>, IndexError> {
    let paths = &writes.chunk_replacing;
    let (Some(least), Some(greatest)) = (paths.iter().min(), paths.iter().max()) else {
        return Ok(None);
    };
    let (found, last): (i64, i64) = sqlx::query_as(PROBE)
        .bind(scope.project)
        .bind(scope.source)
        .bind(*least)
        .bind(*greatest)
        .fetch_one(&mut **tx)
        .await?;
    if found == 0 {
        return Ok(Some(last));
    }
    delete(tx, DELETE_CHUNKS, scope, paths).await?;
    Ok(None)
}

async fn delete(
    tx: &mut Transaction<'_, Sqlite>,
    statement: &'static str,
    scope: Scope<'_>,
    paths: &[&str],
) -> Result<(), IndexError> {
    sqlx::query(statement)
        .bind(scope.project)
        .bind(scope.source)
        .bind(serde_json::to_string(paths).unwrap_or_default())
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// How many fixed-size statements `count` items take.
fn statements(count: usize, per_statement: usize) -> usize {
    count.div_ceil(per_statement)
}

/// The text of a batch's upserts, chunk inserts and full-text insert, in that order.
fn bulk_text(rows: usize, chunks: usize) -> String {
    let mut text = String::new();
    for _ in 0..statements(rows, ROWS_PER_STATEMENT) {
        text.push_str(&UPSERT);
        text.push_str(";\n");
    }
    if chunks > 0 {
        for _ in 0..statements(chunks, CHUNKS_PER_STATEMENT) {
            text.push_str(&INSERT_CHUNKS);
            text.push_str(";\n");
        }
        text.push_str(INDEX_CHUNKS);
    }
    text
}

/// The bulk statement with every argument bound, padding included.
fn bulk(
    scope: Scope<'_>,
    writes: &BatchWrites<'_>,
    revision: i64,
    last_chunk: i64,
) -> Result<Query<'static, Sqlite, SqliteArguments>, IndexError> {
    let text = bulk_text(writes.rows.len(), writes.chunks.len());
    // Audited: only fixed statements with placeholders enter the text.
    let mut query = sqlx::query(sqlx::AssertSqlSafe(text));
    for rows in writes.rows.chunks(ROWS_PER_STATEMENT) {
        query = query.bind(scope.project).bind(scope.source).bind(revision);
        for row in rows {
            query = bind_row(query, row)?;
        }
    }
    for _ in 0..padding(writes.rows.len(), ROWS_PER_STATEMENT) * ROW_VALUES {
        query = query.bind(None::<&str>);
    }
    if writes.chunks.is_empty() {
        return Ok(query);
    }
    for chunks in writes.chunks.chunks(CHUNKS_PER_STATEMENT) {
        query = query.bind(scope.project).bind(scope.source);
        for (path, chunk) in chunks {
            query = bind_chunk(query, path, chunk);
        }
    }
    for _ in 0..padding(writes.chunks.len(), CHUNKS_PER_STATEMENT) * CHUNK_VALUES {
        query = query.bind(None::<&str>);
    }
    Ok(query.bind(last_chunk))
}

/// Rows of `NULL`s that fill the last statement of `count` items.
fn padding(count: usize, per_statement: usize) -> usize {
    statements(count, per_statement) * per_statement - count
}

/// A row's values but project, source and revision, in `file_columns!` order.
fn bind_row<'q>(
    query: Query<'q, Sqlite, SqliteArguments>,
    row: &FileRow,
) -> Result<Query<'q, Sqlite, SqliteArguments>, IndexError> {
    Ok(query
        .bind(row.path.as_str())
        .bind(row.content_hash.as_str())
        .bind(codec::to_i64(row.size, "size")?)
        .bind(row.modified)
        .bind(row.classification.as_str())
        .bind(payload_text(row))
        .bind(i64::from(row.usable_manifest))
        .bind(row.privacy_owner.as_deref())
        .bind(i64::from(row.payload_version))
        .bind(row.real_path.as_deref())
        .bind(codec::encode_flags(&row.content_flags)))
}

fn bind_chunk<'q>(
    query: Query<'q, Sqlite, SqliteArguments>,
    path: &str,
    chunk: &ChunkRow,
) -> Query<'q, Sqlite, SqliteArguments> {
    query
        .bind(path)
        .bind(i64::from(chunk.ordinal))
        .bind(chunk.body.as_str())
        .bind(chunk.vector.as_deref().map(vector::to_bytes))
}

/// `count` groups of `width` anonymous placeholders: `(?, ?), (?, ?)`.
pub(super) fn groups(count: usize, width: usize) -> String {
    let group = format!("({})", vec!["?"; width].join(", "));
    vec![group; count].join(", ")
}

#[cfg(test)]
mod tests {
    use super::{bulk_text, groups, padding};

    #[test]
    fn placeholder_groups_have_the_asked_shape() {
        assert_eq!(groups(2, 3), "(?, ?, ?), (?, ?, ?)");
        assert_eq!(groups(1, 1), "(?)");
        assert_eq!(groups(0, 2), "");
    }

    #[test]
    fn padding_fills_the_last_statement_exactly() {
        for (count, expected) in [(0, 0), (1, 127), (127, 1), (128, 0), (129, 127), (500, 12)] {
            assert_eq!(padding(count, 128), expected, "{count} items");
        }
    }

    /// The driver caches one prepared text per shape: a batch's text depends only on
    /// how many statements it needs, so batches of a few hundred rows share a few texts.
    #[test]
    fn batch_texts_depend_only_on_statement_counts() {
        assert_eq!(bulk_text(1, 1), bulk_text(128, 128));
        assert_eq!(bulk_text(129, 0), bulk_text(256, 0));
        assert_ne!(bulk_text(128, 0), bulk_text(129, 0));
        assert!(!bulk_text(3, 0).contains("index_chunks_fts"));
        assert_eq!(bulk_text(500, 530).matches(';').count(), 4 + 5);
        let distinct: std::collections::HashSet<String> = (0..=1_000)
            .flat_map(|rows| [0, 1, 600, 1_000].map(|chunks| bulk_text(rows, chunks)))
            .collect();
        assert!(
            distinct.len() < super::STATEMENT_CACHE,
            "{}",
            distinct.len()
        );
    }
}
