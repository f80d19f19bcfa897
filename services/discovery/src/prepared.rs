//! What an answer needs that is the same for every caller, prepared once per inventory
//! snapshot and source listing (issue 13, "warm answers"): the batch of candidates
//! policy decides, and per candidate the package as it would be shown with every file,
//! in package order. Nothing here says who may see what: every request still asks policy
//! to decide the whole batch for its caller, afresh, and [`crate::answer::assemble`]
//! keeps only what that decision lets through.
//!
//! A prepared answer is reused only for the very snapshot it was prepared from (the
//! same allocation, never an equal-looking one) and only while the sources read for
//! the request equal those it was prepared with: a new snapshot, or a changed scope,
//! privacy pattern or root of any source, prepares afresh. Preparing afresh after a
//! delta builds only the packages the delta changed: the others are shared with the
//! answer prepared before it (compared input for input, never assumed).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use neuralis_access::EvaluationRequest;
use neuralis_assembly::{PackageView, package_order_key};
use neuralis_content_flags::FlagSet;

use crate::answer::ContentAt;
use crate::candidates::{self, Batch, FileSlot};
use crate::inventory::{InventoryShell, ProjectSnapshot};
use crate::listing::Listing;
use crate::ports::{InstalledPackage, SourceInfo};

mod ids;
mod shown;
mod weight;

/// The caller-independent part of a project's answer.
#[derive(Debug, PartialEq)]
pub(crate) struct Prepared {
    /// The batch policy decides for each caller.
    pub request: EvaluationRequest,
    /// One per `request.files`: which file (or bundle entry) of which package it is.
    pub slots: Vec<FileSlot>,
    /// One per package candidate, index for index with `request.packages`; shared with
    /// the answers of other snapshots that show the package alike.
    pub packages: Vec<Arc<Shown>>,
    /// The package candidates in the order an answer lists packages.
    pub order: Vec<usize>,
    /// Per package candidate, per file: its activation id when every skill is visible
    /// (empty for other files).
    pub ids: Vec<Vec<String>>,
    /// How many skill files the package candidates hold.
    pub skills: usize,
    /// The `ListPackages` messages of the packages (see [`Listing`]): a package shared
    /// with the answer before this one shares its messages too, unless its activation
    /// ids moved.
    pub listing: Listing,
}

/// A package candidate as an answer would show it were every file visible.
#[derive(Debug, PartialEq)]
pub(crate) struct Shown {
    /// Every member file, each with its whole bundle; `enabled` and the files' states
    /// are placeholders, set from each caller's decisions.
    pub view: PackageView,
    /// Where each file's content lives, index for index with `view.files`.
    pub content: Vec<ContentAt>,
    /// Per file, per bundle entry: whether the entry is the skill's own file (decided
    /// with the skill, not on its own).
    pub own_entry: Vec<Vec<bool>>,
    /// Per file, the content flags its row holds now, index for index with
    /// `view.files`: part of what the package shows (the listing's messages carry
    /// them), so a package whose flags changed is not the same package.
    pub flags: Vec<FileFlags>,
}

/// A member file's content flags as indexed: its own and, for a skill, each bundle
/// entry's in bundle order (none for the skill's own file: its flags are the file's).
/// Empty for an installed package's file (not indexed).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct FileFlags {
    pub own: FlagSet,
    pub entries: Vec<FlagSet>,
}

impl Prepared {
    /// The owned, caller-independent form of `batch`. A package `previous` (the answer
    /// of the snapshot this one was derived from) shows exactly as the batch's would is
    /// shared, not built again: after a delta only the packages it changed are built.
    pub(crate) fn new(batch: Batch<'_>, previous: Option<&Prepared>) -> Self {
        let held: HashMap<&str, &Arc<Shown>> = previous
            .map(|previous| {
                previous
                    .request
                    .packages
                    .iter()
                    .map(|candidate| candidate.key.as_str())
                    .zip(&previous.packages)
                    .collect()
            })
            .unwrap_or_default();
        let packages: Vec<Arc<Shown>> = batch
            .candidates
            .iter()
            .zip(&batch.request.packages)
            .map(|(candidate, sent)| match held.get(sent.key.as_str()) {
                Some(old) if shown::unchanged(old, candidate, &sent.key) => Arc::clone(old),
                _ => Arc::new(shown::shown(candidate)),
            })
            .collect();
        let mut order: Vec<usize> = (0..packages.len()).collect();
        // Stable, as assembling a visible subset and sorting it would be.
        order.sort_by(|a, b| {
            package_order_key(&packages[*a].view).cmp(&package_order_key(&packages[*b].view))
        });
        let (ids, skills) = ids::activation_ids(&packages, &order);
        let earlier = previous.map(|previous| &previous.listing);
        let listing = Listing::new(&packages, &ids, &batch.slots, earlier);
        Prepared {
            listing,
            request: batch.request,
            slots: batch.slots,
            packages,
            order,
            ids,
            skills,
        }
    }
}

