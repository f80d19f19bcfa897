//! The per-project inventory: raw index rows, shared by every request of a project,
//! and the protocol that keeps them current (DESIGN.md section 3; seed 000, "How
//! current the answer is").
//!
//! It is a pure state machine: the discovery service feeds it invalidation events and
//! the clock, asks it what to do for a request ([`Lookup`]), performs the reads it
//! asks for, and hands the results back. Nothing here does I/O, so every race the
//! protocol must survive is replayed deterministically in tests.
//!
//! The rules it enforces:
//! - it holds raw rows only, never an answer filtered for a caller (the type says so:
//!   it stores whatever rows the caller fills it with, keyed by project alone);
//! - a fill that overlaps any part of a write is not stored (a per-project generation,
//!   bumped by every event, checked at store time: compare and set);
//! - while a write is open (start seen, no finish), reads bypass the inventory;
//! - an entry older than the recovery window is revalidated against the project's
//!   current revision before it is served, which bounds how long a write published by
//!   nobody (another instance, a lost message) can go unseen;
//! - while the event subscription is down, nothing is cached at all;
//! - a finished write makes the rows the base of a delta ([`Lookup::Delta`]): the
//!   caller applies the rows changed since their revision instead of re-reading the
//!   project, under the same compare and set as a fill;
//! - the kept rows weigh at most [`InventorySettings::max_bytes`] together ([`Weigh`]),
//!   the least recently used evicted first.
#![forbid(unsafe_code)]

pub mod delta;
mod project;
mod protocol;

pub use protocol::{FillTicket, Inventory, InventorySettings, Lookup, Phase, Seen, Weigh};

#[cfg(test)]
mod bound_tests;
#[cfg(test)]
mod delta_tests;
#[cfg(test)]
mod held_tests;
#[cfg(test)]
mod tests;
