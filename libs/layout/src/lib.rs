//! The layout core: given the files of a source, which packages form, and which files
//! are contributions of which package, with what category, id and default.
//!
//! Pure: no I/O, no async. Sync, discovery and the command line all share it.
#![forbid(unsafe_code)]

pub mod category;

pub use category::{Category, Invocation, Trust, default_state};
