//! The inventory shell: the pure protocol of `neuralis-inventory`, fed by the
//! invalidation bus and filled from sync.
//!
//! Notices are drained from the subscription at the start of every lookup (and by an
//! idle task), so an event the bus had delivered before a request began is applied
//! before that request decides: with the in-process bus, a `finish` published before
//! a call starts is always honoured by that call.
//!
//! A finish (or a moved revision at the end of the recovery window) is caught up by a
//! delta: sync's rows changed since the revision held, applied to the held snapshot
//! (see `snapshot`); a full re-read only when sync cannot answer from that revision.
//! A finish is caught up as soon as its event arrives, in the background (see
//! `eager`); a call that finds that catch-up running waits for it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use futures::StreamExt;
use neuralis_bus::{BusNotice, Phase as BusPhase, Subscription};
use neuralis_inventory::{FillTicket, Inventory, InventorySettings, Lookup, Phase, Seen};

use crate::base::error::DiscoveryError;
use crate::base::ports::{IndexPort, RowsSince, SourceInfo};

mod beside;
mod changes;
mod eager;
mod snapshot;

pub use beside::Beside;
#[cfg(test)]
pub(crate) use beside::weighed;
pub use snapshot::{Filing, ProjectSnapshot, Regrouped, RowFacts, SourceSnapshot};

use beside::Kept;

struct State {
    inventory: Inventory<Kept>,
    subscription: Option<Subscription>,
    /// The follower's: every drain polls the subscription with it, so a notice that
    /// arrives after a request drained still wakes the follower.
    waker: Option<Waker>,
    /// Per project, the background catch-up started last (see `eager`).
    applying: HashMap<String, eager::Applying>,
    /// Who waits for a project's rows to change.
    changes: changes::Changes,
}

/// The inventory of this discovery instance.
pub struct InventoryShell {
    state: Mutex<State>,
    /// Set once the finishes are caught up in the background.
    eager: OnceLock<eager::Eager>,
    /// What the stages above keep beside the snapshots, once wired in.
    beside: OnceLock<Arc<dyn Beside>>,
    me: Weak<InventoryShell>,
}

