//! Wire messages to domain records and back, written once for the server, the client
//! and the in-process callers. Bad input becomes INVALID_ARGUMENT naming the field.

pub mod admin;
pub mod attach;
pub mod batch;
pub mod caller;
pub mod explain;
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

/// The longest conversation id accepted, in bytes: ids are stored and looked up, so a
/// caller must not be able to store megabytes under one (issue 25).
pub(crate) const MAX_CONVERSATION_ID_BYTES: usize = 256;

/// An optional conversation id (empty: none): bounded, no control characters. Refused
/// before any store work, naming the field; the value itself is never quoted back.
pub(crate) fn conversation_id(value: String, field: &str) -> Result<Option<String>, PolicyError> {
    if value.len() > MAX_CONVERSATION_ID_BYTES {
        return Err(PolicyError::invalid(field, "is longer than 256 bytes"));
    }
    if value.chars().any(char::is_control) {
        return Err(PolicyError::invalid(field, "holds a control character"));
    }
    Ok(optional(value))
}

/// A required conversation id, as [`conversation_id`] bounds it.
pub(crate) fn required_conversation_id(value: String, field: &str) -> Result<String, PolicyError> {
    required(value, field).and_then(|value| {
        conversation_id(value, field)?.ok_or_else(|| PolicyError::invalid(field, "is required"))
    })
}
