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

/// The armed triggers, one task per source; dropping the scheduler stops them all.
pub struct Scheduler {
    core: Arc<SyncCore>,
    debounce: Duration,
    armed: Mutex<HashMap<(String, String), JoinHandle<()>>>,
}

impl Scheduler {
    /// A scheduler running syncs on `core`.
    pub fn new(core: Arc<SyncCore>, debounce: Duration) -> Self {
        Self {
            core,
            debounce,
            armed: Mutex::new(HashMap::new()),
        }
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
        self.armed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        for (_, task) in self.lock().drain() {
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
        // Wait until the burst has been quiet for the debounce, however long it lasts.
        while let Ok(Some(())) = tokio::time::timeout(debounce, changed.recv()).await {}
        sync_quietly(&core, &source).await;
    }
}