impl InventoryShell {
    /// An inventory that caches nothing until [`InventoryShell::attach`].
    pub fn new(settings: InventorySettings) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            state: Mutex::new(State {
                inventory: Inventory::new(settings),
                subscription: None,
                waker: None,
                applying: HashMap::new(),
                changes: changes::Changes::default(),
            }),
            eager: OnceLock::new(),
            beside: OnceLock::new(),
            me: me.clone(),
        })
    }

    /// Starts following `subscription` (already live); caching begins now.
    pub fn attach(self: &Arc<Self>, subscription: Subscription) {
        {
            let mut state = self.lock();
            state.subscription = Some(subscription);
            state.inventory.subscription_up();
            neuralis_metrics::subscription_attached();
        }
        spawn_follower(Arc::downgrade(self));
    }

    /// From now on, what `beside` keeps beside each snapshot is weighed with it, and
    /// `beside` hears of replaced, let go and caught-up snapshots (see [`Beside`]).
    pub fn keep_beside(&self, beside: Arc<dyn Beside>) {
        let _ = self.beside.set(beside);
    }

    /// Whether events are arriving (the cache is in use).
    pub fn is_live(&self) -> bool {
        self.lock().inventory.is_subscribed()
    }

    /// What the inventory has seen of `project` so far (see
    /// [`neuralis_inventory::Inventory::seen`]).
    pub fn seen(&self, project: &str) -> Seen {
        self.drained().inventory.seen(project)
    }

    /// Wakes each time a write in `project` finishes or fails, or events may have been
    /// missed (`WatchPackages`).
    pub fn changes(&self, project: &str) -> tokio::sync::watch::Receiver<u64> {
        self.lock().changes.subscribe(project)
    }

    /// The project's snapshot when it may be served with no word from sync (sync cannot
    /// be reached; see [`neuralis_inventory::Inventory::held`]), with the mark to compare
    /// with the one taken when the sources it is decided with were read.
    pub fn held(&self, project: &str) -> Option<(Arc<ProjectSnapshot>, Seen)> {
        let (kept, seen) = self.drained().inventory.held(project)?;
        Some((Arc::clone(&kept.snapshot), seen))
    }

    /// The project's raw rows, from the inventory or from sync.
    pub async fn snapshot(
        &self,
        project: &str,
        sources: &[SourceInfo],
        index: &dyn IndexPort,
    ) -> Result<Arc<ProjectSnapshot>, DiscoveryError> {
        let running = self
            .drained()
            .applying
            .get(project)
            .map(|applying| applying.done.clone());
        if let Some(mut done) = running {
            // Ends when the catch-up does, however it ends; then look up as always.
            let _ = done.changed().await;
        }
        let lookup = self.drained().inventory.lookup(project, Instant::now());
        use neuralis_metrics::{Lookup as Counted, inventory_lookup};
        match lookup {
            Lookup::Hit(kept) => {
                inventory_lookup(Counted::Hit);
                Ok(Arc::clone(&kept.snapshot))
            }
            Lookup::Fill(ticket) => {
                inventory_lookup(Counted::Miss);
                self.fill(project, sources, index, Some(ticket)).await
            }
            Lookup::Bypass => {
                inventory_lookup(Counted::Bypass);
                self.fill(project, sources, index, None).await
            }
            Lookup::Delta {
                base,
                revision,
                ticket,
            } => {
                inventory_lookup(Counted::Miss);
                let caught_up = self
                    .catch_up(project, sources, index, &base.snapshot, revision, ticket)
                    .await;
                retire(base);
                caught_up
            }
            Lookup::Revalidate {
                rows,
                revision,
                ticket,
            } => {
                let current = index.revision(project).await?;
                if current == revision
                    && self
                        .drained()
                        .inventory
                        .confirm(&ticket, current, Instant::now())
                {
                    inventory_lookup(Counted::Revalidated);
                    return Ok(Arc::clone(&rows.snapshot));
                }
                inventory_lookup(Counted::Miss);
                // Writes nobody announced (another instance, a lost event): the delta
                // since the revision held catches them up as a finish would.
                let caught_up = self
                    .catch_up(project, sources, index, &rows.snapshot, revision, ticket)
                    .await;
                retire(rows);
                caught_up
            }
        }
    }

    async fn fill(
        &self,
        project: &str,
        sources: &[SourceInfo],
        index: &dyn IndexPort,
        ticket: Option<FillTicket>,
    ) -> Result<Arc<ProjectSnapshot>, DiscoveryError> {
        // Filed as they arrive: no vector of every decoded row is held beside the filing.
        let mut filing = Filing::default();
        let revision = index.rows_into(project, sources, &mut filing).await?;
        neuralis_metrics::inventory_full_refill();
        let snapshot = Arc::new(filing.snapshot(revision, sources));
        if let Some(ticket) = ticket {
            self.keep(&ticket, &snapshot);
        }
        Ok(snapshot)
    }

    /// Applies the rows changed since `revision` to `base`, or re-reads in full when
    /// sync cannot tell them (a gap); stored under the race rule like a fill.
    async fn catch_up(
        &self,
        project: &str,
        sources: &[SourceInfo],
        index: &dyn IndexPort,
        base: &Arc<ProjectSnapshot>,
        revision: u64,
        ticket: FillTicket,
    ) -> Result<Arc<ProjectSnapshot>, DiscoveryError> {
        let rows = index.rows_since(project, revision, sources).await?;
        Ok(self.caught_up(sources, base, rows, &ticket))
    }

    /// `base` caught up by `rows` (the rows changed since its revision, or every row),
    /// stored under the race rule like a fill.
    fn caught_up(
        &self,
        sources: &[SourceInfo],
        base: &Arc<ProjectSnapshot>,
        rows: RowsSince,
        ticket: &FillTicket,
    ) -> Arc<ProjectSnapshot> {
        let snapshot = match rows {
            RowsSince::Delta(delta) => {
                let (snapshot, regrouped) = base.apply(delta, sources);
                neuralis_metrics::inventory_delta_apply();
                neuralis_metrics::inventory_regroups(
                    regrouped.relevant_only + regrouped.resplit + regrouped.whole,
                );
                let snapshot = Arc::new(snapshot);
                // Before it is stored: what it holds for reuse is weighed with it.
                if let Some(beside) = self.beside.get() {
                    beside.replaced(base, &snapshot);
                }
                snapshot
            }
            RowsSince::Full(rows) => {
                neuralis_metrics::inventory_full_refill();
                Arc::new(ProjectSnapshot::build(rows, sources))
            }
        };
        self.keep(ticket, &snapshot);
        snapshot
    }

    /// Counts what was derived from `snapshot` since it was kept (what is kept beside
    /// it) toward the memory bound, when it is still the project's kept snapshot.
    pub(crate) fn reweigh(&self, project: &str, snapshot: &Arc<ProjectSnapshot>) {
        let mut state = self.lock();
        let kept = state
            .inventory
            .reweigh(project, |kept| Arc::ptr_eq(&kept.snapshot, snapshot));
        neuralis_metrics::inventory_evictions(state.inventory.take_evictions());
        neuralis_metrics::inventory_bytes(state.inventory.cached_bytes());
        tracing::debug!(kept, "inventory reweigh");
    }

    fn keep(&self, ticket: &FillTicket, snapshot: &Arc<ProjectSnapshot>) {
        let mut state = self.drained();
        let revision = snapshot.revision;
        let kept = Kept {
            snapshot: Arc::clone(snapshot),
            beside: self.beside.get().cloned(),
        };
        let stored = state
            .inventory
            .store(ticket, kept, revision, Instant::now());
        neuralis_metrics::inventory_evictions(state.inventory.take_evictions());
        neuralis_metrics::inventory_bytes(state.inventory.cached_bytes());
        tracing::debug!(stored, revision, "inventory store");
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a panic elsewhere; the state is still coherent
        // (every mutation is a single call), so keep serving.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The state, with every notice the bus already delivered applied (and the
    /// finished writes' catch-ups started).
    fn drained(&self) -> MutexGuard<'_, State> {
        let mut state = self.lock();
        let finished = drain(&mut state);
        self.start_eager(&mut state, finished);
        state
    }
}

