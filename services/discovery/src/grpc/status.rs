//! The one map between [`DiscoveryError`] and `tonic::Status`, both ways, so the gRPC
//! client returns the same error the service raised.

use tonic::{Code, Status};

use crate::api::DiscoveryError;

/// Domain error to wire status.
pub fn to_status(error: DiscoveryError) -> Status {
    match error {
        DiscoveryError::InvalidArgument { field, message } => {
            Status::invalid_argument(format!("{field}: {message}"))
        }
        DiscoveryError::NotFound => Status::not_found("not found"),
        DiscoveryError::Unauthenticated => Status::unauthenticated("unauthenticated"),
        DiscoveryError::PermissionDenied(message) => Status::permission_denied(message),
        DiscoveryError::Unavailable(message) => Status::unavailable(message),
        DiscoveryError::Internal(message) => Status::internal(message),
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
            DiscoveryError::Internal("policy answered a different batch".into()),
        ];
        for error in errors {
            assert_eq!(from_status(&to_status(error.clone())), error);
        }
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
}