/// The prepared answer of `snapshot` for `sources`: the one kept with it, or prepared
/// now (reusing what it can of the answer before it) and then counted toward the
/// inventory's memory bound.
pub(crate) fn prepare(
    project: &str,
    installed: &[InstalledPackage],
    sources: &[SourceInfo],
    snapshot: &Arc<ProjectSnapshot>,
    inventory: &InventoryShell,
) -> Arc<Prepared> {
    let (prepared, fresh) = snapshot.prepared.get(sources, |previous| {
        let batch = candidates::build(project, installed, sources, snapshot);
        Prepared::new(batch, previous)
    });
    if fresh {
        inventory.reweigh(project, snapshot);
    }
    prepared
}

/// The prepared answer of one snapshot, kept inside it: it lives exactly as long as
/// the snapshot (the inventory alone decides that, under its memory bound, which counts
/// it: see [`PreparedSlot::bytes`]), and a copy of a snapshot starts with none, so an
/// answer is never served from a grouping other than the one it was prepared from.
///
/// A snapshot a delta made starts with the answer of the snapshot it was made from as
/// its `previous`: never served, only the parts it shares are reused (see
/// [`Prepared::new`]), and let go once this snapshot's own answer is prepared. Until
/// then the snapshot holds it, so the snapshot weighs it (the memory bound counts what
/// is held, not only what is served).
#[derive(Debug, Default)]
pub(crate) struct PreparedSlot {
    state: Mutex<SlotState>,
}

#[derive(Debug, Default)]
struct SlotState {
    kept: Option<Kept>,
    previous: Option<Held>,
}

/// An earlier answer a successor holds to reuse parts of, with its weight.
#[derive(Debug, Clone)]
struct Held {
    prepared: Arc<Prepared>,
    bytes: usize,
}

#[derive(Debug)]
struct Kept {
    sources: Vec<SourceInfo>,
    prepared: Arc<Prepared>,
    /// What the prepared answer weighs ([`weight::bytes`]), measured once.
    bytes: usize,
}

impl Clone for PreparedSlot {
    /// Empty: a copy is another snapshot, prepared afresh.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl PreparedSlot {
    /// The slot of a snapshot derived from this one's by a delta: empty, with this
    /// snapshot's answer (or, if none was prepared, the one it would have reused) to
    /// reuse parts of.
    pub(crate) fn successor(&self) -> Self {
        let state = self.lock();
        let previous = match &state.kept {
            Some(kept) => Some(Held {
                prepared: Arc::clone(&kept.prepared),
                bytes: kept.bytes,
            }),
            None => state.previous.clone(),
        };
        Self {
            state: Mutex::new(SlotState {
                kept: None,
                previous,
            }),
        }
    }

    /// The prepared answer for `sources`, prepared by `prepare` (given an earlier
    /// answer to reuse parts of, if any) unless the one kept was prepared with equal
    /// sources; and whether it was prepared now (the snapshot then weighs more: see
    /// [`crate::inventory::InventoryShell::reweigh`]).
    pub(crate) fn get(
        &self,
        sources: &[SourceInfo],
        prepare: impl FnOnce(Option<&Prepared>) -> Prepared,
    ) -> (Arc<Prepared>, bool) {
        let previous = {
            let state = self.lock();
            match &state.kept {
                Some(kept) if kept.sources == sources => {
                    return (Arc::clone(&kept.prepared), false);
                }
                Some(kept) => Some(Arc::clone(&kept.prepared)),
                None => state
                    .previous
                    .as_ref()
                    .map(|held| Arc::clone(&held.prepared)),
            }
        };
        // Prepared outside the lock: two first requests may both prepare; either is
        // right, the last one stays.
        let prepared = Arc::new(prepare(previous.as_deref()));
        let replaced = {
            let mut state = self.lock();
            state.kept = Some(Kept {
                sources: sources.to_vec(),
                bytes: weight::bytes(&prepared) + weight::sources(sources),
                prepared: Arc::clone(&prepared),
            });
            state.previous.take().map(|held| held.prepared)
        };
        for earlier in [previous, replaced].into_iter().flatten() {
            crate::inventory::retire(earlier);
        }
        (prepared, true)
    }

