//! Source leases and due times (issue 26 item 1): one row per source, written only by
//! compare-and-set on the values a replica read, so of two replicas that decided from
//! the same row exactly one changes it. The row is made on first use with the values a
//! missing row reads as (free, never scheduled).

use crate::{IndexError, LeaseRow, SourceTurn};
use sqlx::AnyPool;

/// A source's trigger and its lease row's columns, `NULL` before the row is made.
type TurnRow = (String, Option<String>, Option<i64>, Option<i64>);

pub(crate) async fn turn(
    pool: &AnyPool,
    project: &str,
    slug: &str,
) -> Result<Option<SourceTurn>, IndexError> {
    let row: Option<TurnRow> = sqlx::query_as(
        "SELECT s.sync_trigger, l.holder, l.expires_at, l.next_due FROM index_sources s \
         LEFT JOIN index_leases l ON l.project = s.project AND l.slug = s.slug \
         WHERE s.project = $1 AND s.slug = $2",
    )
    .bind(project)
    .bind(slug)
    .fetch_optional(pool)
    .await?;
    Ok(
        row.map(|(trigger, holder, expires_at, next_due)| SourceTurn {
            trigger,
            lease: LeaseRow {
                holder: holder.unwrap_or_default(),
                expires_at: expires_at.unwrap_or(0),
            },
            next_due: next_due.unwrap_or(0),
        }),
    )
}

pub(crate) async fn swap_lease(
    pool: &AnyPool,
    project: &str,
    slug: &str,
    seen: &LeaseRow,
    next: &LeaseRow,
) -> Result<bool, IndexError> {
    ensure(pool, project, slug).await?;
    let swapped = sqlx::query(
        "UPDATE index_leases SET holder = $5, expires_at = $6 \
         WHERE project = $1 AND slug = $2 AND holder = $3 AND expires_at = $4",
    )
    .bind(project)
    .bind(slug)
    .bind(&seen.holder)
    .bind(seen.expires_at)
    .bind(&next.holder)
    .bind(next.expires_at)
    .execute(pool)
    .await?;
    Ok(swapped.rows_affected() == 1)
}

pub(crate) async fn swap_due(
    pool: &AnyPool,
    project: &str,
    slug: &str,
    seen: i64,
    next: i64,
) -> Result<bool, IndexError> {
    ensure(pool, project, slug).await?;
    let swapped = sqlx::query(
        "UPDATE index_leases SET next_due = $4 \
         WHERE project = $1 AND slug = $2 AND next_due = $3",
    )
    .bind(project)
    .bind(slug)
    .bind(seen)
    .bind(next)
    .execute(pool)
    .await?;
    Ok(swapped.rows_affected() == 1)
}

async fn ensure(pool: &AnyPool, project: &str, slug: &str) -> Result<(), IndexError> {
    sqlx::query(
        "INSERT INTO index_leases (project, slug, holder, expires_at, next_due) \
         VALUES ($1, $2, '', 0, 0) ON CONFLICT DO NOTHING",
    )
    .bind(project)
    .bind(slug)
    .execute(pool)
    .await?;
    Ok(())
}
