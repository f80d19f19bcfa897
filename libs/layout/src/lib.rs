//! The layout core: given the files of a source, which packages form, and which files
//! are contributions of which package, with what category, id and default.
//!
//! Pure: no I/O, no async. Sync, discovery and the command line all share it.
//!
//! - at sync time, per file: [`needs_content`] and [`capture`] give the [`FilePayload`]
//!   stored with each index row;
//! - per request: [`group`] turns index rows into a [`Layout`] of packages;
//! - around writes: [`can_move_package`] says whether a write may change that answer;
//! - per row: [`privacy_owner`] names the agent that owns a private path.
#![forbid(unsafe_code)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod agreement;
pub mod capture;
pub mod category;
pub mod diagnostic;
pub mod frontmatter;
pub mod manifest;
pub mod vocabulary;

pub use capture::{FilePayload, PAYLOAD_VERSION, capture, needs_content};
pub use category::{Category, Invocation, Trust, default_state};
pub use diagnostic::{Diagnostic, Severity};
pub use frontmatter::{Frontmatter, FrontmatterStatus};
pub use manifest::{ManifestFacts, ManifestKind};

mod admission;
mod aliases;
mod binding;
pub mod bundle;
mod group;
pub mod layout;
mod members;
pub mod naming;
mod path_order;
mod path_set;
mod recognize;
mod roots;
mod rows;
pub mod sanitize;

pub use group::group;
pub use layout::{
    Alias, Contribution, DetectedRoot, FileDiagnostic, GroupOptions, IndexedFile, Layout, Package,
    RootRule, SourceForm, Unloaded, UnloadedReason,
};
pub use sanitize::{Posture, sanitize};
pub mod invalidation;
pub mod privacy;

pub use invalidation::{PackageRoots, RootsMoved, can_move_package};
pub use privacy::{DEFAULT_AGENT_PRIVATE_PATTERN, privacy_owner};
