//! Machine-readable error details (DESIGN.md section 6): every non-OK status a service
//! answers carries a `google.rpc.Status` in `grpc-status-details-bin` with an
//! `ErrorInfo` (a stable reason from [`Reason`], domain [`DOMAIN`]) and, for
//! INVALID_ARGUMENT, a `BadRequest` naming the field. A client in any language
//! branches on the reason, never on the message text.
//!
//! The reason is a constant: it never carries a name, a path or a token, so it cannot
//! reveal what the message text is careful not to.

use std::collections::HashMap;
use std::time::Duration;

use tonic::{Code, Status};

#[cfg(test)]
use crate::bounds::MAX_MESSAGE_BYTES;
use crate::bounds::{MAX_ID_BYTES, bounded_message, quote};
use tonic_types::{ErrorDetails, StatusExt};

/// The `ErrorInfo.domain` of every Neuralis error.
pub const DOMAIN: &str = "neuralis.dev";

/// The fixed vocabulary of `ErrorInfo.reason` (documented in `docs/decisions/api.md`).
/// Adding a reason is compatible; renaming or removing one is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// A request field is missing or wrong (a `BadRequest` names it).
    InvalidArgument,
    /// The request message does not decode (bad wire data, a string that is not UTF-8).
    RequestUndecodable,
    /// A source root the server's rules refuse (field `source.root`).
    SourceRootRefused,
    /// Unknown or unreadable: the same reason for both.
    NotFound,
    /// The named thing exists already.
    AlreadyExists,
    /// No credential, or one that does not verify.
    Unauthenticated,
    /// A verified principal without the right.
    PermissionDenied,
    /// A store, bus or peer service did not answer.
    Unavailable,
    /// The caller (or its project) is over its fair share of expensive work, or the
    /// call used up its work budget; a `RetryInfo` says when to try again. Without a
    /// `RetryInfo` (and with a `BadRequest` naming the field): a bounded record is
    /// full, and only removing something makes room.
    ResourceExhausted,
    /// A defect or a damaged store.
    Internal,
    /// A method this server does not serve (answered only to a verified caller).
    MethodUnknown,
}

impl Reason {
    /// Every reason, for tests and the documentation.
    pub const ALL: [Reason; 11] = [
        Reason::InvalidArgument,
        Reason::RequestUndecodable,
        Reason::SourceRootRefused,
        Reason::NotFound,
        Reason::AlreadyExists,
        Reason::Unauthenticated,
        Reason::PermissionDenied,
        Reason::Unavailable,
        Reason::ResourceExhausted,
        Reason::Internal,
        Reason::MethodUnknown,
    ];

    /// The wire spelling (UPPER_SNAKE).
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::InvalidArgument => "INVALID_ARGUMENT",
            Reason::RequestUndecodable => "REQUEST_UNDECODABLE",
            Reason::SourceRootRefused => "SOURCE_ROOT_REFUSED",
            Reason::NotFound => "NOT_FOUND",
            Reason::AlreadyExists => "ALREADY_EXISTS",
            Reason::Unauthenticated => "UNAUTHENTICATED",
            Reason::PermissionDenied => "PERMISSION_DENIED",
            Reason::Unavailable => "UNAVAILABLE",
            Reason::ResourceExhausted => "RESOURCE_EXHAUSTED",
            Reason::Internal => "INTERNAL",
            Reason::MethodUnknown => "METHOD_UNKNOWN",
        }
    }

    /// The status code a reason is answered with.
    pub fn code(self) -> Code {
        match self {
            Reason::InvalidArgument | Reason::RequestUndecodable | Reason::SourceRootRefused => {
                Code::InvalidArgument
            }
            Reason::NotFound => Code::NotFound,
            Reason::AlreadyExists => Code::AlreadyExists,
            Reason::Unauthenticated => Code::Unauthenticated,
            Reason::PermissionDenied => Code::PermissionDenied,
            Reason::Unavailable => Code::Unavailable,
            Reason::ResourceExhausted => Code::ResourceExhausted,
            Reason::Internal => Code::Internal,
            Reason::MethodUnknown => Code::Unimplemented,
        }
    }
}

/// A status of `reason`'s code with `message` and an `ErrorInfo`. The message is cut to
/// [`MAX_MESSAGE_BYTES`]: it travels in `grpc-message` and again inside the
/// `google.rpc.Status` of `grpc-status-details-bin` (the rich error model wants the two
/// equal: grpcio-status refuses details whose message differs), so an unbounded message
/// would cross a client's 16 KiB metadata limit and turn into RESOURCE_EXHAUSTED.
pub fn status(reason: Reason, message: impl Into<String>) -> Status {
    let details = ErrorDetails::with_error_info(reason.as_str(), DOMAIN, HashMap::new());
    Status::with_error_details(reason.code(), bounded_message(message.into()), details)
}

