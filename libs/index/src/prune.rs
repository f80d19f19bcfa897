//! What pruning a project's tombstones did.

/// The outcome of [`IndexStore::prune_tombstones`](crate::IndexStore::prune_tombstones).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// The project's delta floor afterwards: a delta from an older revision answers
    /// `None` (the reader re-reads in full).
    pub floor: u64,
    /// How many tombstones were removed.
    pub removed: u64,
}
