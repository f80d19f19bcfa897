//! The pure rules of a sync, shared by the sync service and its tests: how a sync
//! trigger is written ([`trigger`]), how a file is split into search chunks
//! ([`chunk`]), which index rows a sync writes ([`plan`]), which directories may be
//! a source root ([`roots`]), how replicas share a source's runs ([`lease`]), and which
//! files a source leaves out of the index ([`exclude`]).
//!
//! Pure: no I/O, no async. The service feeds them listings and rows and carries out
//! what they decide.
#![forbid(unsafe_code)]

pub mod chunk;
pub mod exclude;
pub mod lease;
pub mod plan;
pub mod roots;
pub mod trigger;

pub use chunk::{Chunk, ChunkLimits, chunk_text};
pub use lease::{DueClaim, Lease};
pub use plan::{
    ExistingRow, FileAction, Listed, ListedFile, Planner, StoredStat, SyncPlan, Verdict,
    action_after_read, plan_sync,
};
pub use roots::{RootRefusal, RootRules};
pub use trigger::{Trigger, TriggerError};
