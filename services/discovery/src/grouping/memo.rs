//! The prepared answers of the inventory's snapshots, memoized beside them by their
//! identity (the same allocation, never an equal-looking copy), never inside them: the
//! rows stage knows nothing of packages, and hears of this memo only as what is kept
//! [`Beside`] its snapshots (its weight, a replaced snapshot, a caught-up write).
//!
//! A prepared answer lives as long as its snapshot: it goes when the inventory lets go
//! of a snapshot nobody else holds ([`Beside::let_go`]), and the memo's slots of
//! snapshots that went otherwise (served to a call, never kept) go with the next
//! preparation, off the warm path. A snapshot a delta made starts with the answer of the
//! snapshot it was made from as its `previous`: never served, only the parts it shares
//! are reused (see [`Prepared::new`]), and let go once its own answer is prepared.
//! Until then its slot holds it, so the inventory weighs it with the snapshot (the
//! memory bound counts what is held, not only what is served).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use crate::base::ports::{InstalledCatalog, SourceInfo};
use crate::grouping::candidates;
use crate::grouping::prepared::{Prepared, weight};
use crate::rows::inventory::{Beside, InventoryShell, ProjectSnapshot, retire};

/// The grouping stage as the service wires it: the memo, and the installed packages
/// every answer holds.
pub(crate) struct Grouping {
    memo: Memo,
    catalog: Arc<dyn InstalledCatalog>,
}

impl Grouping {
    pub(crate) fn new(catalog: Arc<dyn InstalledCatalog>) -> Self {
        Self {
            memo: Memo::default(),
            catalog,
        }
    }

    /// The prepared answer of `snapshot` for `sources`: the one kept beside it, or
    /// prepared now (reusing what it can of the answer before it) and then counted
    /// toward the inventory's memory bound.
    pub(crate) fn prepare(
        &self,
        project: &str,
        sources: &[SourceInfo],
        snapshot: &Arc<ProjectSnapshot>,
        inventory: &InventoryShell,
    ) -> Arc<Prepared> {
        let (prepared, fresh) = self.memo.get(snapshot, sources, |previous| {
            // Packages of sources flagged `recognizesPackages` join the installed ones,
            // scanned again whenever a sync changed the snapshot (seed 000).
            let recognized = self.catalog.source_packages(project, sources);
            let combined: Vec<_>;
            let installed = if recognized.is_empty() {
                self.catalog.packages()
            } else {
                combined = [self.catalog.packages(), &recognized].concat();
                &combined
            };
            let mut batch = candidates::build(project, installed, sources, snapshot);
            // Data trees are the `data://` namespace: policy decides their files by zone too.
            batch.request.data_sources = sources
                .iter()
                .filter(|source| source.data_tree)
                .map(|source| source.id.clone())
                .collect();
            Prepared::new(batch, previous)
        });
        if fresh {
            inventory.reweigh(project, snapshot);
        }
        prepared
    }
}

impl Beside for Grouping {
    fn bytes(&self, snapshot: &ProjectSnapshot) -> usize {
        self.memo.bytes(snapshot)
    }

    fn replaced(&self, replaced: &ProjectSnapshot, next: &Arc<ProjectSnapshot>) {
        self.memo.successor(replaced, next);
    }

    fn let_go(&self, snapshot: &ProjectSnapshot) {
        self.memo.let_go(snapshot);
    }

    fn caught_up(
        &self,
        project: &str,
        sources: &[SourceInfo],
        snapshot: &Arc<ProjectSnapshot>,
        inventory: &InventoryShell,
    ) {
        self.prepare(project, sources, snapshot, inventory);
    }
}

/// The prepared answers, per snapshot (keyed by its address, which its slot's `Weak`
/// keeps from being reused while the slot lives).
#[derive(Default)]
pub(crate) struct Memo {
    slots: Mutex<HashMap<usize, Slot>>,
}

/// What the memo holds for one snapshot.
struct Slot {
    snapshot: Weak<ProjectSnapshot>,
    kept: Option<Kept>,
    previous: Option<Held>,
}

/// An earlier answer a successor holds to reuse parts of, with its weight.
#[derive(Clone)]
struct Held {
    prepared: Arc<Prepared>,
    bytes: usize,
}

struct Kept {
    sources: Vec<SourceInfo>,
    prepared: Arc<Prepared>,
    /// What the prepared answer weighs ([`weight::bytes`]), measured once.
    bytes: usize,
}

fn key(snapshot: &ProjectSnapshot) -> usize {
    std::ptr::from_ref(snapshot) as usize
}

