//! Sync triggers at work: `auto` watches the source root and syncs once a burst of
//! changes has been quiet for the debounce; `interval:<N><unit>` syncs every period;
//! `manual` does nothing on its own. Changing a source re-arms its trigger.

use crate::core::SyncCore;
use neuralis_index::SourceRecord;
use neuralis_sync_core::Trigger;
use notify::{RecursiveMode, Watcher};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Tasks by source (project, slug).
type Tasks = Mutex<HashMap<(String, String), JoinHandle<()>>>;

/// The armed triggers, one task per source; dropping the scheduler stops them all.
pub struct Scheduler {
    core: Arc<SyncCore>,
    debounce: Duration,
    armed: Tasks,
    /// Re-syncs asked by reads that found a file changed since its row: at most one
    /// waiting per source, however many reads ask.
    soon: Arc<Tasks>,
}

impl Scheduler {
    /// A scheduler running syncs on `core`.
    pub fn new(core: Arc<SyncCore>, debounce: Duration) -> Self {
        Self {
            core,
            debounce,
            armed: Mutex::new(HashMap::new()),
            soon: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Re-syncs a source once the debounce has passed, whatever its trigger (even
    /// `manual`): a read found one of its files changed since its row, so the index
    /// no longer says what is there. Asked again while one waits, nothing more happens.
    pub fn soon(&self, source: &SourceRecord) {
        let mut waiting = lock(&self.soon);
        if waiting.contains_key(&key(source)) {
            return;
        }
        let (core, soon, debounce) = (
            Arc::clone(&self.core),
            Arc::clone(&self.soon),
            self.debounce,
        );
        let source = source.clone();
        let task_key = key(&source);
        let task = tokio::spawn(async move {
            tokio::time::sleep(debounce).await;
            // Forgotten before the run: a change found during it asks for the next one.
            lock(&soon).remove(&key(&source));
            sync_quietly(&core, &source).await;
        });
        waiting.insert(task_key, task);
    }

    /// Arms (or re-arms) a source's trigger.
    pub fn arm(&self, source: &SourceRecord) {
        self.disarm(&source.project, &source.slug);
        let task = match source.trigger.parse::<Trigger>() {
            Ok(Trigger::Manual) | Err(_) => return,
            Ok(Trigger::Auto) => {
                tokio::spawn(watch(Arc::clone(&self.core), source.clone(), self.debounce))
            }
            Ok(Trigger::Interval(period)) => {
                tokio::spawn(every(Arc::clone(&self.core), source.clone(), period))
            }
        };
        self.lock().insert(key(source), task);
    }

    /// Stops a source's trigger.
    pub fn disarm(&self, project: &str, slug: &str) {
        if let Some(task) = self.lock().remove(&(project.to_owned(), slug.to_owned())) {
            task.abort();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), JoinHandle<()>>> {
        lock(&self.armed)
    }
}

fn lock(tasks: &Tasks) -> std::sync::MutexGuard<'_, HashMap<(String, String), JoinHandle<()>>> {
    tasks
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        for (_, task) in self.lock().drain().chain(lock(&self.soon).drain()) {
            task.abort();
        }
    }
}

fn key(source: &SourceRecord) -> (String, String) {
    (source.project.clone(), source.slug.clone())
}

async fn sync_quietly(core: &SyncCore, source: &SourceRecord) {
    let (updates, _ignored) = mpsc::unbounded_channel();
    // The outcome is recorded in the source's status and logged by the core.
    let _ = core.sync(&source.project, &source.slug, &updates).await;
}

async fn every(core: Arc<SyncCore>, source: SourceRecord, period: Duration) {
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        sync_quietly(&core, &source).await;
    }
}

/// Syncs once at start (changes made while nobody watched), then after every burst.
async fn watch(core: Arc<SyncCore>, source: SourceRecord, debounce: Duration) {
    let (changes, mut changed) = mpsc::unbounded_channel();
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok() {
            let _ = changes.send(());
        }
    });
    let mut watcher = match watcher {
        Ok(watcher) => watcher,
        Err(err) => {
            return tracing::warn!(source = %source.slug, error = %err, "cannot watch source");
        }
    };
    if let Err(err) = watcher.watch(std::path::Path::new(&source.root), RecursiveMode::Recursive) {
        return tracing::warn!(source = %source.slug, error = %err, "cannot watch source root");
    }
    sync_quietly(&core, &source).await;
    while changed.recv().await.is_some() {
        settle(&mut changed, debounce).await;
        sync_quietly(&core, &source).await;
    }
}

/// How long a burst that never quiets down may hold a sync back, in debounce periods.
const MAX_WAIT_IN_DEBOUNCES: u32 = 10;

/// Waits until the changes have been quiet for `debounce`, but never longer than
/// [`MAX_WAIT_IN_DEBOUNCES`] debounces: a tree written to without pause still syncs.
async fn settle(changed: &mut mpsc::UnboundedReceiver<()>, debounce: Duration) {
    let give_up = tokio::time::Instant::now() + debounce * MAX_WAIT_IN_DEBOUNCES;
    while tokio::time::Instant::now() < give_up {
        match tokio::time::timeout(debounce, changed.recv()).await {
            Ok(Some(())) => continue,
            Ok(None) | Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEBOUNCE: Duration = Duration::from_millis(100);

    #[tokio::test(start_paused = true)]
    async fn a_burst_settles_once_it_has_been_quiet_for_the_debounce() {
        let (changes, mut changed) = mpsc::unbounded_channel();
        for _ in 0..5 {
            changes.send(()).expect("sent");
        }
        let started = tokio::time::Instant::now();
        settle(&mut changed, DEBOUNCE).await;
        assert_eq!(
            started.elapsed(),
            DEBOUNCE,
            "one quiet debounce after the burst"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_that_never_quiets_still_syncs_after_the_longest_wait() {
        let (changes, mut changed) = mpsc::unbounded_channel();
        let writer = tokio::spawn(async move {
            loop {
                if changes.send(()).is_err() {
                    return;
                }
                tokio::time::sleep(DEBOUNCE / 2).await;
            }
        });
        let started = tokio::time::Instant::now();
        settle(&mut changed, DEBOUNCE).await;
        writer.abort();
        let waited = started.elapsed();
        assert!(waited >= DEBOUNCE * MAX_WAIT_IN_DEBOUNCES, "{waited:?}");
        assert!(
            waited <= DEBOUNCE * (MAX_WAIT_IN_DEBOUNCES + 1),
            "{waited:?}"
        );
    }
}
