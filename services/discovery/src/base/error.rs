//! What every discovery call can fail with, and the caller's token as it arrived:
//! shared by every stage (a port's error is the call's error).

/// The caller's bearer token as it arrived (or none). `Debug` never prints it.
pub use neuralis_identity::BearerToken as CallerToken;

/// Every way a discovery call can fail. Messages name fields, never a path or name
/// the caller may not see.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiscoveryError {
    /// A request field is missing or malformed.
    #[error("{field}: {message}")]
    InvalidArgument { field: String, message: String },
    /// Unknown, missing and denied are one answer.
    #[error("not found")]
    NotFound,
    /// A call that needs a verified caller had none.
    #[error("unauthenticated")]
    Unauthenticated,
    /// A verified principal without the right (a service credential on a caller call).
    #[error("permission denied: {0}")]
    PermissionDenied(String),
    /// Policy or sync could not be reached; never answered unfiltered.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// Over the caller's or the project's fair share of expensive calls, or a search
    /// that used up its work budget: answered with a `RetryInfo` of `retry_after`.
    #[error("resource exhausted: {message}")]
    ResourceExhausted {
        /// What was exhausted (never a name of the caller's).
        message: String,
        /// When the caller may try again.
        retry_after: std::time::Duration,
    },
    /// A defect on our side.
    #[error("internal: {0}")]
    Internal(String),
}

impl DiscoveryError {
    /// An invalid field.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::InvalidArgument {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl From<neuralis_proto::bounds::FieldError> for DiscoveryError {
    fn from(error: neuralis_proto::bounds::FieldError) -> Self {
        DiscoveryError::invalid(error.field, error.message)
    }
}

impl From<neuralis_authz::Denial> for DiscoveryError {
    fn from(denial: neuralis_authz::Denial) -> Self {
        match denial {
            neuralis_authz::Denial::Unauthenticated => DiscoveryError::Unauthenticated,
            neuralis_authz::Denial::PermissionDenied(reason) => {
                DiscoveryError::PermissionDenied(reason.into())
            }
            // In-process clients call only the methods they were compiled with.
            neuralis_authz::Denial::Unimplemented => {
                DiscoveryError::PermissionDenied("this service does not serve the method".into())
            }
        }
    }
}

impl From<neuralis_authz::Refusal> for DiscoveryError {
    fn from(refusal: neuralis_authz::Refusal) -> Self {
        match refusal {
            neuralis_authz::Refusal::Unverified => DiscoveryError::Unauthenticated,
            other => DiscoveryError::PermissionDenied(other.reason().into()),
        }
    }
}
