//! The embedded store's read of a project's sources, which every request makes (a
//! source's scope and privacy patterns decide access, so they are never cached): one
//! statement on a kept connection of the lister, on the calling worker, inline where
//! a slot allows (`EmbeddedLister::short_read`, `Rows::Few`). Through the generic pool
//! it cost a hand-off to sqlx's worker thread per step and a conversion of each row
//! (issue 31, warm `ListPackages`).

use super::embedded::EmbeddedLister;
use crate::sql::codec::{self, source_columns};
use crate::{IndexError, SourceRecord};
use neuralis_blocking_read::Rows;

/// A project's sources in slug order, as `sources::list` reads them from the pool.
const PROJECT_SOURCES: &str = concat!(
    "SELECT ",
    source_columns!(),
    " FROM index_sources WHERE project = ?1 ORDER BY slug"
);

impl EmbeddedLister {
    /// `project`'s sources, in slug order.
    pub(crate) async fn sources(&self, project: &str) -> Result<Vec<SourceRecord>, IndexError> {
        let project = project.to_owned();
        self.short_read(Rows::Few, move |connection| {
            let mut statement = connection.prepare_cached(PROJECT_SOURCES)?;
            let mut rows = statement.query([&project])?;
            let mut sources = Vec::new();
            while let Some(row) = rows.next()? {
                sources.push(codec::source_record(row)?);
            }
            Ok(sources)
        })
        .await
    }
}
