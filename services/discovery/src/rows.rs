//! The rows stage: the inventory of one project's index rows (the `neuralis-inventory`
//! protocol, fed by the invalidation bus and filled from sync), its snapshots and the
//! deltas that update them. It knows nothing of packages: what the stages above derive
//! from a snapshot is kept beside it, by its identity, and reaches the inventory only
//! through [`inventory::Beside`] (its weight, a replaced snapshot, a caught-up write).

#[cfg(test)]
pub(crate) mod fixtures;
pub mod inventory;
