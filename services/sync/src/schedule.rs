//! Sync triggers at work: `auto` watches the source root and syncs once a burst of
//! changes has been quiet for the debounce; `interval:<N><unit>` syncs every period;
//! `manual` does nothing on its own. Changing a source re-arms its trigger.
//!
//! The store is the truth (issue 26 item 1): every replica re-reads the stored sources
//! periodically and when another replica announces a change (`crate::notices`), and
//! re-arms what changed, an `interval:`
//! source runs when this replica moved its stored due time (one replica per period),
//! and every run holds the source's lease (`crate::lease`).

use crate::core::SyncCore;
use crate::lease::Due;
use crate::notices;
use neuralis_bus::InvalidationBus;
use neuralis_index::SourceRecord;
use neuralis_metrics::RunTrigger;
use neuralis_sync_core::Trigger;
use neuralis_sync_core::lease::poll_every;
use notify::{RecursiveMode, Watcher};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;

/// A source by (project, slug).
type Key = (String, String);
/// Tasks by source.
type Tasks = Mutex<HashMap<Key, JoinHandle<()>>>;

/// A trigger armed for a source, with what it was armed from.
struct Armed {
    trigger: String,
    root: String,
    /// `None` for `manual` (and a trigger that no longer parses).
    task: Option<JoinHandle<()>>,
}

impl Armed {
    /// Whether its task has ended: a watcher that could not start (an interval's task
    /// and a running watcher never end on their own).
    fn ended(&self) -> bool {
        self.task.as_ref().is_some_and(JoinHandle::is_finished)
    }
}

/// What the scheduler's tasks share.
struct Shared {
    core: Arc<SyncCore>,
    debounce: Duration,
    armed: Mutex<HashMap<Key, Armed>>,
    /// Re-syncs asked by reads that found a file changed since its row: at most one
    /// waiting per source, however many reads ask.
    soon: Tasks,
    /// Asks the refresh task to re-read the sources now (a trigger found changed, or
    /// another replica announced a change).
    changed: Arc<Notify>,
}

/// The armed triggers, one task per source; dropping the scheduler stops them all.
pub struct Scheduler {
    shared: Arc<Shared>,
    refresh: Mutex<Option<JoinHandle<()>>>,
    /// Where source changes are announced between replicas; none in one process.
    notices: Option<Arc<dyn InvalidationBus>>,
    following: Mutex<Option<JoinHandle<()>>>,
}

impl Scheduler {
    /// A scheduler running syncs on `core`.
    pub fn new(core: Arc<SyncCore>, debounce: Duration) -> Self {
        Self {
            shared: Arc::new(Shared {
                core,
                debounce,
                armed: Mutex::new(HashMap::new()),
                soon: Mutex::new(HashMap::new()),
                changed: Arc::new(Notify::new()),
            }),
            refresh: Mutex::new(None),
            notices: None,
            following: Mutex::new(None),
        }
    }

    /// The same scheduler announcing source changes on `bus`, and re-reading the
    /// sources whenever another replica announces one there (`crate::notices`).
    pub fn with_notices(mut self, bus: Arc<dyn InvalidationBus>) -> Self {
        self.notices = Some(bus);
        self
    }

    /// Tells the other replicas that a source changed (created, updated, deleted).
    pub async fn announce(&self, project: &str, slug: &str) {
        if let Some(bus) = &self.notices {
            notices::announce(bus.as_ref(), project, slug).await;
        }
    }

