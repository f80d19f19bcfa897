//! The policy service: the access store's administration, and `Evaluate`, which decides
//! for one verified caller and one batch of package roots and files, reading the
//! persisted configuration afresh every time (seed 000: "nothing about it is ever
//! reused").
//!
//! - [`api`]: the tonic-free [`PolicyApi`] trait and [`PolicyError`];
//! - [`local`]: the real implementation over the store ([`LocalPolicy`]);
//! - `explain`: `ExplainAccess`, the same evaluation told to a recorder;
//! - [`convert`]: wire messages to domain records and back;
//! - [`grpc`]: the thin tonic server, the gRPC client, the one error-to-Status map;
//! - [`config`] and [`service`]: settings and the one-call constructor.
//!
//! Who decides who may call: the `policy` table of `neuralis-authz`, before any handler
//! runs, over gRPC (a tower layer) and in process ([`InProcessPolicy`]) alike. An
//! administrative call carries the caller's token; `Evaluate` carries a service
//! credential and the caller it decides for (discovery verified that caller).
#![forbid(unsafe_code)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod api;
pub mod config;
pub mod convert;
pub mod grpc;
pub mod local;
pub mod service;

mod caller_scope;
mod explain;
mod in_process;

pub use api::{BearerToken, PolicyApi, PolicyError};
pub use config::PolicyConfig;
pub use grpc::{PolicyGrpcClient, PolicyGrpcServer, SERVICE_NAME};
pub use in_process::{InProcessPolicy, LinkedEvaluate};
pub use local::LocalPolicy;
pub use service::{PolicyService, StartError};
