//! The ports implemented by the real parts: token verification, the installed
//! catalog, and (in `sync_index`/`policy_access`) the sync and policy services through
//! their tonic-free traits, in-process or over gRPC alike.

mod catalog;
mod identity;

pub use catalog::LoadedCatalog;
pub use identity::TokenVerifier;
