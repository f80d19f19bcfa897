//! The one map between [`SyncError`] and `tonic::Status`, both ways, so the gRPC client
//! returns the error the service raised.

use crate::SyncError;
use tonic::{Code, Status};

/// Domain error to wire status.
pub fn to_status(error: SyncError) -> Status {
    match error {
        SyncError::InvalidArgument { field, message } => {
            Status::invalid_argument(format!("{field}: {message}"))
        }
        SyncError::NotFound(what) => Status::not_found(what),
        SyncError::AlreadyExists(what) => Status::already_exists(what),
        SyncError::Unauthenticated => Status::unauthenticated("unauthenticated"),
        SyncError::PermissionDenied(message) => Status::permission_denied(message),
        SyncError::Unavailable(message) => Status::unavailable(message),
        SyncError::Internal(message) => Status::internal(message),
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
        _ => SyncError::Internal(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_variant() -> [SyncError; 7] {
        [
            SyncError::invalid("source.trigger", "bad interval \"interval:0s\""),
            SyncError::NotFound("source \"repo\" of project \"p\"".into()),
            SyncError::AlreadyExists("source \"repo\" of project \"p\"".into()),
            SyncError::Unauthenticated,
            SyncError::PermissionDenied("the call needs an administrator role".into()),
            SyncError::Unavailable("index store unavailable: connection refused".into()),
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
                Code::Internal
            ]
        );
    }

    #[test]
    fn a_timeout_reads_as_unavailable() {
        let status = Status::deadline_exceeded("slow");
        assert_eq!(from_status(&status), SyncError::Unavailable("slow".into()));
    }
}
