//! The `neuralis` binary's serving side, as a library so end-to-end tests start the
//! very same nodes the binary starts.
#![forbid(unsafe_code)]

pub mod node;
