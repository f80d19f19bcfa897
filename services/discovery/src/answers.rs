//! The answers stage: each answer rendered from a decided one, reading content only
//! for files that survived every gate: the listing, the overview, activation,
//! hydration, reading and search, and the content flags they carry.

pub(crate) mod activation;
pub(crate) mod content;
pub(crate) mod flags;
pub(crate) mod hydration;
pub(crate) mod listing;
pub(crate) mod reading;
pub(crate) mod tools;
