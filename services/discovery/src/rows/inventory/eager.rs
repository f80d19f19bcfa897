//! Catching up a finished write when its event arrives (issue 13, "cost proportional to
//! the change"): the delta is fetched and applied, and the answer prepared from it, in
//! the background, so the first call after the write finds them done or in flight and
//! waits for them rather than starting them. The rules are the request path's own: the
//! same lookup, the same delta and the same compare and set at store time (an event in
//! between refuses the store, and the next call catches up itself); a fill, a bypass or
//! a revalidation is left to the calls. A lost event starts nothing here: the calls'
//! own freshness check (the recovery window) and the full re-read still cover it.
//!
//! The answer is prepared by what is kept beside the snapshots (`Beside`),
//! told that the write was caught up: the inventory knows nothing of packages.
//!
//! Nothing about access is prepared: the prepared answer is the caller-independent
//! one, and every call still re-reads the sources and asks policy for its decisions.

use std::sync::Arc;

use neuralis_inventory::Lookup;
use tokio::sync::watch;

use super::{InventoryShell, State, retire};
use crate::base::error::DiscoveryError;
use crate::base::ports::{IndexPort, SourceInfo};

/// What the background catch-up reads with.
pub(super) struct Eager {
    pub index: Arc<dyn IndexPort>,
}

/// A background catch-up of one project: closed when it ends (its sender is dropped
/// with its task), however it ends, so a closed one counts as none.
pub(super) struct Applying {
    pub done: watch::Receiver<()>,
}

impl Applying {
    fn is_running(&self) -> bool {
        self.done.has_changed().is_ok()
    }
}

/// Rounds of one catch-up: a store refused because another event came is tried again,
/// this many times at most (then the next call catches up itself).
const ROUNDS: usize = 3;

impl InventoryShell {
    /// From now on, a finished write is caught up as soon as its event arrives, with
    /// `index` (see the module documentation).
    pub fn catch_up_on_finish(&self, index: Arc<dyn IndexPort>) {
        let _ = self.eager.set(Eager { index });
    }

    /// Starts a background catch-up for each project in `finished` that has none
    /// running (a running one looks again once its store is refused). Called with the
    /// state locked, right after draining.
    pub(super) fn start_eager(&self, state: &mut State, finished: Vec<String>) {
        if finished.is_empty() || self.eager.get().is_none() {
            return;
        }
        let (Ok(runtime), Some(shell)) = (tokio::runtime::Handle::try_current(), self.me.upgrade())
        else {
            return;
        };
        state.applying.retain(|_, applying| applying.is_running());
        for project in finished {
            if state.applying.contains_key(&project) {
                continue;
            }
            let (sender, done) = watch::channel(());
            state.applying.insert(project.clone(), Applying { done });
            let running = Running {
                shell: Arc::clone(&shell),
                project,
                _sender: sender,
            };
            // Never dropped here with the state locked: it locks nothing when dropped.
            drop(runtime.spawn(running.run()));
        }
    }
}

/// One running catch-up; dropping it (at its end, or if its task is cancelled) closes
/// its channel, and the calls waiting for it go on.
struct Running {
    shell: Arc<InventoryShell>,
    project: String,
    _sender: watch::Sender<()>,
}

impl Running {
    async fn run(self) {
        let Some(eager) = self.shell.eager.get() else {
            return;
        };
        let (index, project) = (eager.index.as_ref(), self.project.as_str());
        // Read with the first delta's rows (both at once), or alone when none is due.
        let mut sources: Option<Vec<SourceInfo>> = None;
        for _ in 0..ROUNDS {
            let lookup = self
                .shell
                .drained()
                .inventory
                .lookup(project, std::time::Instant::now());
            match lookup {
                Lookup::Hit(kept) => {
                    let sources = match sources {
                        Some(sources) => sources,
                        None => match index.sources(project).await {
                            Ok(sources) => sources,
                            Err(error) => return unreadable(&error),
                        },
                    };
                    if let Some(beside) = self.shell.beside.get() {
                        beside.caught_up(project, &sources, &kept.snapshot, &self.shell);
                    }
                    return;
                }
                Lookup::Delta {
                    base,
                    revision,
                    ticket,
                } => {
                    let read = match sources.take() {
                        Some(listed) => index
                            .rows_since(project, revision, &listed)
                            .await
                            .map(|rows| (listed, rows)),
                        None => index.sources_and_rows_since(project, revision).await,
                    };
                    let (listed, rows) = match read {
                        Ok(read) => read,
                        Err(error) => {
                            retire(base);
                            return unreadable(&error);
                        }
                    };
                    self.shell.caught_up(&listed, &base.snapshot, rows, &ticket);
                    sources = Some(listed);
                    retire(base);
                }
                // A fill, a bypass (open write) or a revalidation: the calls' to do.
                Lookup::Fill(_) | Lookup::Bypass | Lookup::Revalidate { .. } => return,
            }
        }
    }
}

fn unreadable(error: &DiscoveryError) {
    tracing::debug!(%error, "background catch-up: sync unreadable; left to the next call");
}