    /// Arms every stored source, then re-reads them every `period` (and whenever a
    /// trigger is found changed) to follow changes made through other replicas.
    pub async fn follow_store(&self, period: Duration) -> Result<(), crate::SyncError> {
        self.shared.reconcile().await?;
        let shared = Arc::clone(&self.shared);
        let task = tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = tokio::time::sleep(period) => {}
                    () = shared.changed.notified() => {}
                }
                if let Err(err) = shared.reconcile().await {
                    tracing::warn!(error = %err, "stored sources not re-read; triggers unchanged");
                }
            }
        });
        if let Some(old) = lock(&self.refresh).replace(task) {
            old.abort();
        }
        if let Some(bus) = &self.notices {
            let task = tokio::spawn(notices::follow(
                Arc::clone(bus),
                Arc::clone(&self.shared.changed),
                period,
            ));
            if let Some(old) = lock(&self.following).replace(task) {
                old.abort();
            }
        }
        Ok(())
    }

    /// Re-syncs a source once the debounce has passed, whatever its trigger (even
    /// `manual`): a read found one of its files changed since its row, so the index
    /// no longer says what is there. Asked again while one waits, nothing more happens.
    pub fn soon(&self, source: &SourceRecord) {
        let mut waiting = lock(&self.shared.soon);
        if waiting.contains_key(&key(source)) {
            return;
        }
        let shared = Arc::clone(&self.shared);
        let source = source.clone();
        let task_key = key(&source);
        let task = tokio::spawn(async move {
            tokio::time::sleep(shared.debounce).await;
            // Forgotten before the run: a change found during it asks for the next one.
            lock(&shared.soon).remove(&key(&source));
            sync_quietly(&shared.core, &source, RunTrigger::Changed).await;
        });
        waiting.insert(task_key, task);
    }

    /// Arms (or re-arms) a source's trigger.
    pub fn arm(&self, source: &SourceRecord) {
        self.shared.arm(source);
    }

    /// Arms a source's trigger again only when it is not armed or its task has ended
    /// (a watcher that could not start): a running trigger is left alone, since an
    /// `auto` source syncs each time it is armed.
    pub fn revive(&self, source: &SourceRecord) {
        let dead = lock(&self.shared.armed)
            .get(&key(source))
            .is_none_or(Armed::ended);
        if dead {
            self.shared.arm(source);
        }
    }

    /// Stops a source's trigger.
    pub fn disarm(&self, project: &str, slug: &str) {
        self.shared.disarm(&(project.to_owned(), slug.to_owned()));
    }
}

impl Shared {
    fn arm(self: &Arc<Self>, source: &SourceRecord) {
        let task = match source.trigger.parse::<Trigger>() {
            Ok(Trigger::Manual) | Err(_) => None,
            Ok(Trigger::Auto) => Some(tokio::spawn(watch(
                Arc::clone(&self.core),
                source.clone(),
                self.debounce,
            ))),
            // A source stored before the minimum (or under a lower one) runs at it.
            Ok(Trigger::Interval(period)) => Some(tokio::spawn(every(
                Arc::clone(self),
                source.clone(),
                period.max(self.core.schedule.min_interval()),
            ))),
        };
        let armed = Armed {
            trigger: source.trigger.clone(),
            root: source.root.clone(),
            task,
        };
        if let Some(old) = lock(&self.armed).insert(key(source), armed) {
            stop(old);
        }
    }

    fn disarm(&self, key: &Key) {
        if let Some(old) = lock(&self.armed).remove(key) {
            stop(old);
        }
    }

    /// Re-arms every stored source whose trigger or root differs from what is armed,
    /// and disarms the sources no longer stored.
    async fn reconcile(self: &Arc<Self>) -> Result<(), crate::SyncError> {
        let stored = self.core.deps.store.list_sources(None).await?;
        let changed: Vec<&SourceRecord> = {
            let armed = lock(&self.armed);
            stored
                .iter()
                .filter(|source| {
                    armed.get(&key(source)).is_none_or(|armed| {
                        armed.trigger != source.trigger || armed.root != source.root
                    })
                })
                .collect()
        };
        for source in changed {
            self.arm(source);
        }
        let kept: std::collections::HashSet<Key> = stored.iter().map(key).collect();
        let gone: Vec<Key> = lock(&self.armed)
            .keys()
            .filter(|armed| !kept.contains(*armed))
            .cloned()
            .collect();
        for source in gone {
            self.disarm(&source);
        }
        Ok(())
    }
}

fn stop(armed: Armed) {
    if let Some(task) = armed.task {
        task.abort();
    }
}

