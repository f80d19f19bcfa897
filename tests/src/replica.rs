//! Stand-ins for the replicas of a peer behind a headless Service, for the balancer's
//! tests: servers that count their calls and answer as told, and a resolver whose
//! answer the test changes.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use http_body_util::StreamBody;
use neuralis_host::peer::{Resolve, Resolved};
use tonic::body::Body;
use tonic::codegen::Bytes;
use tonic::server::NamedService;

/// What a stand-in replica does with a call: answer an empty message.
pub const ANSWER: u8 = 0;
/// Answer UNAVAILABLE (trailers only).
pub const UNAVAILABLE: u8 = 1;
/// Every other call answers UNAVAILABLE, starting with the first.
pub const FLAKY: u8 = 2;
/// Never answer.
pub const HANG: u8 = 3;

/// A policy replica that counts the calls it receives and answers each as `mode`
/// says (an empty message: the balancer, not policy, is under test).
#[derive(Clone)]
pub struct Replica {
    calls: Arc<AtomicUsize>,
    mode: Arc<AtomicU8>,
}

impl NamedService for Replica {
    const NAME: &'static str = "neuralis.policy.v1.PolicyService";
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

impl tower::Service<http::Request<Body>> for Replica {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: http::Request<Body>) -> Self::Future {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let mode = self.mode.load(Ordering::SeqCst);
        Box::pin(async move {
            match mode {
                UNAVAILABLE => Ok(trailers_only("14")),
                FLAKY if n.is_multiple_of(2) => Ok(trailers_only("14")),
                HANG => std::future::pending().await,
                _ => Ok(empty_message()),
            }
        })
    }
}

fn trailers_only(code: &'static str) -> http::Response<Body> {
    let mut response = http::Response::new(Body::empty());
    let headers = response.headers_mut();
    headers.insert(
        "content-type",
        http::HeaderValue::from_static("application/grpc"),
    );
    headers.insert("grpc-status", http::HeaderValue::from_static(code));
    response
}

/// One empty message (a zero-length frame), then `grpc-status: 0`.
fn empty_message() -> http::Response<Body> {
    let mut trailers = http::HeaderMap::new();
    trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
    let frames = futures::stream::iter([
        Ok::<_, tonic::Status>(http_body::Frame::data(Bytes::from_static(&[0; 5]))),
        Ok(http_body::Frame::trailers(trailers)),
    ]);
    let mut response = http::Response::new(Body::new(StreamBody::new(frames)));
    response.headers_mut().insert(
        "content-type",
        http::HeaderValue::from_static("application/grpc"),
    );
    response
}

/// A stand-in replica serving on `127.0.0.1:0`, and its address.
pub async fn replica(mode: u8) -> std::io::Result<(SocketAddr, Replica)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let replica = Replica {
        calls: Arc::default(),
        mode: Arc::new(AtomicU8::new(mode)),
    };
    let served = replica.clone();
    tokio::spawn(async move {
        tonic::transport::Server::builder()
            .add_service(served)
            .serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener))
            .await
    });
    Ok((addr, replica))
}

impl Replica {
    /// The calls received so far.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

/// A headless Service's answer, changed by the test.
#[derive(Clone, Default)]
pub struct Answer(pub Arc<Mutex<Vec<SocketAddr>>>);

impl Resolve for Answer {
    fn resolve(&self, _host: &str, _port: u16) -> Resolved {
        // A poisoned lock (a panicked test) answers nothing, which keeps what is known.
        let addrs = self.0.lock().map(|addrs| addrs.clone()).unwrap_or_default();
        Box::pin(async move { Ok(addrs) })
    }
}
