//! The gRPC face of policy: a thin server adapter, a client that implements the same
//! trait remotely, and the one error-to-Status map.

pub mod client;
pub mod server;
pub mod status;

pub use client::PolicyGrpcClient;
pub use server::{PolicyGrpcServer, SERVICE_NAME};
