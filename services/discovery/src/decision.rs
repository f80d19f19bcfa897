//! The decision stage: one caller's scope, its place in the fair share, and policy's
//! decisions over the prepared batch, made now; what survives them is the caller's
//! [`answer::Answer`].

pub(crate) mod afresh;
pub(crate) mod answer;
pub(crate) mod decided;
pub(crate) mod scope;
pub(crate) mod share;
