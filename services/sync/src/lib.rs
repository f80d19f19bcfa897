//! The sync service: sources, the connectors that list, stat and read them, the index
//! (file rows with their payload, chunk rows for search), sync triggers, and the
//! invalidation events around every write that could move a package.
//!
//! Pure rules live in `libs/` (`neuralis-layout` for recognition and capture,
//! `neuralis-sync-core` for triggers, chunking and the sync plan); this crate is the
//! shell that carries them out.
//!
//! Two gRPC services: `SourceService`, the administration of sources for administrators
//! of the project, and `IndexFeedService`, the raw index for services only, never on
//! the public listener. Every call is decided by its table in `neuralis-authz` before
//! its handler runs.
#![forbid(unsafe_code)]

pub mod api;
pub mod config;
pub mod connector;
mod core;
pub mod embedder;
mod error;
pub mod forget;
pub mod grpc;
mod in_process;
pub mod invalidation;
pub mod layout_rules;
mod lease;
mod local;
mod notices;
mod progress;
pub mod roots;
pub mod run;
mod schedule;
pub mod service;
pub mod source;

pub use api::{IndexFeedApi, SourceApi, SyncStream};
pub use config::SyncConfig;
pub use error::SyncError;
pub use forget::{AccessForgetter, ForgetError, NoForget};
pub use local::LocalSync;
pub use neuralis_identity::BearerToken;
pub use service::{SyncParts, SyncService};
