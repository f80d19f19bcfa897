//! `sync.schedule`: what syncs nobody asked for at that moment may cost
//! (`crate::schedule::share`), and how many sources one project may hold.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// `sync.schedule`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScheduleLimits {
    /// Scheduled runs this process makes at once, in all projects; the others wait
    /// their turn (first come, first served).
    pub concurrent_runs: usize,
    /// Scheduled runs of one project at once: a project with many sources waits for
    /// its own, not the others'.
    pub project_runs: usize,
    /// The shortest `interval:` a source may be given, in milliseconds; a source
    /// stored with a shorter one (before this bound) runs at this one.
    pub min_interval_ms: u64,
    /// The most sources one project may hold.
    pub max_sources_per_project: usize,
}

impl Default for ScheduleLimits {
    fn default() -> Self {
        ScheduleLimits {
            concurrent_runs: 2,
            project_runs: 1,
            min_interval_ms: 60_000,
            max_sources_per_project: 256,
        }
    }
}

impl ScheduleLimits {
    /// The shortest period an `interval:` source runs at.
    pub fn min_interval(&self) -> Duration {
        Duration::from_millis(self.min_interval_ms)
    }
}
