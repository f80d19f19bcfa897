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
//! - [`api`]: the tonic-free [`DiscoveryApi`] trait and its error;
//! - [`ports`]: what discovery needs from sync, policy and the installed catalog;
//! - [`service`]: the real implementation;
//! - [`grpc`]: the tonic server adapter, the gRPC client, the one error-to-Status map.
#![forbid(unsafe_code)]

pub mod adapters;
pub mod api;
pub mod config;
pub mod grpc;
mod in_process;
pub mod inventory;
pub mod ports;
pub mod service;

mod answer;
mod candidates;
mod convert;
#[cfg(test)]
mod fixtures;
mod flags;
mod listing;
mod prepared;
mod reading;
mod rekey;
mod scope;
mod share;
mod validation;

pub use api::{CallerToken, DiscoveryApi, DiscoveryError};
pub use config::DiscoverySettings;
pub use in_process::InProcessDiscovery;
pub use service::Discovery;
