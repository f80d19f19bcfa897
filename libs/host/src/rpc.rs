//! One tower layer around every served call and one around every outbound call: a span
//! named by the method (a child of the caller's trace), the latency histogram by
//! service, method and code, one log line when the call finishes, and the span's
//! status set when it fails. Names come from [`crate::vocabulary`] only.
//!
//! The layer also ends server streams cleanly on drain: once [`Shutdown`] drains, a
//! streaming answer gets `UNAVAILABLE` trailers and ends, so the server can stop
//! without waiting on a stream that would run for minutes.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use http_body::{Body, Frame, SizeHint};
use tonic::codegen::Bytes;
use tracing::Instrument;
use tracing::field::Empty;

use crate::peer::PeerChannel;
use crate::propagation;
use crate::retry::Retrying;
use crate::shutdown::Shutdown;
use crate::vocabulary::{Rpc, rpc_of};

/// Which end of a call this process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Server,
    Client,
}

/// The gRPC `UNAVAILABLE` code: what a stream ended by a drain reports.
const UNAVAILABLE: i32 = 14;

/// Records one call when dropped: at the end of its answer, or when the caller went
/// away first.
struct Call {
    rpc: Rpc,
    side: Side,
    span: tracing::Span,
    started: Instant,
    code: Option<i32>,
    ended: bool,
}

impl Call {
    fn new(rpc: Rpc, side: Side, span: tracing::Span) -> Self {
        Self {
            rpc,
            side,
            span,
            started: Instant::now(),
            code: None,
            ended: false,
        }
    }

    fn finish_with(mut self, code: i32) {
        self.code = Some(code);
        self.ended = true;
    }

    fn observe(&mut self, headers: &http::HeaderMap) {
        if let Some(code) = headers
            .get("grpc-status")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<i32>().ok())
        {
            self.code = Some(code);
        }
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        // An answer that ended without a status is a defect (UNKNOWN); one that never
        // ended was abandoned by the caller (CANCELLED).
        let code = self.code.unwrap_or(if self.ended { 2 } else { 1 });
        let name = neuralis_metrics::code_name(code);
        let seconds = self.started.elapsed().as_secs_f64();
        let duration_ms = (seconds * 1000.0 * 1000.0).round() / 1000.0;
        match self.side {
            Side::Server => {
                neuralis_metrics::rpc_served(self.rpc.service, self.rpc.method, name, seconds)
            }
            Side::Client => {
                neuralis_metrics::rpc_called(self.rpc.service, self.rpc.method, name, seconds)
            }
        }
        self.span.record("rpc.grpc.status_code", code);
        if code != 0 {
            self.span.record("otel.status_code", "ERROR");
            self.span.record("otel.status_description", name);
        }
        let side = match self.side {
            Side::Server => "server",
            Side::Client => "client",
        };
        let _entered = self.span.enter();
        if self.rpc.service == "grpc.health.v1.Health" {
            // Probes every few seconds: kept out of the default log.
            tracing::debug!(
                target: "neuralis::rpc",
                side,
                method = self.rpc.full,
                code = name,
                duration_ms,
                "rpc finished"
            );
        } else {
            tracing::info!(
                target: "neuralis::rpc",
                side,
                method = self.rpc.full,
                code = name,
                duration_ms,
                "rpc finished"
            );
        }
    }
}

pin_project_lite::pin_project! {
    /// An answer's body, watched for its status and (server streams) cut on drain.
    pub struct RpcBody<B> {
        #[pin]
        inner: B,
        // None for a body made up by tonic (an interceptor's refusal): nothing to record.
        call: Option<Call>,
        drain: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
        cut: bool,
    }
}

impl<B: Default> Default for RpcBody<B> {
    fn default() -> Self {
        Self {
            inner: B::default(),
            call: None,
            drain: None,
            cut: false,
        }
    }
}

