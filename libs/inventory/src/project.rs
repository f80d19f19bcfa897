//! What the inventory keeps per project.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Raw rows read at one revision.
#[derive(Debug)]
pub(crate) struct Entry<R> {
    pub rows: Arc<R>,
    pub revision: u64,
    /// When the rows were last known to match the index (read, or revalidated).
    pub validated_at: Instant,
    /// A write finished (or failed, or began) since the rows were read: they are the
    /// base a delta applies to, never served as they are.
    pub stale: bool,
    /// What the rows weigh, as [`crate::Weigh`] counted them at store time.
    pub bytes: usize,
}

/// One project's slot.
#[derive(Debug)]
pub(crate) struct ProjectSlot<R> {
    /// Bumped by every event for the project; a fill stores only if it is unchanged.
    pub generation: u64,
    /// Writes whose `start` was seen without a `finish`/`failed`, with when they began.
    pub open_writes: HashMap<String, Instant>,
    pub entry: Option<Entry<R>>,
    pub last_used: Instant,
}

impl<R> ProjectSlot<R> {
    pub fn new(now: Instant) -> Self {
        Self {
            generation: 0,
            open_writes: HashMap::new(),
            entry: None,
            last_used: now,
        }
    }

    /// An open write older than `limit` lost its closing event (pub/sub delivers at
    /// most once); it stops forcing a bypass, and the recovery window covers it.
    pub fn has_open_write(&mut self, now: Instant, limit: Duration) -> bool {
        self.open_writes
            .retain(|_, started| now.saturating_duration_since(*started) < limit);
        !self.open_writes.is_empty()
    }
}
