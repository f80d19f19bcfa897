//! Bounded calls to peers: a deadline on every call, and one or two retries of an
//! idempotent read that a replica answered `UNAVAILABLE` (or never reached), paid from
//! a budget so an outage cannot multiply the load on the replicas still up. A read
//! whose connection was refused never reached a server and is retried for free (up to
//! [`MAX_REFUSED_RETRIES`] times).
//!
//! The deadline covers the wait for the answer's headers: a unary answer, or the start
//! of a stream (a feed stream may legitimately run longer than any fixed deadline). It
//! is sent on as `grpc-timeout` so the server gives up too, and an exceeded deadline
//! answers `DEADLINE_EXCEEDED` rather than leaving the caller waiting.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use tonic::body::Body;
use tonic::codegen::Bytes;
use tower::ServiceExt;

/// The reads a replica may answer twice with no effect: the only calls retried.
pub const IDEMPOTENT: &[&str] = &[
    "/neuralis.policy.v1.PolicyService/Evaluate",
    "/neuralis.sync.internal.v1.IndexFeedService/ListEntries",
    "/neuralis.sync.internal.v1.IndexFeedService/GetRevision",
    "/neuralis.sync.internal.v1.IndexFeedService/ListProjectSources",
    "/neuralis.sync.internal.v1.IndexFeedService/ReadDecidedFile",
    "/neuralis.sync.internal.v1.IndexFeedService/SearchChunks",
];

/// Retries after the first attempt, at most, paid from the budget.
pub const MAX_RETRIES: u32 = 2;

/// Retries of a read no replica accepted a connection for: the call never reached a
/// server, so it costs the replicas nothing and is not paid from the budget (gRPC's
/// transparent retry). Bounded all the same, and by the deadline.
pub const MAX_REFUSED_RETRIES: u32 = 4;

const UNAVAILABLE: &str = "14";
const DEADLINE_EXCEEDED: &str = "4";

/// How calls on one peer channel are bounded.
#[derive(Debug, Clone, Default)]
pub struct CallBounds {
    /// Each call's deadline; none for a channel built from a bare [`tonic::transport::Channel`].
    pub deadline: Option<Duration>,
    /// Shared by every clone of the channel.
    pub budget: RetryBudget,
}

/// Retries may add at most a fifth to the calls made, plus a small reserve so a lone
/// failure right after start can still be retried. Tokens are counted in thousandths.
#[derive(Debug, Clone)]
pub struct RetryBudget {
    tokens: Arc<Mutex<u64>>,
}

/// A retry costs this; each call deposits [`DEPOSIT`].
const RETRY_COST: u64 = 1_000;
/// A fifth of a retry per call: retries are at most 20% of calls.
const DEPOSIT: u64 = 200;
/// The balance never exceeds ten retries, and starts full.
const RESERVE: u64 = 10 * RETRY_COST;

impl Default for RetryBudget {
    fn default() -> Self {
        Self {
            tokens: Arc::new(Mutex::new(RESERVE)),
        }
    }
}

impl RetryBudget {
    /// Credits one call.
    pub fn deposit(&self) {
        if let Ok(mut tokens) = self.tokens.lock() {
            *tokens = (*tokens + DEPOSIT).min(RESERVE);
        }
    }

    /// Takes one retry from the budget, or says there is none left.
    pub fn withdraw(&self) -> bool {
        match self.tokens.lock() {
            Ok(mut tokens) if *tokens >= RETRY_COST => {
                *tokens -= RETRY_COST;
                true
            }
            _ => false,
        }
    }
}

/// Whether `path` names a call that may be retried.
pub fn is_idempotent(path: &str) -> bool {
    IDEMPOTENT.contains(&path)
}

/// Whether an answer's headers say `UNAVAILABLE` (a trailers-only answer).
fn answered_unavailable(response: &http::Response<Body>) -> bool {
    response
        .headers()
        .get("grpc-status")
        .is_some_and(|code| code.as_bytes() == UNAVAILABLE.as_bytes())
}

/// A trailers-only answer with `code`, as a server would send it.
fn status_answer(code: &'static str, message: &'static str) -> http::Response<Body> {
    let mut response = http::Response::new(Body::empty());
    let headers = response.headers_mut();
    headers.insert(
        "content-type",
        http::HeaderValue::from_static("application/grpc"),
    );
    headers.insert("grpc-status", http::HeaderValue::from_static(code));
    headers.insert("grpc-message", http::HeaderValue::from_static(message));
    response
}

/// `grpc-timeout` for `deadline`, in milliseconds (at most 8 digits, as the spec says).
fn grpc_timeout(deadline: Duration) -> http::HeaderValue {
    let millis = deadline.as_millis().min(99_999_999);
    http::HeaderValue::from_str(&format!("{millis}m"))
        .unwrap_or_else(|_| http::HeaderValue::from_static("99999999m"))
}

/// A channel whose calls are bounded by [`CallBounds`].
#[derive(Debug, Clone)]
pub struct Retrying<S> {
    inner: S,
    bounds: CallBounds,
}

impl<S> Retrying<S> {
    /// Wraps `inner`.
    pub fn new(inner: S, bounds: CallBounds) -> Self {
        Self { inner, bounds }
    }
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

impl<S> tower::Service<http::Request<Body>> for Retrying<S>
where
    S: tower::Service<http::Request<Body>, Response = http::Response<Body>>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: std::error::Error + Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<Body>) -> Self::Future {
        // The ready service answers the first attempt; a fresh clone each retry.
        let fresh = self.inner.clone();
        let ready = std::mem::replace(&mut self.inner, fresh);
        let bounds = self.bounds.clone();
        bounds.budget.deposit();
        if let Some(deadline) = bounds.deadline {
            request
                .headers_mut()
                .insert("grpc-timeout", grpc_timeout(deadline));
        }
        let calls = attempts(ready, request, bounds.budget);
        match bounds.deadline {
            None => Box::pin(calls),
            Some(deadline) => Box::pin(async move {
                match tokio::time::timeout(deadline, calls).await {
                    Ok(answer) => answer,
                    Err(_) => Ok(status_answer(DEADLINE_EXCEEDED, "peer deadline exceeded")),
                }
            }),
        }
    }
}