/// `reason`'s code (INVALID_ARGUMENT for a bad field; RESOURCE_EXHAUSTED for a value
/// that would not fit a bounded record) with the `field: message` text every service
/// uses, an `ErrorInfo` and a `BadRequest` whose one violation names `field`.
/// Field and message are bounded like [`status`]'s (a field name longer than an id is
/// a caller's text, quoted and cut).
pub fn invalid(reason: Reason, field: &str, message: &str) -> Status {
    let field = if field.len() > MAX_ID_BYTES {
        quote(field)
    } else {
        field.to_owned()
    };
    let message = bounded_message(message.to_owned());
    let mut details = ErrorDetails::with_error_info(reason.as_str(), DOMAIN, HashMap::new());
    details.add_bad_request_violation(field.as_str(), message.as_str());
    Status::with_error_details(
        reason.code(),
        bounded_message(format!("{field}: {message}")),
        details,
    )
}

/// RESOURCE_EXHAUSTED with an `ErrorInfo` and a `RetryInfo` of `retry_after`: load
/// shed before the work started, or work stopped at its budget.
pub fn exhausted(message: impl Into<String>, retry_after: Duration) -> Status {
    let mut details =
        ErrorDetails::with_error_info(Reason::ResourceExhausted.as_str(), DOMAIN, HashMap::new());
    details.set_retry_info(Some(retry_after));
    Status::with_error_details(Code::ResourceExhausted, message, details)
}

/// UNAVAILABLE with an `ErrorInfo` and a `RetryInfo` of `retry_after`: what the call
/// needs does not answer now (a store, a peer), and the same call may succeed then.
pub fn unavailable(message: impl Into<String>, retry_after: Duration) -> Status {
    let mut details =
        ErrorDetails::with_error_info(Reason::Unavailable.as_str(), DOMAIN, HashMap::new());
    details.set_retry_info(Some(retry_after));
    Status::with_error_details(Code::Unavailable, bounded_message(message.into()), details)
}

/// The delay a status's `RetryInfo` asks for, if any.
pub fn retry_after_of(status: &Status) -> Option<Duration> {
    status
        .get_details_retry_info()
        .and_then(|info| info.retry_delay)
}

/// The `ErrorInfo.reason` a status carries, if any.
pub fn reason_of(status: &Status) -> Option<String> {
    status.get_details_error_info().map(|info| info.reason)
}

/// The field the first `BadRequest` violation of a status names, if any.
pub fn field_of(status: &Status) -> Option<String> {
    status
        .get_details_bad_request()
        .and_then(|bad| bad.field_violations.into_iter().next())
        .map(|violation| violation.field)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_is_upper_snake_and_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for reason in Reason::ALL {
            let text = reason.as_str();
            assert!(
                text.chars().all(|c| c.is_ascii_uppercase() || c == '_') && text.len() <= 63,
                "{text}"
            );
            assert!(seen.insert(text), "{text} twice");
        }
    }

    #[test]
    fn a_status_carries_its_reason_and_domain() {
        for reason in Reason::ALL {
            let status = status(reason, "m");
            assert_eq!(status.code(), reason.code());
            let info = status.get_details_error_info().unwrap();
            assert_eq!(
                (info.reason.as_str(), info.domain.as_str()),
                (reason.as_str(), DOMAIN)
            );
        }
    }

    #[test]
    fn a_shed_call_says_when_to_retry() {
        let status = exhausted("over the caller's share", Duration::from_millis(1_500));
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert_eq!(reason_of(&status).as_deref(), Some("RESOURCE_EXHAUSTED"));
        assert_eq!(retry_after_of(&status), Some(Duration::from_millis(1_500)));
    }

    #[test]
    fn an_invalid_argument_names_its_field_in_a_bad_request() {
        let status = invalid(Reason::InvalidArgument, "source.trigger", "bad interval");
        assert_eq!(status.message(), "source.trigger: bad interval");
        let bad = status.get_details_bad_request().unwrap();
        assert_eq!(bad.field_violations.len(), 1);
        assert_eq!(bad.field_violations[0].field, "source.trigger");
        assert_eq!(bad.field_violations[0].description, "bad interval");
        assert_eq!(reason_of(&status).as_deref(), Some("INVALID_ARGUMENT"));
    }

    /// The bytes a status puts in the trailers: `grpc-message` and the encoded details.
    fn trailer_bytes(status: &Status) -> usize {
        status.message().len() + status.details().len()
    }

    #[test]
    fn a_message_quoting_a_huge_value_is_cut_in_every_copy() {
        let root = format!("/{}", "a".repeat(9_999));
        for status in [
            status(
                Reason::Unavailable,
                format!("source root {root}: not found"),
            ),
            invalid(
                Reason::SourceRootRefused,
                "source.root",
                &format!("{root} is refused"),
            ),
            invalid(Reason::InvalidArgument, &root, "bad"),
        ] {
            assert!(
                status.message().len() <= MAX_MESSAGE_BYTES,
                "{}",
                status.message().len()
            );
            assert!(status.message().contains("(10"), "{}", status.message());
            // message, the google.rpc.Status copy and a BadRequest: a few KB at most.
            assert!(
                trailer_bytes(&status) < 4 * MAX_MESSAGE_BYTES,
                "{}",
                trailer_bytes(&status)
            );
            let rich = status.get_error_details();
            assert!(rich.error_info().is_some());
        }
    }
}