impl Slot {
    /// What a successor reuses: the kept answer, or else the one this slot reuses.
    fn reusable(&self) -> Option<Held> {
        match &self.kept {
            Some(kept) => Some(Held {
                prepared: Arc::clone(&kept.prepared),
                bytes: kept.bytes,
            }),
            None => self.previous.clone(),
        }
    }

    /// Frees the answers off the request path (see [`retire`]).
    fn retire(self) {
        let kept = self.kept.map(|kept| kept.prepared);
        let previous = self.previous.map(|held| held.prepared);
        for prepared in [kept, previous].into_iter().flatten() {
            retire(prepared);
        }
    }
}

impl Memo {
    /// The prepared answer of `snapshot` for `sources`, prepared by `prepare` (given an
    /// earlier answer to reuse parts of, if any) unless the one kept was prepared with
    /// equal sources; and whether it was prepared now (the snapshot then weighs more:
    /// see [`InventoryShell::reweigh`]).
    pub(crate) fn get(
        &self,
        snapshot: &Arc<ProjectSnapshot>,
        sources: &[SourceInfo],
        prepare: impl FnOnce(Option<&Prepared>) -> Prepared,
    ) -> (Arc<Prepared>, bool) {
        let key = key(snapshot);
        let previous = {
            let slots = self.lock();
            match slots.get(&key) {
                Some(Slot {
                    kept: Some(kept), ..
                }) if kept.sources == sources => {
                    return (Arc::clone(&kept.prepared), false);
                }
                Some(Slot {
                    kept: Some(kept), ..
                }) => Some(Arc::clone(&kept.prepared)),
                Some(slot) => slot
                    .previous
                    .as_ref()
                    .map(|held| Arc::clone(&held.prepared)),
                None => None,
            }
        };
        // Prepared outside the lock: two first requests may both prepare; either is
        // right, the last one stays.
        let prepared = Arc::new(prepare(previous.as_deref()));
        let kept = Kept {
            sources: sources.to_vec(),
            bytes: weight::bytes(&prepared) + weight::sources(sources),
            prepared: Arc::clone(&prepared),
        };
        let (replaced, gone) = {
            let mut slots = self.lock();
            let gone = gone(&mut slots);
            let slot = slots.entry(key).or_insert_with(|| Slot {
                snapshot: Arc::downgrade(snapshot),
                kept: None,
                previous: None,
            });
            slot.kept = Some(kept);
            (slot.previous.take().map(|held| held.prepared), gone)
        };
        for earlier in [previous, replaced].into_iter().flatten() {
            retire(earlier);
        }
        gone.into_iter().for_each(Slot::retire);
        (prepared, true)
    }

    /// `next` was made from `replaced` by a delta: it starts with `replaced`'s answer
    /// (or, if none was prepared, the one it would have reused) to reuse parts of.
    pub(crate) fn successor(&self, replaced: &ProjectSnapshot, next: &Arc<ProjectSnapshot>) {
        let mut slots = self.lock();
        let Some(previous) = slots.get(&key(replaced)).and_then(Slot::reusable) else {
            return;
        };
        let slot = Slot {
            snapshot: Arc::downgrade(next),
            kept: None,
            previous: Some(previous),
        };
        slots.insert(key(next), slot);
    }

    /// What the answer held for `snapshot` weighs: the kept one, or else the earlier
    /// one a successor holds to reuse; 0 when it holds none.
    pub(crate) fn bytes(&self, snapshot: &ProjectSnapshot) -> usize {
        let slots = self.lock();
        let Some(slot) = slots.get(&key(snapshot)) else {
            return 0;
        };
        match (&slot.kept, &slot.previous) {
            (Some(kept), _) => kept.bytes,
            (None, Some(held)) => held.bytes,
            (None, None) => 0,
        }
    }

    /// The inventory let go of `snapshot`, its last holder: its answers go too.
    pub(crate) fn let_go(&self, snapshot: &ProjectSnapshot) {
        let slot = self.lock().remove(&key(snapshot));
        if let Some(slot) = slot {
            slot.retire();
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<usize, Slot>> {
        // A poisoned lock only means a panic elsewhere; every mutation is one call.
        self.slots
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Takes out the slots of snapshots nobody holds any more.
fn gone(slots: &mut HashMap<usize, Slot>) -> Vec<Slot> {
    let dead: Vec<usize> = slots
        .iter()
        .filter(|(_, slot)| slot.snapshot.strong_count() == 0)
        .map(|(key, _)| *key)
        .collect();
    dead.iter().filter_map(|key| slots.remove(key)).collect()
}

#[cfg(test)]
#[path = "memo_tests.rs"]
mod tests;
