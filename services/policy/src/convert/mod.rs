//! Wire messages to domain records and back, written once for the server, the client
//! and the in-process callers. Bad input becomes INVALID_ARGUMENT naming the field.

pub mod admin;
pub mod attach;
pub mod batch;
pub mod caller;
pub mod policy;

pub use batch::{
    EvaluateCall, batch_from_proto, batch_to_proto, evaluation_from_proto, evaluation_to_proto,
};
pub use caller::{caller_from_proto, caller_to_proto};
pub use policy::{check_bounds, policy_from_proto, policy_to_proto};

use neuralis_proto::bounds;

use crate::PolicyError;

/// A required string field: present, not blank, and within the widest bound of
/// `neuralis_proto::bounds` (a path's: printable, at most 4 KiB); fields with a
/// narrower bound check it too.
pub(crate) fn required(value: String, field: &str) -> Result<String, PolicyError> {
    if value.trim().is_empty() {
        return Err(PolicyError::invalid(field, "is required"));
    }
    bounds::path(field, &value)?;
    Ok(value)
}

/// A required source id (`<project>/<slug>.<hex>`): an id's bound.
pub(crate) fn source_id(value: String, field: &str) -> Result<String, PolicyError> {
    bounds::id(field, &value)?;
    required(value, field)
}

/// A required project id: the project rule every service shares.
pub(crate) fn project_id(value: String, field: &str) -> Result<String, PolicyError> {
    bounds::project(field, &value)?;
    Ok(value)
}

/// An optional string field: empty means absent.
pub(crate) fn optional(value: String) -> Option<String> {
    Some(value).filter(|value| !value.is_empty())
}
