//! A fair share of expensive calls (issue 25, item 3): at most `per_caller` calls of
//! one caller and `per_project` calls of one project run at once; a call past either
//! is shed at once (no queue), answered RESOURCE_EXHAUSTED with a `RetryInfo` by the
//! service, so one caller cannot take the server's cores, connections or threads from
//! the others, and a busy project cannot take them from other projects.
//!
//! Pure bookkeeping under one mutex held for a map update, never across an await.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The limits (`*.fair_share` in the configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShareLimits {
    /// Expensive calls one caller (token subject) may have running at once.
    pub per_caller: usize,
    /// Expensive calls one project may have running at once, all callers together.
    pub per_project: usize,
    /// The delay a shed call's `RetryInfo` asks for.
    pub retry_after_ms: u64,
}

impl Default for ShareLimits {
    /// Two per caller (a client may overlap one call with the next), three per
    /// project: below the embedded store's four search connections
    /// (`sync.search.connections`), so a project at its share leaves a connection free
    /// for every other project's search instead of a queue to wait in
    /// (`BENCHMARKS.md`, issue 25).
    fn default() -> Self {
        Self {
            per_caller: 2,
            per_project: 3,
            retry_after_ms: 1_000,
        }
    }
}

impl ShareLimits {
    /// The `RetryInfo` delay.
    pub fn retry_after(&self) -> Duration {
        Duration::from_millis(self.retry_after_ms)
    }
}

/// Which share a shed call was over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shed {
    /// The caller's own.
    Caller,
    /// Its project's.
    Project,
}

impl Shed {
    /// The message of the RESOURCE_EXHAUSTED answer (no name of the caller's).
    pub fn message(self) -> &'static str {
        match self {
            Shed::Caller => "too many expensive calls of this caller at once",
            Shed::Project => "too many expensive calls in this project at once",
        }
    }
}

/// Who is running what: counts per caller and per project.
#[derive(Debug, Default)]
struct Running {
    callers: HashMap<String, usize>,
    projects: HashMap<String, usize>,
}

/// The limiter of one service.
#[derive(Debug, Clone)]
pub struct FairShare {
    limits: ShareLimits,
    running: Arc<Mutex<Running>>,
}

/// One admitted call; its place is given back when dropped (the call ended, or its
/// future was dropped).
#[derive(Debug)]
pub struct Admitted {
    running: Arc<Mutex<Running>>,
    caller: String,
    project: String,
}

impl FairShare {
    /// A limiter with `limits` (a limit of 0 counts as 1: a call is always possible).
    pub fn new(limits: ShareLimits) -> Self {
        Self {
            limits,
            running: Arc::default(),
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> ShareLimits {
        self.limits
    }

    /// Admits one call of `caller` in `project`, or sheds it.
    pub fn admit(&self, project: &str, caller: &str) -> Result<Admitted, Shed> {
        let mut running = self
            .running
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let of_caller = running.callers.get(caller).copied().unwrap_or(0);
        if of_caller >= self.limits.per_caller.max(1) {
            return Err(Shed::Caller);
        }
        let of_project = running.projects.get(project).copied().unwrap_or(0);
        if of_project >= self.limits.per_project.max(1) {
            return Err(Shed::Project);
        }
        *running.callers.entry(caller.to_owned()).or_default() += 1;
        *running.projects.entry(project.to_owned()).or_default() += 1;
        Ok(Admitted {
            running: Arc::clone(&self.running),
            caller: caller.to_owned(),
            project: project.to_owned(),
        })
    }

    /// Calls running now (for tests and benches).
    pub fn running(&self) -> usize {
        let running = self
            .running
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        running.projects.values().sum()
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut running = self
            .running
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        release(&mut running.callers, &self.caller);
        release(&mut running.projects, &self.project);
    }
}

/// One place given back; a key at zero is removed, so the maps hold only who runs now.
fn release(counts: &mut HashMap<String, usize>, key: &str) {
    if let Some(count) = counts.get_mut(key) {
        *count = count.saturating_sub(1);
        if *count == 0 {
            counts.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(per_caller: usize, per_project: usize) -> FairShare {
        FairShare::new(ShareLimits {
            per_caller,
            per_project,
            retry_after_ms: 1_000,
        })
    }

    #[test]
    fn a_caller_over_its_share_is_shed_while_another_is_admitted() {
        let share = share(2, 8);
        let first = share.admit("p", "mallory").expect("first");
        let _second = share.admit("p", "mallory").expect("second");
        assert_eq!(share.admit("p", "mallory").err(), Some(Shed::Caller));
        assert!(share.admit("p", "alice").is_ok());
        drop(first);
        assert!(
            share.admit("p", "mallory").is_ok(),
            "a finished call gives its place back"
        );
    }

    #[test]
    fn a_project_over_its_share_is_shed_and_other_projects_are_not() {
        let share = share(1, 2);
        let _a = share.admit("busy", "a").expect("a");
        let _b = share.admit("busy", "b").expect("b");
        assert_eq!(share.admit("busy", "c").err(), Some(Shed::Project));
        assert!(share.admit("quiet", "c").is_ok());
    }

    #[test]
    fn every_place_is_given_back_and_nothing_is_kept() {
        let share = share(3, 3);
        let admitted: Vec<_> = (0..3)
            .map(|_| share.admit("p", "x").expect("in share"))
            .collect();
        assert_eq!(share.running(), 3);
        drop(admitted);
        assert_eq!(share.running(), 0);
        let running = share.running.lock().expect("lock");
        assert!(running.callers.is_empty() && running.projects.is_empty());
    }

    #[test]
    fn a_zero_limit_still_admits_one_call() {
        let share = share(0, 0);
        let _one = share.admit("p", "x").expect("one");
        assert!(share.admit("p", "x").is_err());
    }

    #[test]
    fn the_limits_are_strict_about_unknown_keys() {
        let parsed: Result<ShareLimits, _> =
            serde_json::from_value(serde_json::json!({"per_caller": 1, "per_user": 2}));
        assert!(parsed.is_err());
        let parsed: ShareLimits =
            serde_json::from_value(serde_json::json!({"per_project": 4})).expect("parses");
        assert_eq!((parsed.per_caller, parsed.per_project), (2, 4));
    }
}
