//! The grouping stage: what an answer needs that is the same for every caller, prepared
//! once per inventory snapshot (the batch of candidates policy decides, the packages as
//! shown, the listing's messages) and memoized beside the snapshot by its identity.

pub(crate) mod candidates;
pub(crate) mod content;
pub(crate) mod listed;
pub(crate) mod memo;
pub(crate) mod prepared;
pub(crate) mod reach;
pub(crate) mod rekey;

#[cfg(test)]
mod delta_tests;
