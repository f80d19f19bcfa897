//! Listings that outlive sync (issue 26 item 2). While sync cannot be reached nothing
//! can write, so a warm project's held rows are current; what decides access besides
//! them is the project's sources (scope, privacy patterns), which live on sync too. The
//! sources read last are remembered with the inventory's mark of the project at the
//! moment of the read, and recalled only while that mark is unchanged: no event for the
//! project came since (sync announces a source's change, like a write, before it
//! commits it) and the subscription was never lost. Anything else is UNAVAILABLE.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use neuralis_inventory::Seen;

use crate::base::ports::SourceInfo;

/// Projects remembered at most; past it, every memory is dropped (a project then
/// answers UNAVAILABLE while sync is away until it is read again).
const MAX_PROJECTS: usize = 100_000;

/// Per project: the sources read last, and the mark they were read under.
type Read = HashMap<String, (Arc<[SourceInfo]>, Seen)>;

/// The sources last read per project, with the mark they were read under.
#[derive(Default)]
pub(crate) struct LastSources {
    read: Mutex<Read>,
}

impl LastSources {
    /// Remembers `sources`, read from sync while the inventory's mark of the project
    /// was `seen` (taken before the read: a later event makes the memory unusable).
    pub(crate) fn remember(&self, project: &str, sources: &[SourceInfo], seen: Seen) {
        let mut read = self.lock();
        if let Some((kept, mark)) = read.get_mut(project) {
            // The usual case: the same sources again, no allocation on a warm call.
            if **kept == *sources {
                *mark = seen;
                return;
            }
        }
        if read.len() >= MAX_PROJECTS && !read.contains_key(project) {
            read.clear();
        }
        read.insert(project.to_owned(), (Arc::from(sources), seen));
    }

    /// The sources remembered for `project` when nothing happened to it since they were
    /// read (`now` is the inventory's mark with the rows it holds).
    pub(crate) fn recall(&self, project: &str, now: Seen) -> Option<Vec<SourceInfo>> {
        let read = self.lock();
        let (sources, seen) = read.get(project)?;
        (*seen == now).then(|| sources.to_vec())
    }

    fn lock(&self) -> MutexGuard<'_, Read> {
        self.read
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
