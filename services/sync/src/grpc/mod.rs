//! The gRPC face of sync: thin server adapters for both services, clients implementing
//! the same traits remotely, and the one error-to-Status map.

pub mod client;
pub mod server;
pub mod status;

pub use client::{IndexFeedGrpcClient, SourceGrpcClient};
pub use server::{FEED_SERVICE_NAME, SOURCES_SERVICE_NAME, SyncGrpcServer};
