//! A source's folders outside every package, by path, in runs of adjacent folders each
//! shared whole between snapshots.
//!
//! One map of every folder made a delta's copy of it O(folders): a one-file write
//! outside every package cloned every folder's key (49,800 of them on a tree of small
//! folders, the demo's shape). Runs bound that copy: a changed snapshot copies the list
//! of runs (one pointer per run) and the one run its folder is in.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use super::Kept;

/// Folders per run when the runs are built; a run that grows to twice as many splits.
#[cfg(not(test))]
const RUN: usize = 128;
/// Small in tests, so that every test of the snapshot crosses runs.
#[cfg(test)]
const RUN: usize = 4;

/// One folder's files outside every package, sorted by path. A slice, not a map: most
/// folders hold a few files, and a map's node is sized for eleven (about 1.3 KB for a
/// folder of two files: on a tree of small folders that was most of a cold fill's
/// memory, and much of its time).
pub(super) type Folder = Arc<[(String, Kept)]>;

type Run = BTreeMap<String, Folder>;

/// Folders by path (`""`: the source's top folder). Invariant: every run holds at least
/// one folder and at most `2 * RUN`, and each run's folders sort before the next's.
#[derive(Debug, Clone, Default)]
pub(super) struct Others {
    runs: Vec<Arc<Run>>,
}

impl Others {
    /// Folders given in path order, one per path.
    pub(super) fn from_sorted(folders: impl IntoIterator<Item = (String, Folder)>) -> Self {
        let mut runs = Vec::new();
        let mut folders = folders.into_iter().peekable();
        while folders.peek().is_some() {
            // In path order: each run's map is built in one pass.
            let run: Run = folders.by_ref().take(RUN).collect();
            runs.push(Arc::new(run));
        }
        Self { runs }
    }

    /// The run that holds `folder` when any does, and the one it would go in otherwise:
    /// the first whose last folder is at or after it, or the last run.
    fn run_for(&self, folder: &str) -> Option<usize> {
        let last = self.runs.len().checked_sub(1)?;
        let at = self.runs.partition_point(|run| {
            run.last_key_value()
                .is_some_and(|(held, _)| held.as_str() < folder)
        });
        Some(at.min(last))
    }

    /// [`Self::run_for`], with the run to change.
    fn run_mut(&mut self, folder: &str) -> Option<(usize, &mut Arc<Run>)> {
        let at = self.run_for(folder)?;
        Some((at, self.runs.get_mut(at)?))
    }

    pub(super) fn get(&self, folder: &str) -> Option<&Folder> {
        self.runs.get(self.run_for(folder)?)?.get(folder)
    }

    /// Every folder in path order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&String, &Folder)> {
        self.runs.iter().flat_map(|run| run.iter())
    }

    /// The folders at or after `start`, in path order.
    pub(super) fn from<'a>(
        &'a self,
        start: &'a str,
    ) -> impl Iterator<Item = (&'a String, &'a Folder)> {
        let at = self.run_for(start).unwrap_or(self.runs.len());
        self.runs
            .iter()
            .skip(at)
            .flat_map(move |run| run.range::<str, _>((Bound::Included(start), Bound::Unbounded)))
    }

    /// Puts `files` as `folder`'s, copying only the run it goes in.
    pub(super) fn insert(&mut self, folder: String, files: Folder) {
        let Some((at, run)) = self.run_mut(&folder) else {
            self.runs.push(Arc::new(Run::from([(folder, files)])));
            return;
        };
        let run = Arc::make_mut(run);
        run.insert(folder, files);
        if run.len() > 2 * RUN
            && let Some(middle) = run.keys().nth(RUN).cloned()
        {
            let upper = run.split_off(&middle);
            self.runs.insert(at + 1, Arc::new(upper));
        }
    }

    /// Drops `folder`, copying only the run it was in (a run left empty goes).
    pub(super) fn remove(&mut self, folder: &str) {
        let Some((at, run)) = self.run_mut(folder) else {
            return;
        };
        if !run.contains_key(folder) {
            return;
        }
        let run = Arc::make_mut(run);
        run.remove(folder);
        if run.is_empty() {
            self.runs.remove(at);
        }
    }
}

#[cfg(test)]
#[path = "others_tests.rs"]
mod tests;
