//! The embedded store's delta read (the rows and tombstones since a revision), which
//! the first request after a write makes: one read transaction on a kept connection
//! of the lister, on the calling worker, its core handed over first: a delta can be a
//! whole source's rows (`EmbeddedLister::short_read`, `Rows::AnyNumber`).
//! Through the generic pool it took a hand-off to sqlx's worker thread per statement
//! (begin, three queries, commit) and a conversion of each row (issue 31, finish to a
//! fresh answer).

use neuralis_blocking_read::Rows;
use rusqlite::{Connection, OptionalExtension, ToSql};

use super::embedded::EmbeddedLister;
use crate::sql::codec;
use crate::sql::rows::{CHANGED_ROWS, REMOVED_SINCE, REVISION_AND_FLOOR, delta_reaches, removed};
use crate::{IndexError, ProjectChanges};

impl EmbeddedLister {
    /// What changed in `project` after revision `since`, read in one transaction;
    /// `None` when the index cannot tell (before its tombstones' floor, or ahead of
    /// its revision).
    pub(crate) async fn changes_since(
        &self,
        project: &str,
        since: u64,
    ) -> Result<Option<ProjectChanges>, IndexError> {
        let project = project.to_owned();
        self.short_read(Rows::AnyNumber, move |connection| {
            connection.execute_batch("BEGIN")?;
            let changes = read(connection, &project, since)?;
            connection.execute_batch("COMMIT")?;
            Ok(changes)
        })
        .await
    }
}

fn read(
    connection: &Connection,
    project: &str,
    since: u64,
) -> Result<Option<ProjectChanges>, IndexError> {
    let found: Option<(i64, i64)> = connection
        .prepare_cached(REVISION_AND_FLOOR)?
        .query_row(&[("$1", &project as &dyn ToSql)], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    let found = found.unwrap_or((0, 0));
    if !delta_reaches(since, found)? {
        return Ok(None);
    }
    let after = codec::to_i64(since, "revision")?;
    let parameters: &[(&str, &dyn ToSql)] = &[("$1", &project), ("$2", &after)];
    let mut statement = connection.prepare_cached(CHANGED_ROWS)?;
    let mut rows = Vec::new();
    let mut read = statement.query(parameters)?;
    while let Some(row) = read.next()? {
        rows.push(codec::file_row(row)?);
    }
    let gone = connection
        .prepare_cached(REMOVED_SINCE)?
        .query_map(parameters, |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<Vec<(String, String)>, _>>()?;
    Ok(Some(ProjectChanges {
        since,
        revision: codec::to_u64(found.0, "revision")?,
        rows,
        removed: removed(gone),
    }))
}
