//! The layout core.
