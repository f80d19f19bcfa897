//! The ports implemented by the real parts: token verification, the installed
//! catalog, and (in `sync_index`/`policy_access`) the sync and policy services through
//! their tonic-free traits, in-process or over gRPC alike.

mod catalog;
mod identity;
mod policy_access;
mod sync_index;

pub use catalog::LoadedCatalog;
pub use identity::TokenVerifier;
pub use policy_access::PolicyAccess;
pub use sync_index::{SyncIndex, source_id};
