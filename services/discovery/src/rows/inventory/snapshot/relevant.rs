//! The relevant files of a source as the grouping reads them, and a delta's copy of
//! them: copied once, on the delta's first change to them, then grouped as they are.

use std::collections::HashMap;

use neuralis_layout::IndexedFile;

use super::{Kept, RowFacts, SourceSnapshot};

/// Sorted by path (their facts are in [`SourceSnapshot::rows`]).
pub(super) type Relevant = Vec<IndexedFile>;

/// Where `path` is (or would go) in sorted relevant files.
pub(super) fn find(relevant: &Relevant, path: &str) -> Result<usize, usize> {
    relevant.binary_search_by(|file| file.path.as_str().cmp(path))
}

/// The relevant files and their facts, copied on a delta's first change to them.
pub(super) struct Copied<'a> {
    pub(super) held: &'a SourceSnapshot,
    pub(super) relevant: Option<Relevant>,
    pub(super) rows: Option<HashMap<String, RowFacts>>,
}

impl Copied<'_> {
    fn relevant(&self) -> &Relevant {
        self.relevant.as_ref().unwrap_or(&self.held.relevant)
    }

    fn both(&mut self) -> (&mut Relevant, &mut HashMap<String, RowFacts>) {
        let held = self.held;
        (
            self.relevant
                .get_or_insert_with(|| held.relevant.as_ref().clone()),
            self.rows.get_or_insert_with(|| held.rows.as_ref().clone()),
        )
    }

    /// Drops `path` if it is relevant; whether it was.
    pub(super) fn remove(&mut self, path: &str) -> bool {
        let Ok(at) = find(self.relevant(), path) else {
            return false;
        };
        let (relevant, rows) = self.both();
        relevant.remove(at);
        rows.remove(path);
        true
    }

    pub(super) fn insert(&mut self, path: String, kept: Kept) {
        let at = find(self.relevant(), &path);
        let (relevant, rows) = self.both();
        rows.insert(path.clone(), kept.facts);
        let file = IndexedFile {
            path,
            payload: kept.payload,
        };
        match at {
            Ok(at) => relevant[at] = file,
            Err(at) => relevant.insert(at, file),
        }
    }
}
