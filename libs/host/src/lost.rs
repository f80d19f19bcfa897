//! A call lost in transport is UNAVAILABLE, whatever code tonic gave it.
//!
//! When the connection under a call breaks (the replica died, its socket was reset,
//! the stream was torn down mid-answer), tonic makes the status itself from the
//! transport's error: `UNKNOWN` for a reset socket or a connection closed before the
//! answer was complete, `INTERNAL` for most HTTP/2 resets. No server said either. The
//! gRPC status guide calls a broken connection UNAVAILABLE (transient, worth a retry on
//! another replica), and so do the services' clients, so a caller retrying UNAVAILABLE
//! rides over a replica's death. A status sent by a server carries no source error, so
//! an answer's own `INTERNAL` stays `INTERNAL`.

use std::error::Error;

use tonic::{Code, Status};

/// Whether `status` was made by this process's client from a broken connection,
/// rather than received from a server.
pub fn in_transport(status: &Status) -> bool {
    if !matches!(status.code(), Code::Unknown | Code::Internal) {
        return false;
    }
    let mut cause = status.source();
    while let Some(error) = cause {
        if error.is::<hyper::Error>() || error.is::<h2::Error>() || error.is::<std::io::Error>() {
            return true;
        }
        cause = error.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn made_from(error: impl Error + Send + Sync + 'static) -> Status {
        Status::from_error(Box::new(error))
    }

    #[test]
    fn only_a_status_made_from_a_transport_error_is_lost_in_transport() {
        let reset = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset by peer");
        let cases = [
            ("a reset socket", made_from(reset), true),
            (
                "an HTTP/2 stream reset",
                made_from(h2::Error::from(h2::Reason::INTERNAL_ERROR)),
                true,
            ),
            ("a server's INTERNAL", Status::internal("boom"), false),
            ("a server's UNKNOWN", Status::unknown("what"), false),
            (
                "a local error that is not the transport's",
                made_from(std::fmt::Error),
                false,
            ),
            (
                "UNAVAILABLE already",
                Status::unavailable("connection refused"),
                false,
            ),
        ];
        for (what, status, lost) in cases {
            assert_eq!(in_transport(&status), lost, "{what}: {status:?}");
        }
    }

    #[test]
    fn a_transport_error_under_another_code_is_left_to_that_code() {
        // tonic maps an HTTP/2 REFUSED_STREAM to UNAVAILABLE and CANCEL to CANCELLED
        // itself; neither is re-read here.
        let cancelled = made_from(h2::Error::from(h2::Reason::CANCEL));
        assert_eq!(cancelled.code(), Code::Cancelled);
        assert!(!in_transport(&cancelled));
    }
}
