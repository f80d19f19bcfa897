//! The one map between [`DiscoveryError`] and `tonic::Status`, both ways, so the gRPC
//! client returns the same error the service raised.

use neuralis_proto::details::{self, Reason};
use tonic::{Code, Status};

use crate::base::error::DiscoveryError;

/// The `RetryInfo` of an UNAVAILABLE answer: about the time a peer's restart or a
/// store's failover takes to be noticed.
const RETRY_UNAVAILABLE: std::time::Duration = std::time::Duration::from_secs(1);

/// Domain error to wire status, with its `ErrorInfo` reason (and, for a bad request, the
/// `BadRequest` naming the field). The reasons are `docs/decisions/api.md`'s. NOT_FOUND
/// says nothing more: unknown and unreadable answer alike.
pub fn to_status(error: DiscoveryError) -> Status {
    match error {
        DiscoveryError::InvalidArgument { field, message } => {
            details::invalid(Reason::InvalidArgument, &field, &message)
        }
        DiscoveryError::NotFound => details::status(Reason::NotFound, "not found"),
        DiscoveryError::Unauthenticated => {
            details::status(Reason::Unauthenticated, "unauthenticated")
        }
        DiscoveryError::PermissionDenied(message) => {
            details::status(Reason::PermissionDenied, message)
        }
        // Retryable: a store or a peer (sync, policy) did not answer for this project now.
        DiscoveryError::Unavailable(message) => details::unavailable(message, RETRY_UNAVAILABLE),
        DiscoveryError::ResourceExhausted {
            message,
            retry_after,
        } => details::exhausted(message, retry_after),
        DiscoveryError::Internal(message) => details::status(Reason::Internal, message),
    }
}

/// Wire status to domain error (for the gRPC client).
pub fn from_status(status: &Status) -> DiscoveryError {
    let message = status.message().to_owned();
    match status.code() {
        Code::InvalidArgument => match message.split_once(": ") {
            Some((field, message)) => DiscoveryError::invalid(field, message),
            None => DiscoveryError::invalid("request", message),
        },
        Code::NotFound => DiscoveryError::NotFound,
        Code::Unauthenticated => DiscoveryError::Unauthenticated,
        Code::PermissionDenied => DiscoveryError::PermissionDenied(message),
        Code::Unavailable | Code::DeadlineExceeded | Code::Cancelled => {
            DiscoveryError::Unavailable(message)
        }
        // The connection broke under the call: no server answered (`neuralis_host::lost`).
        Code::Unknown | Code::Internal if neuralis_host::lost::in_transport(status) => {
            DiscoveryError::Unavailable(message)
        }
        Code::ResourceExhausted => DiscoveryError::ResourceExhausted {
            message,
            retry_after: details::retry_after_of(status).unwrap_or_default(),
        },
        _ => DiscoveryError::Internal(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_round_trips_through_a_status() {
        let errors = [
            DiscoveryError::invalid("scope.project_id", "is required"),
            DiscoveryError::NotFound,
            DiscoveryError::Unauthenticated,
            DiscoveryError::PermissionDenied("the call is open to callers only".into()),
            DiscoveryError::Unavailable("policy: connection refused".into()),
            DiscoveryError::ResourceExhausted {
                message: "too many expensive calls of this caller at once".into(),
                retry_after: std::time::Duration::from_millis(1_500),
            },
            DiscoveryError::Internal("policy answered a different batch".into()),
        ];
        for error in errors {
            assert_eq!(from_status(&to_status(error.clone())), error);
        }
    }

    #[test]
    fn every_status_carries_its_reason() {
        let cases = [
            (
                DiscoveryError::invalid("scope.project_id", "is required"),
                "INVALID_ARGUMENT",
            ),
            (DiscoveryError::NotFound, "NOT_FOUND"),
            (DiscoveryError::Unauthenticated, "UNAUTHENTICATED"),
            (
                DiscoveryError::PermissionDenied(String::new()),
                "PERMISSION_DENIED",
            ),
            (DiscoveryError::Unavailable(String::new()), "UNAVAILABLE"),
            (
                DiscoveryError::ResourceExhausted {
                    message: String::new(),
                    retry_after: std::time::Duration::from_secs(1),
                },
                "RESOURCE_EXHAUSTED",
            ),
            (DiscoveryError::Internal(String::new()), "INTERNAL"),
        ];
        for (error, reason) in cases {
            assert_eq!(
                details::reason_of(&to_status(error)).as_deref(),
                Some(reason)
            );
        }
        let bad = to_status(DiscoveryError::invalid("scope.project_id", "is required"));
        assert_eq!(details::field_of(&bad).as_deref(), Some("scope.project_id"));
    }

    #[test]
    fn codes_are_the_documented_ones() {
        assert_eq!(to_status(DiscoveryError::NotFound).code(), Code::NotFound);
        assert_eq!(
            to_status(DiscoveryError::invalid("f", "m")).code(),
            Code::InvalidArgument
        );
        assert_eq!(
            to_status(DiscoveryError::Unavailable(String::new())).code(),
            Code::Unavailable
        );
        assert_eq!(
            to_status(DiscoveryError::Unauthenticated).code(),
            Code::Unauthenticated
        );
    }

    #[test]
    fn unavailable_tells_the_caller_when_to_retry() {
        let status = to_status(DiscoveryError::Unavailable(
            "sync: connection refused".into(),
        ));
        assert_eq!(
            details::retry_after_of(&status),
            Some(RETRY_UNAVAILABLE),
            "a retrying client waits this long, not its own guess"
        );
    }

    #[test]
    fn a_call_lost_in_transport_is_unavailable_and_a_servers_internal_is_not() {
        let reset = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset by peer");
        let lost = Status::from_error(Box::new(reset));
        assert_eq!(lost.code(), Code::Unknown, "as tonic makes it");
        assert!(matches!(from_status(&lost), DiscoveryError::Unavailable(_)));
        assert!(matches!(
            from_status(&Status::internal("boom")),
            DiscoveryError::Internal(_)
        ));
    }
}
