//! The ports implemented by the real parts: the installed catalog, and (in
//! `sync_index`/`policy_access`) sync's index feed and policy through their tonic-free
//! traits, in-process or over gRPC alike, with discovery's service credential.

pub mod attach;
mod catalog;
mod policy_access;
pub mod source_packages;
mod sync_index;

pub use catalog::LoadedCatalog;
pub use policy_access::{LinkedAccess, PolicyAccess};
pub use sync_index::SyncIndex;
