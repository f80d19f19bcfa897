//! The sync service's error, shared by the in-process implementation and the gRPC
//! client (one map to `tonic::Status` in `grpc::status`).

use neuralis_index::IndexError;

/// Why a sync call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyncError {
    /// A request field is missing or wrong.
    #[error("{field}: {message}")]
    InvalidArgument {
        /// The request field at fault (`source.trigger`, `project`, ...).
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// The named thing does not exist (or may not be revealed).
    #[error("{0} not found")]
    NotFound(String),
    /// The named thing exists already.
    #[error("{0} already exists")]
    AlreadyExists(String),
    /// No credential, or one that does not verify.
    #[error("unauthenticated")]
    Unauthenticated,
    /// A verified principal without the right (not an administrator of the project, a
    /// token bound to another project, the wrong kind of credential).
    #[error("permission denied: {0}")]
    PermissionDenied(String),
    /// A store, bus, connector or embedder did not answer (or timed out).
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// Over the caller's or the project's fair share of expensive calls, or a call that
    /// used up its work budget: answered with a `RetryInfo` of `retry_after`.
    #[error("resource exhausted: {message}")]
    ResourceExhausted {
        /// What was exhausted (never a name of the caller's).
        message: String,
        /// When the caller may try again.
        retry_after: std::time::Duration,
    },
    /// The call would store more than a project may hold (its sources): removing
    /// something makes room, retrying alone does not, so no `RetryInfo` is sent (as
    /// policy's limits).
    #[error("{field}: {message}")]
    LimitReached {
        /// The request field whose value would not fit.
        field: String,
        /// Which limit, and what to do.
        message: String,
    },
    /// Anything else; a bug or a damaged store.
    #[error("internal: {0}")]
    Internal(String),
}

impl SyncError {
    /// A search that stopped at its work budget may be retried after this long.
    pub const BUDGET_RETRY: std::time::Duration = std::time::Duration::from_secs(1);

    /// An invalid-argument error naming `field`.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        SyncError::InvalidArgument {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl From<neuralis_proto::bounds::FieldError> for SyncError {
    fn from(error: neuralis_proto::bounds::FieldError) -> Self {
        SyncError::invalid(error.field, error.message)
    }
}

impl From<neuralis_authz::Denial> for SyncError {
    fn from(denial: neuralis_authz::Denial) -> Self {
        match denial {
            neuralis_authz::Denial::Unauthenticated => SyncError::Unauthenticated,
            neuralis_authz::Denial::PermissionDenied(reason) => {
                SyncError::PermissionDenied(reason.into())
            }
            // In-process clients call only the methods they were compiled with.
            neuralis_authz::Denial::Unimplemented => {
                SyncError::PermissionDenied("this service does not serve the method".into())
            }
        }
    }
}

impl From<neuralis_authz::Refusal> for SyncError {
    fn from(refusal: neuralis_authz::Refusal) -> Self {
        match refusal {
            neuralis_authz::Refusal::Unverified => SyncError::Unauthenticated,
            other => SyncError::PermissionDenied(other.reason().into()),
        }
    }
}

impl From<IndexError> for SyncError {
    fn from(err: IndexError) -> Self {
        match err {
            IndexError::NotFound(what) => SyncError::NotFound(what),
            IndexError::AlreadyExists(what) => SyncError::AlreadyExists(what),
            // A schema this release cannot use is the store not being ready for it yet
            // (check mode before `neuralis migrate up`), not a request's fault.
            IndexError::Unavailable(message) | IndexError::Schema(message) => {
                SyncError::Unavailable(message)
            }
            IndexError::InvalidValue { field, message } => SyncError::invalid(field, message),
            IndexError::Exhausted(message) => SyncError::ResourceExhausted {
                message,
                retry_after: SyncError::BUDGET_RETRY,
            },
            // Room is made by a delete, not by time.
            IndexError::LimitReached(message) => SyncError::LimitReached {
                field: "source".into(),
                message,
            },
            other @ (IndexError::Corrupt { .. } | IndexError::Backend(_)) => {
                SyncError::Internal(other.to_string())
            }
        }
    }
}

impl From<crate::connector::ConnectorError> for SyncError {
    fn from(err: crate::connector::ConnectorError) -> Self {
        match err {
            crate::connector::ConnectorError::NotFound
            | crate::connector::ConnectorError::Changed => SyncError::NotFound("file".into()),
            crate::connector::ConnectorError::RootUnavailable(message) => {
                SyncError::Unavailable(format!("source root: {message}"))
            }
        }
    }
}
