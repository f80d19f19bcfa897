//! Search over chunk rows: full text (FTS5 on SQLite, `tsvector` on PostgreSQL) and
//! nearest vectors (cosine, computed here over the project's stored vectors,
//! `nearest.rs`).
//!
//! A full-text query is checked against the bounds of [`crate::query`] and becomes an
//! all-words match of its distinct words, each a quoted literal term: no operator,
//! prefix, column filter or pattern of the caller's reaches either engine, and the
//! statement's cost grows with the number of words. Every statement runs under a
//! [`SearchBudget`]: on SQLite a progress handler (`embedded.rs`), on PostgreSQL
//! `SET LOCAL statement_timeout`; a vector search too.

pub(crate) mod embedded;
pub(crate) mod nearest;

use super::codec;
use crate::query::{QueryRefused, SearchQuery};
use crate::{ChunkHit, IndexError};
use embedded::Plan;
use sqlx::Row;
use sqlx::{Any, AnyPool, Transaction};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// The work one search, full text or vector, may do in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchBudget {
    /// The longest a search may run, waiting for a connection included; past it the
    /// statement is stopped and the search answers [`IndexError::Exhausted`].
    pub deadline: Duration,
    /// Embedded store: the most SQLite virtual-machine steps one statement may take.
    pub max_steps: u64,
    /// Searches run at once: on the embedded store each on a read connection of its own
    /// (never the store's pool); on PostgreSQL each on a connection of the store's pool,
    /// so keep it under the pool's size (8) or syncs and reads wait behind searches.
    pub connections: usize,
}

impl Default for SearchBudget {
    /// Two seconds, 200 million steps (FTS5 reads a term's postings outside the
    /// virtual machine, so a search at the word bound takes thousands of steps, not
    /// millions: the steps catch a runaway plan, the deadline the rest), four searches
    /// at once: one more than a project's fair share (`discovery.fair_share`), so a
    /// project at its share never makes another project's search wait for a connection.
    fn default() -> Self {
        Self {
            deadline: Duration::from_secs(2),
            max_steps: 200_000_000,
            connections: 4,
        }
    }
}

/// `CROSS JOIN` fixes the order: the full-text index drives, each match then looks up
/// its chunk row. Left to the planner (no statistics), the project's chunk rows drove
/// and the `MATCH` was parsed and evaluated again for every chunk of the project: rows
/// times words (times words again in FTS5's parse of a long all-words query), the
/// cost issue 25 measured growing faster than the query (8,000 words 9 s, 16,000 32 s).
pub(crate) const SQLITE_TEXT: &str = "SELECT c.source, c.path, c.ordinal, c.body, \
     -bm25(index_chunks_fts) AS score \
     FROM index_chunks_fts CROSS JOIN index_chunks c ON c.rowid = index_chunks_fts.rowid \
     WHERE index_chunks_fts MATCH $1 AND c.project = $2 \
     ORDER BY bm25(index_chunks_fts), c.source, c.path, c.ordinal LIMIT $3";

const POSTGRES_TEXT: &str = "SELECT source, path, ordinal, body, \
     CAST(ts_rank(to_tsvector('simple', body), query) AS DOUBLE PRECISION) AS score \
     FROM index_chunks, plainto_tsquery('simple', $1) AS query \
     WHERE to_tsvector('simple', body) @@ query AND project = $2 \
     ORDER BY score DESC, source, path, ordinal LIMIT $3";

/// The query's words, checked against the bounds; `None` when there is nothing to
/// search for.
pub(crate) fn words_of(query: &str, limit: u32) -> Result<Option<Vec<String>>, IndexError> {
    let query = match SearchQuery::parse(query) {
        Ok(query) => query,
        // Nothing to search for is no match, as before the bounds.
        Err(QueryRefused::Required) => return Ok(None),
        Err(refused) => {
            return Err(IndexError::InvalidValue {
                field: crate::query::QUERY_FIELD,
                message: refused.to_string(),
            });
        }
    };
    let words = query.words();
    Ok((!words.is_empty() && limit > 0).then(|| words.to_vec()))
}

/// Full text on the embedded store, on its searcher's own connections.
pub(crate) async fn embedded_text(
    searcher: &embedded::EmbeddedSearch,
    project: &str,
    query: &str,
    limit: u32,
) -> Result<Vec<ChunkHit>, IndexError> {
    let Some(words) = words_of(query, limit)? else {
        return Ok(Vec::new());
    };
    let searched = searcher
        .run(project, Plan::Text(fts5_all_of(&words)), limit)
        .await?;
    tracing::debug!(
        words = words.len(),
        steps = searched.steps,
        "embedded search finished"
    );
    Ok(searched.hits)
}

/// PostgreSQL's searches: at most `budget.connections` at once, each within
/// `budget.deadline` (waiting for its turn and a connection included) in a transaction
/// whose statements stop at the deadline ([`budgeted`]). Without the turns, searches
/// each held a connection of the pool that syncs and reads share for their whole
/// deadline, as many at once as callers sent.
#[derive(Debug)]
pub(crate) struct PostgresSearch {
    budget: SearchBudget,
    turns: Arc<Semaphore>,
}

