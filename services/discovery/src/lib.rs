//! The discovery service: which packages may this agent use, in this conversation,
//! right now?
//!
//! A request's caller is verified by the `discovery` table of `neuralis-authz` before
//! its handler runs (a caller of the project, or nobody: the empty answer); the handler
//! takes the project's raw rows from the [`inventory`] (filled from sync's index feed),
//! groups them with the layout core, asks policy to decide every root and file afresh,
//! and assembles the answer from what survived.
//! Content (skill bodies, hydrated files) is read through sync's connector only for
//! files that survived every gate at that moment.
//!
//! The crate stands in stages, each importing only the ones below it (see
//! `README.md` for the drawing and where each seed rule lives):
//! - [`base`]: the ports to sync, policy and the installed catalog, the error, the
//!   message conversions;
//! - [`rows`]: the inventory of one project's index rows, its snapshots and deltas;
//! - [`grouping`]: packages and candidates prepared once per snapshot, for every caller;
//! - [`decision`]: one caller's policy batch over the candidates and what survives it;
//! - [`answers`]: each answer rendered from a decided one;
//! - [`service`]: the tonic-free API, the implementation, the gRPC adapter, the
//!   in-process client, the settings and the adapters to the other services.
#![forbid(unsafe_code)]

pub mod base;
pub mod rows;

mod answers;
mod decision;
mod grouping;

pub mod service;

pub use base::error::{CallerToken, DiscoveryError};
pub use base::ports;
pub use rows::inventory;
pub use service::api::{DiscoveryApi, WatchStream};
pub use service::config::DiscoverySettings;
pub use service::{Discovery, InProcessDiscovery, adapters, api, config, grpc};
