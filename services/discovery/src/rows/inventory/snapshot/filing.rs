//! Rows filed per source as a read brings them, for grouping.
//!
//! A cold fill used to collect every decoded row of the project, then file them per
//! source: both vectors were held at once, the largest part of its memory peak (22 and
//! 12 of 54 MB of heap for 100,000 rows, heaptrack). The filing takes each row as it
//! is decoded, into runs of bounded size that are never copied to grow (a vector
//! grown by doubling holds its old and new buffers at once), and hands them to the
//! grouping a run at a time, each run freed once it is read.

use std::collections::BTreeMap;

use neuralis_layout::IndexedFile;

use super::source::{in_view, view};
use super::{Kept, ProjectSnapshot, SourceSnapshot, kept, sorted_unique};
use crate::base::ports::{IndexRow, RowSink, SourceInfo};

/// The first run of a source holds this many rows; each next one twice the last, up to
/// [`LONGEST_RUN`]: a small source costs a small run, a large one wastes at most one
/// run's unused room.
const FIRST_RUN: usize = 64;
const LONGEST_RUN: usize = 4096;

/// One source's rows, in the order they came.
#[derive(Default)]
struct Held {
    runs: Vec<Vec<(String, Kept)>>,
    /// Every path greater than the one before it (the store's order): then the rows
    /// are grouped as they are, with no sort and no duplicate to drop.
    ascending: bool,
    /// While `ascending`, the files the roots can depend on (`source::view`), taken as
    /// they come: beside the read, not after its last row (a profile of the cold fill
    /// put 3 % of its samples in finding them after, BENCHMARKS.md round 13).
    view: Vec<IndexedFile>,
}

impl Held {
    fn push(&mut self, file: (String, Kept)) {
        let last = self.runs.last().and_then(|run| run.last());
        self.ascending = match last {
            None => true,
            Some((path, _)) => self.ascending && *path < file.0,
        };
        if !self.ascending {
            self.view = Vec::new(); // found after the sort instead
        } else if let Some(seen) = in_view(&file.0, &file.1) {
            self.view.push(seen);
        }
        let full = self
            .runs
            .last()
            .is_none_or(|run| run.len() == run.capacity());
        if full {
            let room = self.runs.last().map_or(FIRST_RUN, |run| 2 * run.capacity());
            self.runs.push(Vec::with_capacity(room.min(LONGEST_RUN)));
        }
        if let Some(run) = self.runs.last_mut() {
            run.push(file);
        }
    }

    /// `later`'s rows after these, as if they had come after them.
    fn append(&mut self, later: Held) {
        self.ascending = false; // grouped after a sort, which keeps the later of a path
        self.view = Vec::new();
        self.runs.extend(later.runs);
    }

    /// The source grouped whole.
    fn grouped(self, slug: String) -> SourceSnapshot {
        if self.ascending {
            return SourceSnapshot::grouped(slug, self.runs, self.view);
        }
        let runs = vec![sorted_unique(self.runs.into_iter().flatten().collect())];
        let view = view(&runs);
        SourceSnapshot::grouped(slug, runs, view)
    }
}

/// A project's rows filed per source id as they arrive (see the module's note).
#[derive(Default)]
pub struct Filing {
    sources: BTreeMap<String, Held>,
    /// The source the last row was put under, and its rows: rows come a source at a
    /// time, so most puts compare one id and look nothing up.
    current: Option<(String, Held)>,
}

impl Filing {
    /// Ends the current source's run of rows.
    fn close(&mut self) {
        if let Some((id, held)) = self.current.take() {
            self.file(id, held);
        }
    }

    fn file(&mut self, id: String, held: Held) {
        match self.sources.entry(id) {
            std::collections::btree_map::Entry::Vacant(entry) => {
                entry.insert(held);
            }
            std::collections::btree_map::Entry::Occupied(mut entry) => entry.get_mut().append(held),
        }
    }

    /// The rows grouped per source, read at `revision`; each source named by its slug
    /// in `sources` (by its id when it is not listed there).
    pub fn snapshot(mut self, revision: u64, sources: &[SourceInfo]) -> ProjectSnapshot {
        self.close();
        let sources = self
            .sources
            .into_iter()
            .map(|(id, held)| {
                let slug = sources
                    .iter()
                    .find(|source| source.id == id)
                    .map_or_else(|| id.clone(), |source| source.slug.clone());
                (id, std::sync::Arc::new(held.grouped(slug)))
            })
            .collect();
        ProjectSnapshot { revision, sources }
    }
}

impl RowSink for Filing {
    fn put(&mut self, source_id: &str, row: IndexRow) {
        match &mut self.current {
            Some((id, held)) if id == source_id => held.push(kept(row)),
            _ => {
                self.close();
                let mut held = Held::default();
                held.push(kept(row));
                self.current = Some((source_id.to_owned(), held));
            }
        }
    }

    fn rekey(&mut self, from: &str, to: Option<&str>) {
        self.close();
        if let Some(held) = self.sources.remove(from)
            && let Some(to) = to
        {
            self.file(to.to_owned(), held);
        }
    }
}

#[cfg(test)]
#[path = "filing_tests.rs"]
mod tests;
