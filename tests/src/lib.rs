//! Shared helpers for the end-to-end scenarios under `tests/tests/`: a [`Cluster`] in
//! either shape (all three services in one process, or three processes over Redis and
//! PostgreSQL) and the gRPC clients a platform backend would use against it.
#![forbid(unsafe_code)]

pub mod cluster;
pub mod fixture;
pub mod load;
pub mod pki;
pub mod pod;
pub mod polyglot;
pub mod ports;
pub mod postgres;
pub mod process;
pub mod raw;
pub mod refusal;
pub mod replica;
pub mod synthetic;

pub use cluster::{Cluster, Mode};
