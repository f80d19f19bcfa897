//! A project's rows in pages, read at one revision (`crate::pages`).
//!
//! On the embedded store the rows are read on a blocking thread of their own with
//! the SQLite library itself (`embedded.rs`): through the sqlx pool every row crossed
//! a channel from the connection's worker thread and was converted to a generic row
//! first, which cost more than reading it (BENCHMARKS.md, "Where a cold fill's time
//! goes"). On PostgreSQL a task streams the statement's rows inside a REPEATABLE READ
//! transaction (`any.rs`). Both send whole pages, at most [`PAGES_AHEAD`] ahead of the
//! reader, and stop when the reader is dropped.

pub(crate) mod any;
mod changes;
pub(crate) mod embedded;
mod sources;

use crate::pages::{ListedRow, Page, PageFill, Sent};
use tokio::sync::mpsc;

/// The statement both dialects run: every column a listing carries, in key order.
pub(crate) const ROWS: &str = "SELECT source, path, content_hash, size, modified, \
     classification, payload, usable_manifest, privacy_owner, payload_version, \
     real_path, content_flags FROM index_files WHERE project = $1 ORDER BY source, path";

/// Where the rows of a page go. `false` once the reader is gone.
pub(crate) struct Pager {
    fill: PageFill,
    sender: mpsc::Sender<Sent>,
}

impl Pager {
    pub(crate) fn new(fill: PageFill, sender: mpsc::Sender<Sent>) -> Self {
        Self { fill, sender }
    }

    /// Adds a row from a task; `false` when the reader is gone.
    pub(crate) async fn push(&mut self, row: ListedRow) -> bool {
        match self.fill.push(row) {
            Some(page) => self.sender.send(Ok(Some(Page::Rows(page)))).await.is_ok(),
            None => true,
        }
    }

    /// The last page and the end, or the error that ended the read.
    pub(crate) async fn finish(mut self, outcome: Result<(), crate::IndexError>) {
        let _ = match outcome {
            Ok(()) => {
                let last = self.fill.take();
                if last.is_empty() || self.sender.send(Ok(Some(Page::Rows(last)))).await.is_ok() {
                    self.sender.send(Ok(None)).await
                } else {
                    return;
                }
            }
            Err(error) => self.sender.send(Err(error)).await,
        };
    }
}