/// The first attempt, then retries of an idempotent read while the budget allows.
async fn attempts<S>(
    mut service: S,
    request: http::Request<Body>,
    budget: RetryBudget,
) -> Result<http::Response<Body>, S::Error>
where
    S: tower::Service<http::Request<Body>, Response = http::Response<Body>> + Clone,
    S::Error: std::error::Error + 'static,
{
    if !is_idempotent(request.uri().path()) {
        return service.call(request).await;
    }
    let (parts, body) = request.into_parts();
    // A read's request is one small message: kept so it can be sent again.
    let bytes = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => return Ok(status_answer("13", "request body failed")),
    };
    let again = |bytes: &Bytes| {
        let mut request = http::Request::new(Body::new(Full::new(bytes.clone())));
        *request.method_mut() = parts.method.clone();
        *request.uri_mut() = parts.uri.clone();
        *request.version_mut() = parts.version;
        *request.headers_mut() = parts.headers.clone();
        request
    };
    let mut answer = service.call(again(&bytes)).await;
    let (mut paid, mut refused) = (0, 0);
    loop {
        if answer.as_ref().err().is_some_and(|e| never_connected(e))
            && refused < MAX_REFUSED_RETRIES
        {
            refused += 1;
        } else if paid < MAX_RETRIES && retryable(&answer) && budget.withdraw() {
            paid += 1;
        } else {
            break;
        }
        tracing::debug!(
            paid,
            refused,
            "retrying an idempotent read on another replica"
        );
        let mut next = service.clone();
        answer = match next.ready().await {
            Ok(ready) => ready.call(again(&bytes)).await,
            Err(error) => Err(error),
        };
    }
    answer
}

/// Whether `error` is a connection that was never made (refused, unreachable): the
/// request never left this process.
fn never_connected(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if error.is::<tonic::ConnectError>() {
            return true;
        }
        cause = error.source();
    }
    false
}

/// A transport failure (no replica answered) or an `UNAVAILABLE` answer.
fn retryable<E>(answer: &Result<http::Response<Body>, E>) -> bool {
    match answer {
        Ok(response) => answered_unavailable(response),
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_reads_are_retried() {
        let cases = [
            ("/neuralis.policy.v1.PolicyService/Evaluate", true),
            (
                "/neuralis.sync.internal.v1.IndexFeedService/ListEntries",
                true,
            ),
            (
                "/neuralis.sync.internal.v1.IndexFeedService/SearchChunks",
                true,
            ),
            ("/neuralis.policy.v1.PolicyService/ForgetSource", false),
            ("/neuralis.policy.v1.PolicyService/PutSourcePolicy", false),
            ("/neuralis.sync.v1.SourceService/SyncSource", false),
            ("/neuralis.policy.v1.PolicyService/Evaluate/", false),
        ];
        for (path, expected) in cases {
            assert_eq!(is_idempotent(path), expected, "{path}");
        }
    }

    #[test]
    fn retries_are_at_most_a_fifth_of_calls_after_the_reserve() {
        let budget = RetryBudget::default();
        let mut retries = 0;
        for _ in 0..1_000 {
            budget.deposit();
            while budget.withdraw() {
                retries += 1;
            }
        }
        // Ten from the reserve, then one per five calls.
        assert!(retries <= 10 + 1_000 / 5, "{retries}");
        assert!(retries >= 1_000 / 5, "{retries}");
    }

    #[test]
    fn an_empty_budget_refuses_a_retry() {
        let budget = RetryBudget::default();
        for _ in 0..10 {
            assert!(budget.withdraw());
        }
        assert!(!budget.withdraw());
        for _ in 0..4 {
            budget.deposit();
        }
        assert!(!budget.withdraw(), "four calls do not pay for a retry");
        budget.deposit();
        assert!(budget.withdraw());
    }

    #[test]
    fn only_a_connection_never_made_is_retried_for_free() {
        #[derive(Debug, thiserror::Error)]
        #[error("wrapped")]
        struct Wrapped(#[source] Box<dyn std::error::Error + Send + Sync>);
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        let connect = tonic::ConnectError(Box::new(refused));
        assert!(never_connected(&Wrapped(Box::new(connect))));
        let reset = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        assert!(!never_connected(&Wrapped(Box::new(reset))));
    }

    #[test]
    fn the_deadline_is_sent_in_milliseconds() {
        assert_eq!(grpc_timeout(Duration::from_millis(5_000)), "5000m");
        assert_eq!(grpc_timeout(Duration::from_secs(1_000_000)), "99999999m");
    }

    #[test]
    fn an_unavailable_trailers_only_answer_is_retryable() {
        let unavailable: Result<_, ()> = Ok(status_answer(UNAVAILABLE, "down"));
        let exceeded: Result<_, ()> = Ok(status_answer(DEADLINE_EXCEEDED, "slow"));
        let transport: Result<http::Response<Body>, ()> = Err(());
        assert!(retryable(&unavailable));
        assert!(!retryable(&exceeded));
        assert!(retryable(&transport));
        assert!(!retryable::<()>(&Ok(http::Response::new(Body::empty()))));
    }
}
