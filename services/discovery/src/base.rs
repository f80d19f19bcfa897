//! The ground every stage stands on: what discovery needs from sync, policy and the
//! installed catalog ([`ports`]), the error every call fails with ([`error`]), and the
//! conversions of views to messages. Nothing here knows a stage above.

pub mod error;
pub mod ports;

pub(crate) mod convert;
#[cfg(test)]
pub(crate) mod fixtures;