impl PostgresSearch {
    pub(crate) fn new(budget: SearchBudget) -> Self {
        Self {
            turns: Arc::new(Semaphore::new(budget.connections.max(1))),
            budget,
        }
    }

    /// Full text: every word of the query, ranked by `ts_rank`.
    pub(crate) async fn text(
        &self,
        pool: &AnyPool,
        project: &str,
        query: &str,
        limit: u32,
    ) -> Result<Vec<ChunkHit>, IndexError> {
        let Some(words) = words_of(query, limit)? else {
            return Ok(Vec::new());
        };
        let until = Instant::now() + self.budget.deadline;
        self.within_budget(async {
            let mut tx = budgeted(pool, until).await?;
            let rows = sqlx::query(POSTGRES_TEXT)
                .bind(words.join(" "))
                .bind(project)
                .bind(i64::from(limit))
                .fetch_all(&mut *tx)
                .await
                .map_err(over_budget)?;
            tx.commit().await?;
            rows.iter()
                .map(|row| {
                    let score: f64 = row.try_get("score")?;
                    hit_of(row, score as f32)
                })
                .collect()
        })
        .await
    }

    /// The nearest chunks by cosine (`nearest.rs`).
    pub(crate) async fn nearest(
        &self,
        pool: &AnyPool,
        project: &str,
        query: &[f32],
        limit: u32,
    ) -> Result<Vec<ChunkHit>, IndexError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let until = Instant::now() + self.budget.deadline;
        self.within_budget(nearest::postgres(pool, until, project, query, limit))
            .await
    }

    /// Runs `search` in a turn of its own, all within the deadline.
    async fn within_budget(
        &self,
        search: impl std::future::Future<Output = Result<Vec<ChunkHit>, IndexError>>,
    ) -> Result<Vec<ChunkHit>, IndexError> {
        let turn = async {
            let _turn = Arc::clone(&self.turns)
                .acquire_owned()
                .await
                .map_err(|_| IndexError::Unavailable("the searcher is closed".into()))?;
            search.await
        };
        // The statement timeout stops the server; this stops the wait for a turn and a
        // connection, and the reading of rows already sent.
        tokio::time::timeout(self.budget.deadline, turn)
            .await
            .map_err(|_| IndexError::Exhausted("the search used up its work budget".into()))?
    }
}

/// A transaction whose statements stop at `until`, the search's deadline: the time
/// left once the connection is had, so the server stops when the caller gives up (a
/// connection goes back to the pool only once its statement ended: a timeout of the
/// whole deadline, set after waiting, held it past the search's turn). A dropped future
/// drops the transaction (rolled back when its connection is next used).
async fn budgeted(pool: &AnyPool, until: Instant) -> Result<Transaction<'static, Any>, IndexError> {
    let mut tx = pool.begin().await?;
    let left = until.saturating_duration_since(Instant::now());
    // An integer of milliseconds, formatted here: nothing of the caller's reaches it.
    let timeout = format!("SET LOCAL statement_timeout = {}", left.as_millis().max(1));
    sqlx::raw_sql(sqlx::AssertSqlSafe(timeout))
        .execute(&mut *tx)
        .await?;
    Ok(tx)
}

/// PostgreSQL's `query_canceled` (57014) after `statement_timeout` is a spent budget.
fn over_budget(err: sqlx::Error) -> IndexError {
    match &err {
        sqlx::Error::Database(db) if db.code().as_deref() == Some("57014") => {
            IndexError::Exhausted("the search used up its work budget".into())
        }
        _ => err.into(),
    }
}

/// Nearest vectors on the embedded store, on its searcher's own connections.
pub(crate) async fn embedded_vector(
    searcher: &embedded::EmbeddedSearch,
    project: &str,
    query: &[f32],
    limit: u32,
) -> Result<Vec<ChunkHit>, IndexError> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let searched = searcher
        .run(project, Plan::Nearest(query.to_vec()), limit)
        .await?;
    tracing::debug!(steps = searched.steps, "embedded vector search finished");
    Ok(searched.hits)
}

fn hit_of(row: &sqlx::any::AnyRow, score: f32) -> Result<ChunkHit, IndexError> {
    Ok(ChunkHit {
        source: row.try_get("source")?,
        path: row.try_get("path")?,
        ordinal: codec::to_u32(row.try_get("ordinal")?, "ordinal")?,
        body: row.try_get("body")?,
        score,
    })
}

/// FTS5: every word, each quoted as a string (all must match). A word never holds a
/// quote (`SearchQuery` keeps letters and digits only); one is doubled anyway, FTS5's
/// escape, so the term stays literal whatever a word is made of.
pub(crate) fn fts5_all_of(words: &[String]) -> String {
    words
        .iter()
        .map(|word| format!("\"{}\"", word.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests;
