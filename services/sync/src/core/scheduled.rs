//! What syncs nobody asked for at that moment may cost (`sync.schedule`): `interval:`
//! and `auto` runs and the re-syncs reads ask for run outside any caller's fair share,
//! so they have bounds of their own. Without them one project's administrator could
//! create sources without end, each syncing every second, and take every core of the
//! sync service from every other project.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::config::ScheduleLimits;

/// The places scheduled runs take: one of the project's, then one of all.
pub(crate) struct ScheduledShare {
    all: Arc<Semaphore>,
    per_project: usize,
    projects: Mutex<HashMap<String, Arc<Semaphore>>>,
}

/// A scheduled run's places, held until it ends.
pub(crate) struct Admitted {
    _project: OwnedSemaphorePermit,
    _all: OwnedSemaphorePermit,
}

impl ScheduledShare {
    pub(crate) fn new(limits: &ScheduleLimits) -> Self {
        ScheduledShare {
            all: Arc::new(Semaphore::new(limits.concurrent_runs.max(1))),
            per_project: limits.project_runs.max(1),
            projects: Mutex::new(HashMap::new()),
        }
    }

    /// Waits for a place for a scheduled run of `project`: the project's first, so a
    /// project waiting on its own runs holds none of the places all projects share.
    pub(crate) async fn admit(&self, project: &str) -> Option<Admitted> {
        let of_project = {
            let mut projects = self
                .projects
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let per_project = self.per_project;
            Arc::clone(
                projects
                    .entry(project.to_owned())
                    .or_insert_with(|| Arc::new(Semaphore::new(per_project))),
            )
        };
        // The semaphores are never closed: `None` cannot happen, and would skip the run.
        let project = of_project.acquire_owned().await.ok()?;
        let all = Arc::clone(&self.all).acquire_owned().await.ok()?;
        Some(Admitted {
            _project: project,
            _all: all,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn limits(concurrent_runs: usize, project_runs: usize) -> ScheduleLimits {
        ScheduleLimits {
            concurrent_runs,
            project_runs,
            ..ScheduleLimits::default()
        }
    }

    #[tokio::test]
    async fn a_project_holds_at_most_its_places_and_all_projects_at_most_theirs() {
        let share = ScheduledShare::new(&limits(2, 1));
        let first = share.admit("p1").await.expect("a place");
        let second_of_p1 = tokio::time::timeout(Duration::from_millis(50), share.admit("p1"));
        assert!(second_of_p1.await.is_err(), "p1's second run waits");
        let p2 = share.admit("p2").await.expect("another project's place");
        let third = tokio::time::timeout(Duration::from_millis(50), share.admit("p3"));
        assert!(third.await.is_err(), "every shared place is taken");
        drop(first);
        share.admit("p3").await.expect("a place freed");
        drop(p2);
    }

    #[test]
    fn zero_places_are_read_as_one() {
        let share = ScheduledShare::new(&limits(0, 0));
        assert_eq!(share.all.available_permits(), 1);
        assert_eq!(share.per_project, 1);
    }
}
