//! SQLite statements of a batch (see the parent module for why they look so).

use super::{BatchWrites, ON_CONFLICT_UPDATE, Scope, payload_text};
use crate::sql::codec::{self, file_columns};
use crate::{ChunkRow, FileRow, IndexError, vector};
use sqlx::Transaction;
use sqlx::any::Any;

/// Rows per upsert statement at most (14 parameters each; anonymous placeholders bind
/// in linear time).
const ROWS_PER_STATEMENT: usize = 512;
/// Chunks per insert statement at most (6 parameters each).
const CHUNKS_PER_STATEMENT: usize = 512;

const DELETE_CHUNKS: &str = "DELETE FROM index_chunks \
     WHERE project = ? AND source = ? AND path IN (SELECT value FROM json_each(?))";
/// Whether the source has any chunk row in a range of paths: one index probe.
const ANY_CHUNK_BETWEEN: &str = "SELECT EXISTS (SELECT 1 FROM index_chunks \
     WHERE project = ? AND source = ? AND path >= ? AND path <= ?)";
const DELETE_FILES: &str = "DELETE FROM index_files \
     WHERE project = ? AND source = ? AND path IN (SELECT value FROM json_each(?))";
/// A deleted path leaves a tombstone at the deleting revision (deltas carry deletes).
const TOMBSTONES: &str = "INSERT INTO index_tombstones (project, source, path, revision) \
     SELECT ?, ?, value, ? FROM json_each(?) WHERE true \
     ON CONFLICT (project, source, path) DO UPDATE SET revision = excluded.revision";
const LAST_CHUNK: &str = "SELECT coalesce(max(rowid), 0) FROM index_chunks";
/// The batch's new chunk rows (every row after the last one before it: the write
/// lock is held) enter the full-text index in one statement.
const INDEX_CHUNKS: &str = "INSERT INTO index_chunks_fts \
     (rowid, body, project, source, path, ordinal) \
     SELECT rowid, body, project, source, path, ordinal FROM index_chunks WHERE rowid > ?";

pub(super) async fn apply(
    tx: &mut Transaction<'_, Any>,
    scope: Scope<'_>,
    writes: &BatchWrites<'_>,
    revision: i64,
) -> Result<(), IndexError> {
    if any_chunk_among(tx, scope, &writes.chunk_replacing).await? {
        delete(tx, DELETE_CHUNKS, scope, &writes.chunk_replacing).await?;
    }
    if !writes.deleted.is_empty() {
        delete(tx, DELETE_FILES, scope, &writes.deleted).await?;
        sqlx::query(TOMBSTONES)
            .bind(scope.project)
            .bind(scope.source)
            .bind(revision)
            .bind(serde_json::to_string(&writes.deleted).unwrap_or_default())
            .execute(&mut **tx)
            .await?;
    }
    for rows in shaped(&writes.rows, ROWS_PER_STATEMENT) {
        upsert_rows(tx, rows, revision).await?;
    }
    if !writes.chunks.is_empty() {
        let last: i64 = sqlx::query_scalar(LAST_CHUNK).fetch_one(&mut **tx).await?;
        for chunks in shaped(&writes.chunks, CHUNKS_PER_STATEMENT) {
            insert_chunks(tx, scope, chunks).await?;
        }
        sqlx::query(INDEX_CHUNKS)
            .bind(last)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Cuts `items` into statements whose row counts are powers of two up to `max` (a power
/// of two): full statements of `max`, then the remainder by its binary digits, largest
/// first. The driver caches a prepared statement per distinct text, so a batch of any
/// size reuses at most `log2(max) + 1` statements per table; a statement sized to each
/// batch's own count (a batch's chunk count varies) was parsed and planned again per
/// batch, a few million instructions for a 500-row `VALUES` list.
pub(super) fn shaped<T>(items: &[T], max: usize) -> impl Iterator<Item = &[T]> {
    let mut rest = items;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let take = if rest.len() >= max {
            max
        } else {
            1 << rest.len().ilog2()
        };
        let (statement, after) = rest.split_at(take);
        rest = after;
        Some(statement)
    })
}

/// `count` groups of `width` anonymous placeholders: `(?, ?), (?, ?)`.
pub(super) fn groups(count: usize, width: usize) -> String {
    let group = format!("({})", vec!["?"; width].join(", "));
    vec![group; count].join(", ")
}

/// Whether any of `paths` may have chunk rows: none can when the source has no chunk
/// row between the least and the greatest of them (SQLite's `BINARY` order of text is
/// the byte order Rust compares `str` by). A first sync writes paths in listing order,
/// so its batches pass this one probe instead of a lookup per path (about 6 % of
/// SQLite's instructions in a 100,000-file first sync).
async fn any_chunk_among(
    tx: &mut Transaction<'_, Any>,
    scope: Scope<'_>,
    paths: &[&str],
) -> Result<bool, IndexError> {
    let (Some(least), Some(greatest)) = (paths.iter().min(), paths.iter().max()) else {
        return Ok(false);
    };
    let found: i64 = sqlx::query_scalar(ANY_CHUNK_BETWEEN)
        .bind(scope.project)
        .bind(scope.source)
        .bind(*least)
        .bind(*greatest)
        .fetch_one(&mut **tx)
        .await?;
    Ok(found != 0)
}

async fn delete(
    tx: &mut Transaction<'_, Any>,
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

async fn upsert_rows(
    tx: &mut Transaction<'_, Any>,
    rows: &[&FileRow],
    revision: i64,
) -> Result<(), IndexError> {
    // Audited: only placeholders and fixed text enter the statement.
    let statement = format!(
        "INSERT INTO index_files ({}, revision) VALUES {} {ON_CONFLICT_UPDATE}",
        file_columns!(),
        groups(rows.len(), 14)
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
            .bind(payload_text(row))
            .bind(i64::from(row.usable_manifest))
            .bind(row.privacy_owner.as_deref())
            .bind(i64::from(row.payload_version))
            .bind(row.real_path.as_deref())
            .bind(codec::encode_flags(&row.content_flags))
            .bind(revision);
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

#[cfg(test)]
mod tests {
    use super::{groups, shaped};

    #[test]
    fn statements_take_power_of_two_row_counts_in_order() {
        let items: Vec<usize> = (0..1_300).collect();
        let sizes: Vec<usize> = shaped(&items, 512).map(<[usize]>::len).collect();
        assert_eq!(sizes, [512, 512, 256, 16, 4]);
        let rejoined: Vec<usize> = shaped(&items, 512).flatten().copied().collect();
        assert_eq!(rejoined, items);
        assert_eq!(shaped(&items[..1], 512).count(), 1);
        assert_eq!(shaped::<usize>(&[], 512).count(), 0);
    }

    #[test]
    fn placeholder_groups_have_the_asked_shape() {
        assert_eq!(groups(2, 3), "(?, ?, ?), (?, ?, ?)");
        assert_eq!(groups(1, 1), "(?)");
        assert_eq!(groups(0, 2), "");
    }
}
