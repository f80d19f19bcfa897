//! The gRPC face of sync: a thin server adapter, a client implementing the same trait
//! remotely, and the one error-to-Status map.

pub mod client;
pub mod server;
pub mod status;

pub use client::SyncGrpcClient;
pub use server::{SERVICE_NAME, SyncGrpcServer};
