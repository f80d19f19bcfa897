//! Search over chunk rows: full text (FTS5 on SQLite, `tsvector` on PostgreSQL) and
//! nearest vectors (cosine, computed here over the project's stored vectors).

use super::Dialect;
use super::codec;
use crate::{ChunkHit, IndexError, vector};
use sqlx::AnyPool;
use sqlx::Row;

const SQLITE_TEXT: &str = "SELECT c.source, c.path, c.ordinal, c.body, \
     -bm25(index_chunks_fts) AS score \
     FROM index_chunks_fts JOIN index_chunks c ON c.rowid = index_chunks_fts.rowid \
     WHERE index_chunks_fts MATCH $1 AND c.project = $2 \
     ORDER BY bm25(index_chunks_fts), c.source, c.path, c.ordinal LIMIT $3";

const POSTGRES_TEXT: &str = "SELECT source, path, ordinal, body, \
     CAST(ts_rank(to_tsvector('simple', body), query) AS DOUBLE PRECISION) AS score \
     FROM index_chunks, plainto_tsquery('simple', $1) AS query \
     WHERE to_tsvector('simple', body) @@ query AND project = $2 \
     ORDER BY score DESC, source, path, ordinal LIMIT $3";

pub(crate) async fn text(
    pool: &AnyPool,
    dialect: Dialect,
    project: &str,
    query: &str,
    limit: u32,
) -> Result<Vec<ChunkHit>, IndexError> {
    let words = words(query);
    if words.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let (statement, query) = match dialect {
        Dialect::Sqlite => (SQLITE_TEXT, fts5_all_of(&words)),
        Dialect::Postgres => (POSTGRES_TEXT, words.join(" ")),
    };
    let rows = sqlx::query(statement)
        .bind(query)
        .bind(project)
        .bind(i64::from(limit))
        .fetch_all(pool)
        .await?;
    rows.iter()
        .map(|row| {
            let score: f64 = row.try_get("score")?;
            hit(row, score as f32)
        })
        .collect()
}

pub(crate) async fn vector(
    pool: &AnyPool,
    project: &str,
    query: &[f32],
    limit: u32,
) -> Result<Vec<ChunkHit>, IndexError> {
    let rows = sqlx::query(
        "SELECT source, path, ordinal, body, vector FROM index_chunks \
         WHERE project = $1 AND vector IS NOT NULL",
    )
    .bind(project)
    .fetch_all(pool)
    .await?;
    let mut hits = Vec::with_capacity(rows.len());
    for row in &rows {
        let bytes: Vec<u8> = row.try_get("vector")?;
        let stored = vector::from_bytes(&bytes).ok_or_else(|| IndexError::Corrupt {
            field: "vector",
            message: format!("{} bytes is not a whole number of f32", bytes.len()),
        })?;
        hits.push(hit(row, vector::cosine(query, &stored))?);
    }
    hits.sort_by(|left, right| right.score.total_cmp(&left.score));
    hits.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Ok(hits)
}

fn hit(row: &sqlx::any::AnyRow, score: f32) -> Result<ChunkHit, IndexError> {
    Ok(ChunkHit {
        source: row.try_get("source")?,
        path: row.try_get("path")?,
        ordinal: codec::to_u32(row.try_get("ordinal")?, "ordinal")?,
        body: row.try_get("body")?,
        score,
    })
}

/// The query's words: letters and digits; everything else separates them, so no user
/// input ever reaches the full-text syntax.
fn words(query: &str) -> Vec<String> {
    query
        .split(|character: char| !character.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// FTS5: every word, each quoted as a string (all must match).
fn fts5_all_of(words: &[String]) -> String {
    words
        .iter()
        .map(|word| format!("\"{word}\""))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_syntax_never_reaches_the_full_text_engine() {
        assert_eq!(
            words("deploy AND (NOT x*) \"quoted\""),
            ["deploy", "and", "not", "x", "quoted"]
        );
        assert_eq!(fts5_all_of(&words("a-b")), "\"a\" \"b\"");
        assert!(words("  --- ").is_empty());
    }
}
