//! Nearest chunks by cosine over the project's stored vectors, under the same budget as
//! a full-text search.
//!
//! Why a scan in the open: the stores hold no vector index, so the similarity is
//! computed here for every stored vector of the project. Before, every chunk row of
//! the project, text and vector, was read into memory at once on the store's shared
//! pool, with no deadline: one member's searches of a large project held the pool and
//! memory in proportion to the project. Now rows stream past a [`Nearest`] of `limit`
//! entries (a chunk's text is copied only when it could be kept), on the embedded
//! store on the searcher's own connections under its progress handler, on PostgreSQL
//! in a transaction whose statements stop at the deadline.

use super::{budgeted, hit_of, over_budget};
use crate::vector::{Nearest, cosine_stored};
use crate::{ChunkHit, IndexError};
use futures::TryStreamExt;
use rusqlite::types::Type;
use sqlx::{AnyPool, Row};

/// Every stored vector of a project, with what a hit answers.
pub(crate) const VECTOR_SQL: &str = "SELECT source, path, ordinal, body, vector \
     FROM index_chunks WHERE project = $1 AND vector IS NOT NULL";

/// A hit's place: the tie-break between equal scores.
type Place = (String, String, u32);

/// The scan on an embedded search connection (its budget installed by the caller).
pub(super) fn scan_embedded(
    connection: &rusqlite::Connection,
    project: &str,
    query: &[f32],
    limit: u32,
) -> rusqlite::Result<Vec<ChunkHit>> {
    let mut statement = connection.prepare_cached(VECTOR_SQL)?;
    let mut rows = statement.query(rusqlite::params![project])?;
    let mut nearest: Nearest<Place, String> = Nearest::new(limit_of(limit));
    while let Some(row) = rows.next()? {
        let stored = row
            .get_ref(4)?
            .as_blob()
            .map_err(|err| rusqlite::Error::FromSqlConversionFailure(4, Type::Blob, err.into()))?;
        let score = cosine_stored(query, stored).ok_or_else(|| corrupt(stored.len()))?;
        if nearest.may_keep(score) {
            let ordinal: i64 = row.get(2)?;
            let place = (row.get(0)?, row.get(1)?, ordinal_of(ordinal));
            nearest.offer(score, place, row.get(3)?);
        }
    }
    Ok(hits(nearest))
}

/// The scan on PostgreSQL, row by row as they arrive, its statement stopped at `until`
/// (the caller bounds the whole, [`super::PostgresSearch`]).
pub(super) async fn postgres(
    pool: &AnyPool,
    until: std::time::Instant,
    project: &str,
    query: &[f32],
    limit: u32,
) -> Result<Vec<ChunkHit>, IndexError> {
    let mut tx = budgeted(pool, until).await?;
    let mut nearest: Nearest<Place, String> = Nearest::new(limit_of(limit));
    {
        let mut rows = sqlx::query(VECTOR_SQL).bind(project).fetch(&mut *tx);
        while let Some(row) = rows.try_next().await.map_err(over_budget)? {
            let stored: Vec<u8> = row.try_get("vector")?;
            let score = cosine_stored(query, &stored).ok_or_else(|| IndexError::Corrupt {
                field: "vector",
                message: corrupt_message(stored.len()),
            })?;
            if nearest.may_keep(score) {
                let found = hit_of(&row, score)?;
                nearest.offer(score, (found.source, found.path, found.ordinal), found.body);
            }
        }
    }
    tx.commit().await?;
    Ok(hits(nearest))
}

fn hits(nearest: Nearest<Place, String>) -> Vec<ChunkHit> {
    nearest
        .into_best()
        .into_iter()
        .map(|(score, (source, path, ordinal), body)| ChunkHit {
            source,
            path,
            ordinal,
            body,
            score,
        })
        .collect()
}

fn limit_of(limit: u32) -> usize {
    usize::try_from(limit).unwrap_or(usize::MAX)
}

fn ordinal_of(ordinal: i64) -> u32 {
    u32::try_from(ordinal).unwrap_or(u32::MAX)
}

fn corrupt(len: usize) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(4, Type::Blob, corrupt_message(len).into())
}

fn corrupt_message(len: usize) -> String {
    format!("a stored vector of {len} bytes is not a whole number of f32")
}
