//! The one map between [`PolicyError`] and `tonic::Status`, both ways, so the gRPC
//! client returns the same error the service raised.

use neuralis_proto::details::{self, Reason};
use tonic::{Code, Status};

use crate::PolicyError;

const NOT_FOUND_SUFFIX: &str = " not found";

/// Domain error to wire status, with its `ErrorInfo` reason (and, for a bad request, the
/// `BadRequest` naming the field). The reasons are `docs/decisions/api.md`'s.
pub fn to_status(error: PolicyError) -> Status {
    match error {
        PolicyError::InvalidArgument { field, message } => {
            details::invalid(Reason::InvalidArgument, &field, &message)
        }
        PolicyError::NotFound(what) => {
            details::status(Reason::NotFound, format!("{what}{NOT_FOUND_SUFFIX}"))
        }
        PolicyError::Unauthenticated => details::status(Reason::Unauthenticated, "unauthenticated"),
        PolicyError::PermissionDenied(message) => {
            details::status(Reason::PermissionDenied, message)
        }
        PolicyError::Unavailable(message) => details::status(Reason::Unavailable, message),
        // RESOURCE_EXHAUSTED without a `RetryInfo`: the same call fails until the
        // caller removes something, unlike a shed call.
        PolicyError::LimitReached { field, message } => {
            details::invalid(Reason::ResourceExhausted, &field, &message)
        }
        PolicyError::Internal(message) => details::status(Reason::Internal, message),
    }
}

/// Wire status to domain error (for the gRPC client). A transport failure is
/// UNAVAILABLE: whoever asked must not answer unfiltered.
pub fn from_status(status: &Status) -> PolicyError {
    let message = status.message().to_owned();
    match status.code() {
        Code::InvalidArgument => match message.split_once(": ") {
            Some((field, message)) => PolicyError::invalid(field, message),
            None => PolicyError::invalid("request", message),
        },
        Code::NotFound => PolicyError::NotFound(
            message
                .strip_suffix(NOT_FOUND_SUFFIX)
                .unwrap_or(&message)
                .to_owned(),
        ),
        Code::ResourceExhausted => {
            let field = details::field_of(status).unwrap_or_else(|| "request".to_owned());
            let message = message
                .strip_prefix(&format!("{field}: "))
                .unwrap_or(&message)
                .to_owned();
            PolicyError::LimitReached { field, message }
        }
        Code::Unauthenticated => PolicyError::Unauthenticated,
        Code::PermissionDenied => PolicyError::PermissionDenied(message),
        Code::Unavailable | Code::DeadlineExceeded | Code::Cancelled => {
            PolicyError::Unavailable(message)
        }
        // The connection broke under the call: no server answered (`neuralis_host::lost`).
        Code::Unknown | Code::Internal if neuralis_host::lost::in_transport(status) => {
            PolicyError::Unavailable(message)
        }
        _ => PolicyError::Internal(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_round_trips_through_a_status() {
        let errors = [
            PolicyError::invalid("files[3].path", "lies outside its package root"),
            PolicyError::NotFound("source".into()),
            PolicyError::Unauthenticated,
            PolicyError::PermissionDenied("the call needs an administrator role".into()),
            PolicyError::Unavailable("database unreachable".into()),
            PolicyError::LimitReached {
                field: "file_path".into(),
                message: "the conversation already holds 1000 file overrides".into(),
            },
            PolicyError::Internal("database error 42P01".into()),
        ];
        for error in errors {
            assert_eq!(from_status(&to_status(error.clone())), error);
        }
    }

    #[test]
    fn codes_are_the_documented_ones() {
        let cases = [
            (PolicyError::invalid("f", "m"), Code::InvalidArgument),
            (PolicyError::NotFound("source".into()), Code::NotFound),
            (PolicyError::Unauthenticated, Code::Unauthenticated),
            (
                PolicyError::PermissionDenied(String::new()),
                Code::PermissionDenied,
            ),
            (PolicyError::Unavailable(String::new()), Code::Unavailable),
            (limit(), Code::ResourceExhausted),
            (PolicyError::Internal(String::new()), Code::Internal),
        ];
        for (error, code) in cases {
            assert_eq!(to_status(error).code(), code);
        }
    }

    #[test]
    fn every_status_carries_its_reason() {
        let cases = [
            (
                PolicyError::invalid("files[3].path", "m"),
                "INVALID_ARGUMENT",
            ),
            (PolicyError::NotFound("source".into()), "NOT_FOUND"),
            (PolicyError::Unauthenticated, "UNAUTHENTICATED"),
            (
                PolicyError::PermissionDenied(String::new()),
                "PERMISSION_DENIED",
            ),
            (PolicyError::Unavailable(String::new()), "UNAVAILABLE"),
            (limit(), "RESOURCE_EXHAUSTED"),
            (PolicyError::Internal(String::new()), "INTERNAL"),
        ];
        for (error, reason) in cases {
            assert_eq!(
                details::reason_of(&to_status(error)).as_deref(),
                Some(reason)
            );
        }
        let bad = to_status(PolicyError::invalid("files[3].path", "m"));
        assert_eq!(details::field_of(&bad).as_deref(), Some("files[3].path"));
    }

    fn limit() -> PolicyError {
        PolicyError::LimitReached {
            field: "file_path".into(),
            message: "m".into(),
        }
    }

    /// A full record is not load: the status names the field and carries no
    /// `RetryInfo`, since retrying the same call cannot succeed.
    #[test]
    fn a_reached_limit_names_its_field_and_promises_no_retry() {
        let status = to_status(limit());
        assert_eq!(details::field_of(&status).as_deref(), Some("file_path"));
        assert_eq!(details::retry_after_of(&status), None);
        assert_eq!(status.message(), "file_path: m");
    }

    #[test]
    fn a_dropped_connection_is_unavailable() {
        for code in [Code::Unavailable, Code::DeadlineExceeded, Code::Cancelled] {
            assert!(matches!(
                from_status(&Status::new(code, "x")),
                PolicyError::Unavailable(_)
            ));
        }
    }

    #[test]
    fn a_call_lost_in_transport_is_unavailable_and_a_servers_internal_is_not() {
        let reset = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset by peer");
        let lost = Status::from_error(Box::new(reset));
        assert_eq!(lost.code(), Code::Unknown, "as tonic makes it");
        assert!(matches!(from_status(&lost), PolicyError::Unavailable(_)));
        assert!(matches!(
            from_status(&Status::internal("boom")),
            PolicyError::Internal(_)
        ));
    }
}
