//! The gRPC face of discovery: a thin server adapter, a client that implements the
//! same trait remotely, and the one error-to-Status map.

pub mod client;
pub mod server;
pub mod status;

pub use client::DiscoveryGrpcClient;
pub use server::{DiscoveryGrpcServer, SERVICE_NAME};
