//! What the stages above keep beside a snapshot, and how the inventory hears of it.
//!
//! The inventory keeps raw rows and knows nothing of packages; what is derived from a
//! snapshot (the prepared answer) is kept by the stage that derives it, keyed by the
//! snapshot's identity (the same allocation, never an equal-looking copy), never inside
//! the snapshot. The memory bound (`discovery.inventory.max_bytes`) counts what is held,
//! not only the rows, so the inventory weighs a kept snapshot with what [`Beside`]
//! reports for it; and it tells [`Beside`] when a delta replaced a snapshot, when it let
//! one go, and when a finished write was caught up in the background (so the answer is
//! prepared before the first call after the write asks for it).

use std::sync::Arc;

use neuralis_inventory::Weigh;

use super::{InventoryShell, ProjectSnapshot};
use crate::base::ports::SourceInfo;

/// What is kept beside the inventory's snapshots (implemented by the grouping stage,
/// wired in by the service with [`InventoryShell::keep_beside`]).
pub trait Beside: Send + Sync + 'static {
    /// What is kept beside `snapshot` weighs now (0 when nothing is).
    fn bytes(&self, snapshot: &ProjectSnapshot) -> usize;

    /// A delta made `next` from `replaced`: what was derived from `replaced` may be
    /// reused for `next` (and, while held for it, is weighed with it).
    fn replaced(&self, replaced: &ProjectSnapshot, next: &Arc<ProjectSnapshot>);

    /// The inventory let go of `snapshot` and nobody else holds it: what is kept beside
    /// it goes too.
    fn let_go(&self, snapshot: &ProjectSnapshot);

    /// A finished write in `project` was caught up in the background and `snapshot` is
    /// the one kept: derive now what the next call will ask for (counting it with
    /// [`InventoryShell::reweigh`]).
    fn caught_up(
        &self,
        project: &str,
        sources: &[SourceInfo],
        snapshot: &Arc<ProjectSnapshot>,
        inventory: &InventoryShell,
    );
}

/// One project's entry in the inventory: its snapshot, weighed with what is kept
/// beside it.
pub(super) struct Kept {
    pub snapshot: Arc<ProjectSnapshot>,
    pub beside: Option<Arc<dyn Beside>>,
}

impl Weigh for Kept {
    fn bytes(&self) -> usize {
        weighed(&self.snapshot, self.beside.as_deref())
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        // Only when this entry was the snapshot's last holder: a call still answering
        // from it keeps what it derived, as it keeps the rows.
        if let (Some(beside), 1) = (&self.beside, Arc::strong_count(&self.snapshot)) {
            beside.let_go(&self.snapshot);
        }
    }
}

/// What the inventory counts for `snapshot` toward its memory bound: its rows and what
/// `beside` keeps for it.
pub(crate) fn weighed(snapshot: &ProjectSnapshot, beside: Option<&dyn Beside>) -> usize {
    snapshot.bytes() + beside.map_or(0, |beside| beside.bytes(snapshot))
}