    /// What the answer this slot holds weighs: the kept one, or else the earlier one a
    /// successor holds to reuse; 0 when it holds none.
    pub(crate) fn bytes(&self) -> usize {
        let state = self.lock();
        match (&state.kept, &state.previous) {
            (Some(kept), _) => kept.bytes,
            (None, Some(held)) => held.bytes,
            (None, None) => 0,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SlotState> {
        // A poisoned lock only means a panic elsewhere; every mutation is one call.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use neuralis_inventory::Weigh;

    use super::*;
    use crate::fixtures::{row, source};
    use crate::inventory::ProjectSnapshot;
    use crate::ports::{IndexRow, ProjectRows};

    fn snapshot() -> Arc<ProjectSnapshot> {
        Arc::new(ProjectSnapshot::build(
            ProjectRows::default(),
            &[source(&[])],
        ))
    }

    /// `snapshot`'s prepared answer, counting how often it was prepared.
    fn get(
        snapshot: &ProjectSnapshot,
        sources: &[SourceInfo],
        prepared: &Cell<usize>,
    ) -> Arc<Prepared> {
        let before = prepared.get();
        let (answer, fresh) = snapshot.prepared.get(sources, |_| {
            prepared.set(prepared.get() + 1);
            let batch = Batch {
                request: EvaluationRequest::default(),
                candidates: Vec::new(),
                slots: Vec::new(),
            };
            Prepared::new(batch, None)
        });
        assert_eq!(
            fresh,
            prepared.get() > before,
            "fresh says it was prepared now"
        );
        answer
    }

    #[test]
    fn a_prepared_answer_serves_only_the_snapshot_and_sources_it_was_prepared_from() {
        let prepared = Cell::new(0);
        let sources = vec![source(&[])];
        let first = snapshot();
        let a = get(&first, &sources, &prepared);
        let b = get(&first, &sources, &prepared);
        assert!(Arc::ptr_eq(&a, &b), "the same snapshot reuses it");
        assert_eq!(prepared.get(), 1);

        // Another snapshot, even one equal in content (a copy), is prepared afresh:
        // identity, not likeness, says which grouping an answer was prepared from.
        let second = snapshot();
        let c = get(&second, &sources, &prepared);
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(prepared.get(), 2);
        let copy = first.as_ref().clone();
        get(&copy, &sources, &prepared);
        assert_eq!(prepared.get(), 3);

        // A changed privacy pattern (read with the request's sources) prepares afresh.
        let private = vec![source(&["agents/{agent}/**"])];
        get(&first, &private, &prepared);
        assert_eq!(prepared.get(), 4);
        get(&first, &private, &prepared);
        assert_eq!(prepared.get(), 4);
    }

    #[test]
    fn a_snapshot_weighs_the_answer_prepared_from_it() {
        let sources = vec![source(&[])];
        let rows = ProjectRows {
            revision: 1,
            rows: (0..20)
                .map(|i| IndexRow {
                    size: 10,
                    ..row(&format!("tools/t{i}/skills/s/SKILL.md"))
                })
                .collect(),
        };
        let snapshot = ProjectSnapshot::build(rows, &sources);
        let rows_only = snapshot.bytes();
        let (answer, _) = snapshot.prepared.get(&sources, |_| {
            Prepared::new(
                crate::candidates::build("p1", &[], &sources, &snapshot),
                None,
            )
        });
        assert!(!answer.request.files.is_empty(), "the answer holds files");
        let measured = weight::bytes(&answer);
        assert!(
            snapshot.bytes() >= rows_only + measured,
            "{} < {rows_only} + {measured}",
            snapshot.bytes()
        );
        // Every file is held several times over (candidate, shown view, content).
        assert!(measured > answer.request.files.len() * 3 * 24);
    }

    #[test]
    fn a_successor_weighs_the_earlier_answer_it_holds_until_its_own_is_prepared() {
        let sources = vec![source(&[])];
        let rows = ProjectRows {
            revision: 1,
            rows: vec![row("tools/t/skills/s/SKILL.md")],
        };
        let snapshot = ProjectSnapshot::build(rows, &sources);
        let build = || {
            Prepared::new(
                crate::candidates::build("p1", &[], &sources, &snapshot),
                None,
            )
        };
        let slot = PreparedSlot::default();
        assert_eq!(slot.successor().bytes(), 0, "nothing held, nothing weighed");
        let (answer, _) = slot.get(&sources, |_| build());
        let kept = slot.bytes();
        assert!(kept > 0);

        let successor = slot.successor();
        assert_eq!(successor.bytes(), kept, "the held answer is counted");
        // Its successor in turn holds the same earlier answer, and counts it too.
        assert_eq!(successor.successor().bytes(), kept);

        let (own, fresh) = successor.get(&sources, |previous| {
            assert!(previous.is_some_and(|p| std::ptr::eq(p, answer.as_ref())));
            build()
        });
        assert!(fresh);
        assert_eq!(
            successor.bytes(),
            weight::bytes(&own) + weight::sources(&sources),
            "once its own answer is kept, only that one is counted"
        );
    }
}
