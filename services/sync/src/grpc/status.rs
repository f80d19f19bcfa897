//! The one map between [`SyncError`] and `tonic::Status`, both ways, so the gRPC client
//! returns the error the service raised.

use crate::SyncError;
use neuralis_proto::details::{self, Reason};
use tonic::{Code, Status};

/// The field a refused source root is reported on (see `roots.rs`).
const ROOT_FIELD: &str = "source.root";

/// Domain error to wire status, with its `ErrorInfo` reason (and, for a bad request, the
/// `BadRequest` naming the field). The reasons are `docs/decisions/api.md`'s.
pub fn to_status(error: SyncError) -> Status {
    match error {
        SyncError::InvalidArgument { field, message } => {
            let reason = if field == ROOT_FIELD {
                Reason::SourceRootRefused
            } else {
                Reason::InvalidArgument
            };
            details::invalid(reason, &field, &message)
        }
        SyncError::NotFound(what) => details::status(Reason::NotFound, what),
        SyncError::AlreadyExists(what) => details::status(Reason::AlreadyExists, what),
        SyncError::Unauthenticated => details::status(Reason::Unauthenticated, "unauthenticated"),
        SyncError::PermissionDenied(message) => details::status(Reason::PermissionDenied, message),
        SyncError::Unavailable(message) => details::status(Reason::Unavailable, message),
        SyncError::ResourceExhausted {
            message,
            retry_after,
        } => details::exhausted(message, retry_after),
        SyncError::LimitReached { field, message } => {
            details::invalid(Reason::ResourceExhausted, &field, &message)
        }
        SyncError::Internal(message) => details::status(Reason::Internal, message),
    }
}

/// Wire status to domain error (for the gRPC client).
pub fn from_status(status: &Status) -> SyncError {
    let message = status.message().to_owned();
    match status.code() {
        Code::InvalidArgument => match message.split_once(": ") {
            Some((field, message)) => SyncError::invalid(field, message),
            None => SyncError::invalid("request", message),
        },
        Code::NotFound => SyncError::NotFound(message),
        Code::AlreadyExists => SyncError::AlreadyExists(message),
        Code::Unauthenticated => SyncError::Unauthenticated,
        Code::PermissionDenied => SyncError::PermissionDenied(message),
        Code::Unavailable | Code::DeadlineExceeded | Code::Cancelled => {
            SyncError::Unavailable(message)
        }
        // The connection broke under the call: no server answered (`neuralis_host::lost`).
        Code::Unknown | Code::Internal if neuralis_host::lost::in_transport(status) => {
            SyncError::Unavailable(message)
        }
        // A shed or over-budget call says when to retry; a limit names its field.
        Code::ResourceExhausted => match details::retry_after_of(status) {
            Some(retry_after) => SyncError::ResourceExhausted {
                message,
                retry_after,
            },
            None => match details::field_of(status) {
                Some(field) => SyncError::LimitReached {
                    message: message
                        .strip_prefix(&format!("{field}: "))
                        .unwrap_or(&message)
                        .to_owned(),
                    field,
                },
                None => SyncError::ResourceExhausted {
                    message,
                    retry_after: SyncError::BUDGET_RETRY,
                },
            },
        },
        _ => SyncError::Internal(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_variant() -> [SyncError; 9] {
        [
            SyncError::invalid("source.trigger", "bad interval \"interval:0s\""),
            SyncError::NotFound("source \"repo\" of project \"p\"".into()),
            SyncError::AlreadyExists("source \"repo\" of project \"p\"".into()),
            SyncError::Unauthenticated,
            SyncError::PermissionDenied("the call needs an administrator role".into()),
            SyncError::Unavailable("index store unavailable: connection refused".into()),
            SyncError::ResourceExhausted {
                message: "too many expensive calls of this caller at once".into(),
                retry_after: std::time::Duration::from_millis(1_500),
            },
            SyncError::LimitReached {
                field: "source".into(),
                message: "the project holds the most sources it may (256): delete one first".into(),
            },
            SyncError::Internal("index row unreadable (payload): eof".into()),
        ]
    }

    #[test]
    fn every_error_round_trips_through_a_status() {
        for error in every_variant() {
            assert_eq!(from_status(&to_status(error.clone())), error);
        }
    }

    #[test]
    fn codes_are_the_documented_ones() {
        let codes: Vec<Code> = every_variant()
            .into_iter()
            .map(|e| to_status(e).code())
            .collect();
        assert_eq!(
            codes,
            [
                Code::InvalidArgument,
                Code::NotFound,
                Code::AlreadyExists,
                Code::Unauthenticated,
                Code::PermissionDenied,
                Code::Unavailable,
                Code::ResourceExhausted,
                Code::ResourceExhausted,
                Code::Internal
            ]
        );
    }

    #[test]
    fn every_status_carries_its_reason() {
        let reasons: Vec<Option<String>> = every_variant()
            .into_iter()
            .map(|e| details::reason_of(&to_status(e)))
            .collect();
        let expected = [
            "INVALID_ARGUMENT",
            "NOT_FOUND",
            "ALREADY_EXISTS",
            "UNAUTHENTICATED",
            "PERMISSION_DENIED",
            "UNAVAILABLE",
            "RESOURCE_EXHAUSTED",
            "RESOURCE_EXHAUSTED",
            "INTERNAL",
        ];
        assert_eq!(reasons, expected.map(|r| Some(r.to_owned())));
    }

    #[test]
    fn a_limit_names_its_field_and_carries_no_retry() {
        let status = to_status(SyncError::LimitReached {
            field: "source".into(),
            message: "the project holds the most sources it may (2): delete one first".into(),
        });
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert_eq!(details::retry_after_of(&status), None);
        assert_eq!(details::field_of(&status).as_deref(), Some("source"));
    }

    #[test]
    fn a_refused_root_has_its_own_reason_and_names_the_field() {
        let status = to_status(SyncError::invalid("source.root", "is a system directory"));
        assert_eq!(
            details::reason_of(&status).as_deref(),
            Some("SOURCE_ROOT_REFUSED")
        );
        assert_eq!(details::field_of(&status).as_deref(), Some("source.root"));
    }

    #[test]
    fn a_timeout_reads_as_unavailable() {
        let status = Status::deadline_exceeded("slow");
        assert_eq!(from_status(&status), SyncError::Unavailable("slow".into()));
    }

    #[test]
    fn a_call_lost_in_transport_is_unavailable_and_a_servers_internal_is_not() {
        let reset = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset by peer");
        let lost = Status::from_error(Box::new(reset));
        assert_eq!(lost.code(), Code::Unknown, "as tonic makes it");
        assert!(matches!(from_status(&lost), SyncError::Unavailable(_)));
        assert!(matches!(
            from_status(&Status::internal("boom")),
            SyncError::Internal(_)
        ));
    }
}