fn lock<T>(tasks: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    tasks
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        for task in [lock(&self.refresh).take(), lock(&self.following).take()]
            .into_iter()
            .flatten()
        {
            task.abort();
        }
        for (_, armed) in lock(&self.shared.armed).drain() {
            stop(armed);
        }
        for (_, task) in lock(&self.shared.soon).drain() {
            task.abort();
        }
    }
}

fn key(source: &SourceRecord) -> Key {
    (source.project.clone(), source.slug.clone())
}

/// Runs on a task of its own: a trigger re-armed or disarmed meanwhile never leaves a
/// run half done (nor its lease held).
async fn sync_quietly(core: &Arc<SyncCore>, source: &SourceRecord, trigger: RunTrigger) {
    let (core, project, slug) = (
        Arc::clone(core),
        source.project.clone(),
        source.slug.clone(),
    );
    let run = tokio::spawn(async move {
        // A place in the scheduled share first: held for the run, whatever its trigger.
        let _admitted = core.scheduled.admit(&project).await;
        let (updates, _ignored) = mpsc::unbounded_channel();
        // The outcome is recorded in the source's status and logged by the core.
        let _ = core.sync(&project, &slug, &updates, trigger).await;
    });
    let _ = run.await;
}

/// Reads the stored due time an eighth of a period apart and runs when this replica
/// moved it; stops (and asks for a re-read of the sources) when the stored trigger is
/// no longer this one.
async fn every(shared: Arc<Shared>, source: SourceRecord, period: Duration) {
    loop {
        tokio::time::sleep(poll_every(period)).await;
        match shared.core.leases.due(&source, period).await {
            Due::Run => sync_quietly(&shared.core, &source, RunTrigger::Interval).await,
            Due::Wait => {}
            Due::Changed => return shared.changed.notify_one(),
        }
    }
}

/// Syncs once at start (changes made while nobody watched), then after every burst.
async fn watch(core: Arc<SyncCore>, source: SourceRecord, debounce: Duration) {
    let (changes, mut changed) = mpsc::unbounded_channel();
    let on_event = move |event: notify::Result<notify::Event>| {
        if event.is_ok_and(|event| changes_the_tree(&event.kind)) {
            let _ = changes.send(());
        }
    };
    // Links are not followed: a link in the tree to `/` would have the watcher walk and
    // watch the whole host (the walk itself follows only links inside the root).
    let config = notify::Config::default().with_follow_symlinks(false);
    let watcher = notify::RecommendedWatcher::new(on_event, config);
    let mut watcher = match watcher {
        Ok(watcher) => watcher,
        Err(err) => {
            return tracing::warn!(source = %source.slug, error = %err, "cannot watch source");
        }
    };
    if let Err(err) = watcher.watch(std::path::Path::new(&source.root), RecursiveMode::Recursive) {
        return tracing::warn!(source = %source.slug, error = %err, "cannot watch source root");
    }
    sync_quietly(&core, &source, RunTrigger::Auto).await;
    while changed.recv().await.is_some() {
        settle(&mut changed, debounce).await;
        sync_quietly(&core, &source, RunTrigger::Auto).await;
    }
}

/// Whether a watcher event can change what a sync would index. Opening or reading a
/// file (`Access`) cannot, and every sync opens every directory and reads files: counting
/// those, an idle source synced again after each debounce, forever, and every read of a
/// caller started one.
fn changes_the_tree(kind: &notify::EventKind) -> bool {
    !matches!(kind, notify::EventKind::Access(_))
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

    #[tokio::test]
    async fn only_a_trigger_whose_task_ended_counts_as_ended() {
        let armed = |task| Armed {
            trigger: "auto".into(),
            root: "/srv".into(),
            task,
        };
        let ended = tokio::spawn(async {});
        let running = tokio::spawn(std::future::pending::<()>());
        while !ended.is_finished() {
            tokio::task::yield_now().await;
        }
        assert!(armed(Some(ended)).ended());
        let running = armed(Some(running));
        assert!(!running.ended());
        stop(running);
        assert!(!armed(None).ended(), "manual has no task to end");
    }

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
