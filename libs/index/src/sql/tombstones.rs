//! Pruning tombstones. Every delete leaves one (DESIGN.md section 3: deltas carry
//! deletes), and a project that deletes paths under ever new names would keep them
//! forever. A delta starting at `since` needs only the tombstones written after
//! `since`, so the ones of old revisions can go once the delta floor is raised past
//! them: a reader holding an older revision then gets `None` and re-reads in full.

use super::Dialect;
use super::codec;
use crate::{IndexError, Pruned};
use sqlx::AnyPool;

/// Raises the floor to the newest tombstone at least `keep` revisions old (never
/// lowers it), under the project row's write lock: a batch raising the revision waits,
/// so the revision the cut is taken from is the committed one. The floor moves only as
/// far as a pruned tombstone requires, so readers between it and the cut keep deltas.
const SQLITE_RAISE_FLOOR: &str = "UPDATE index_projects SET delta_floor = max(delta_floor, \
     coalesce((SELECT max(t.revision) FROM index_tombstones t WHERE t.project = $1 \
     AND t.revision <= index_projects.revision - $2), 0)) \
     WHERE project = $1 RETURNING delta_floor";
const POSTGRES_RAISE_FLOOR: &str = "UPDATE index_projects SET delta_floor = \
     GREATEST(delta_floor, coalesce((SELECT max(t.revision) FROM index_tombstones t \
     WHERE t.project = $1 AND t.revision <= index_projects.revision - $2), 0)) \
     WHERE project = $1 RETURNING delta_floor";

/// Every tombstone at or below the floor: no delta the store answers reads them (a
/// delta since `since >= floor` reads only tombstones written after `since`).
const DELETE_BELOW_FLOOR: &str =
    "DELETE FROM index_tombstones WHERE project = $1 AND revision <= $2";

/// Removes the tombstones of `project` written `keep` revisions or more before its
/// current revision, raising its delta floor to the newest one removed, in one
/// transaction.
pub(crate) async fn prune(
    pool: &AnyPool,
    dialect: Dialect,
    project: &str,
    keep: u64,
) -> Result<Pruned, IndexError> {
    let keep = codec::to_i64(keep, "tombstone retention")?;
    let raise = match dialect {
        Dialect::Sqlite => SQLITE_RAISE_FLOOR,
        Dialect::Postgres => POSTGRES_RAISE_FLOOR,
    };
    let mut tx = pool.begin().await?;
    // The first statement writes, so SQLite takes the write lock at once (a read first
    // could not be upgraded once another writer committed).
    let floor: Option<i64> = sqlx::query_scalar(raise)
        .bind(project)
        .bind(keep)
        .fetch_optional(&mut *tx)
        .await?;
    let Some(floor) = floor else {
        // A project never written has no tombstones.
        tx.commit().await?;
        return Ok(Pruned::default());
    };
    let removed = sqlx::query(DELETE_BELOW_FLOOR)
        .bind(project)
        .bind(floor)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    tx.commit().await?;
    Ok(Pruned {
        floor: codec::to_u64(floor, "delta_floor")?,
        removed,
    })
}