impl<B> Body for RpcBody<B>
where
    B: Body<Data = Bytes>,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.project();
        if *this.cut {
            return Poll::Ready(None);
        }
        if let Some(drain) = this.drain.as_mut()
            && drain.as_mut().poll(cx).is_ready()
        {
            *this.cut = true;
            if let Some(call) = this.call.as_mut() {
                call.code = Some(UNAVAILABLE);
                call.ended = true;
            }
            let mut trailers = http::HeaderMap::new();
            trailers.insert("grpc-status", http::HeaderValue::from_static("14"));
            trailers.insert(
                "grpc-message",
                http::HeaderValue::from_static("server%20is%20shutting%20down"),
            );
            return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
        }
        match this.inner.poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let (Some(trailers), Some(call)) = (frame.trailers_ref(), this.call.as_mut()) {
                    call.observe(trailers);
                    call.ended = true;
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(None) => {
                if let Some(call) = this.call.as_mut() {
                    call.ended = true;
                }
                Poll::Ready(None)
            }
            Poll::Ready(Some(Err(error))) => {
                if let Some(call) = this.call.as_mut() {
                    call.ended = true;
                }
                Poll::Ready(Some(Err(error)))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.cut || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Wraps a tonic server's routes (`Server::builder().layer(ServerLayer::new(..))`).
#[derive(Debug, Clone, Default)]
pub struct ServerLayer {
    shutdown: Shutdown,
}

impl ServerLayer {
    /// Server streams end when `shutdown` drains.
    pub fn new(shutdown: Shutdown) -> Self {
        Self { shutdown }
    }
}

impl<S> tower::Layer<S> for ServerLayer {
    type Service = Served<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Served {
            inner,
            shutdown: self.shutdown.clone(),
        }
    }
}

/// The served side of [`ServerLayer`].
#[derive(Debug, Clone)]
pub struct Served<S> {
    inner: S,
    shutdown: Shutdown,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B, R> tower::Service<http::Request<B>> for Served<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    R: Body<Data = Bytes>,
{
    type Response = http::Response<RpcBody<R>>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let rpc = rpc_of(request.uri().path());
        let span = tracing::info_span!(
            "grpc.server",
            otel.name = rpc.full,
            otel.kind = "server",
            rpc.system = "grpc",
            rpc.service = rpc.service,
            rpc.method = rpc.method,
            rpc.grpc.status_code = Empty,
            otel.status_code = Empty,
            otel.status_description = Empty,
        );
        propagation::continue_trace(&span, request.headers());
        let mut call = Call::new(rpc, Side::Server, span.clone());
        let drain: Option<BoxFuture<()>> = rpc
            .server_streaming
            .then(|| Box::pin(self.shutdown.drained()) as BoxFuture<()>);
        let answer = self.inner.call(request).instrument(span);
        Box::pin(async move {
            let response = answer.await?;
            call.observe(response.headers());
            Ok(response.map(|inner| RpcBody {
                inner,
                call: Some(call),
                drain,
                cut: false,
            }))
        })
    }
}

/// Wraps a client channel: a client span per call, its context sent as `traceparent`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientLayer;

impl<S> tower::Layer<S> for ClientLayer {
    type Service = Calling<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Calling { inner }
    }
}

/// The calling side of [`ClientLayer`].
#[derive(Debug, Clone)]
pub struct Calling<S> {
    inner: S,
}

impl<S, B, R> tower::Service<http::Request<B>> for Calling<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    R: Body<Data = Bytes>,
{
    type Response = http::Response<RpcBody<R>>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        let rpc = rpc_of(request.uri().path());
        let span = tracing::info_span!(
            "grpc.client",
            otel.name = rpc.full,
            otel.kind = "client",
            rpc.system = "grpc",
            rpc.service = rpc.service,
            rpc.method = rpc.method,
            rpc.grpc.status_code = Empty,
            otel.status_code = Empty,
            otel.status_description = Empty,
        );
        propagation::inject(&span, request.headers_mut());
        let mut call = Call::new(rpc, Side::Client, span.clone());
        let answer = self.inner.call(request).instrument(span);
        Box::pin(async move {
            let response = match answer.await {
                Ok(response) => response,
                Err(error) => {
                    // The transport failed before any answer: the caller sees UNAVAILABLE.
                    call.finish_with(UNAVAILABLE);
                    return Err(error);
                }
            };
            call.observe(response.headers());
            Ok(response.map(|inner| RpcBody {
                inner,
                call: Some(call),
                drain: None,
                cut: false,
            }))
        })
    }
}

/// A channel whose calls get a client span, the latency histogram and a log line, and
/// are bounded by a deadline and retried within a budget ([`crate::retry`]).
pub type TracedChannel = Calling<Retrying<tonic::transport::Channel>>;

/// Wraps `channel` in [`ClientLayer`] over its call bounds.
pub fn traced(channel: impl Into<PeerChannel>) -> TracedChannel {
    let PeerChannel { channel, bounds } = channel.into();
    Calling {
        inner: Retrying::new(channel, bounds),
    }
}
