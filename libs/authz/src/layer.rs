//! The tower layer in front of one tonic service: every request goes through the gate
//! before the service sees it; a refused request never reaches it and gets its status
//! as a trailers-only answer.

use std::convert::Infallible;
use std::future::{Ready, ready};
use std::task::{Context, Poll};

use futures::future::Either;
use tonic::body::Body;
use tonic::server::NamedService;
use tower::{Layer, Service};

use crate::gate::Gate;

/// Wraps a tonic service in its gate.
#[derive(Debug, Clone)]
pub struct AuthorizeLayer {
    gate: Gate,
}

impl AuthorizeLayer {
    /// A layer deciding with `gate`.
    pub fn new(gate: Gate) -> Self {
        AuthorizeLayer { gate }
    }
}

impl<S> Layer<S> for AuthorizeLayer {
    type Service = Authorized<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Authorized {
            inner,
            gate: self.gate.clone(),
        }
    }
}

/// A tonic service behind its gate.
#[derive(Debug, Clone)]
pub struct Authorized<S> {
    inner: S,
    gate: Gate,
}

impl<S> Authorized<S> {
    /// `inner` behind `gate`.
    pub fn new(inner: S, gate: Gate) -> Self {
        Authorized { inner, gate }
    }

    /// The gate (its counts, its table).
    pub fn gate(&self) -> &Gate {
        &self.gate
    }
}

// === impl Service ===

impl<S> Service<http::Request<Body>> for Authorized<S>
where
    S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = Either<S::Future, Ready<Result<http::Response<Body>, Infallible>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<Body>) -> Self::Future {
        // A malformed `authorization` header is no credential at all.
        let token = neuralis_identity::bearer_token(request.headers()).ok();
        match self.gate.admit(request.uri().path(), token) {
            Ok(permit) => {
                request.extensions_mut().insert(permit);
                Either::Left(self.inner.call(request))
            }
            Err(denial) => Either::Right(ready(Ok(denial.status().into_http()))),
        }
    }
}

// === impl NamedService ===

impl<S: NamedService> NamedService for Authorized<S> {
    const NAME: &'static str = S::NAME;
}