/// Frees a snapshot a delta replaced (its grouping; or what the stages above derived,
/// when a newer one replaced it)
/// off the request path, when this was its last holder: freeing them cost about as
/// much as the delta itself, and the caller waiting for the new answer gains nothing
/// from it. Nothing is read from it afterwards.
pub(crate) fn retire<T: Send + Sync + 'static>(replaced: Arc<T>) {
    if Arc::strong_count(&replaced) > 1 {
        return; // another request still answers from it; the last one frees it
    }
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => drop(runtime.spawn_blocking(move || drop(replaced))),
        Err(_) => drop(replaced),
    }
}

/// Applies every notice delivered; returns the projects a write finished (or failed) in.
fn drain(state: &mut State) -> Vec<String> {
    let mut finished = Vec::new();
    let waker = state
        .waker
        .clone()
        .unwrap_or_else(|| futures::task::noop_waker_ref().clone());
    let mut cx = Context::from_waker(&waker);
    let Some(subscription) = state.subscription.as_mut() else {
        return finished;
    };
    loop {
        match subscription.poll_next_unpin(&mut cx) {
            Poll::Pending => return finished,
            Poll::Ready(Some(notice)) => {
                let unseen = matches!(notice, BusNotice::Lost | BusNotice::Live);
                let project = apply(&mut state.inventory, notice);
                if unseen {
                    state.changes.notify_all();
                }
                if let Some(project) = project {
                    state.changes.notify(&project);
                    finished.push(project);
                }
            }
            Poll::Ready(None) => {
                tracing::warn!("invalidation subscription ended; bypassing the inventory");
                neuralis_metrics::invalidation(neuralis_metrics::Invalidation::Lost);
                state.subscription = None;
                state.inventory.subscription_lost();
                state.changes.notify_all();
                return finished;
            }
        }
    }
}

/// Applies one notice; the project, when a write in it finished or failed.
fn apply(inventory: &mut Inventory<Kept>, notice: BusNotice) -> Option<String> {
    match notice {
        BusNotice::Event(event) => {
            let (phase, counted) = match event.phase {
                BusPhase::Start => (Phase::Start, neuralis_metrics::Invalidation::Start),
                BusPhase::Finish => (Phase::Finish, neuralis_metrics::Invalidation::Finish),
                BusPhase::Failed => (Phase::Failed, neuralis_metrics::Invalidation::Failed),
            };
            neuralis_metrics::invalidation(counted);
            inventory.observe(&event.project, &event.write_id, phase, Instant::now());
            return (phase != Phase::Start).then_some(event.project);
        }
        BusNotice::Lost => {
            tracing::warn!("invalidation subscription lost; dropping the inventory");
            neuralis_metrics::invalidation(neuralis_metrics::Invalidation::Lost);
            inventory.subscription_lost();
        }
        BusNotice::Live => {
            tracing::info!("invalidation subscription live again");
            neuralis_metrics::invalidation(neuralis_metrics::Invalidation::Live);
            inventory.subscription_up();
        }
    }
    None
}

/// Applies notices as they arrive (woken by the subscription, every drain polling
/// with this task's waker), and every 50 ms besides, so the bus never backs up and a
/// finish starts its catch-up without waiting for a call.
fn spawn_follower(shell: Weak<InventoryShell>) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(50));
        futures::future::poll_fn(|cx| {
            let Some(shell) = shell.upgrade() else {
                return Poll::Ready(());
            };
            while tick.poll_tick(cx).is_ready() {}
            let mut state = shell.lock();
            state.waker = Some(cx.waker().clone());
            let finished = drain(&mut state);
            shell.start_eager(&mut state, finished);
            Poll::Pending
        })
        .await;
    });
}
