//! The admin port: plain HTTP/1.1 beside the gRPC port, for Prometheus and probes.
//!
//! - `/metrics`: the process's families in the Prometheus text format.
//! - `/livez`: 200 while the process runs (a wedged runtime does not answer).
//! - `/readyz`: 200 when every required check passes and the process is not stopping,
//!   503 otherwise; the body lists each check, and non-required ones (the invalidation
//!   subscription, served in bypass while lost) as `degraded`.
//!
//! A tiny server written here rather than a framework: three GET routes, one request
//! per connection, heads capped at 8 KiB and read within 5 s.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::shutdown::Shutdown;

const MAX_HEAD: usize = 8 * 1024;
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// One readiness check's last result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Check {
    ok: bool,
    required: bool,
}

/// What `/readyz` answers, shared with whatever watches the dependencies.
#[derive(Debug, Clone, Default)]
pub struct Readiness {
    checks: Arc<Mutex<BTreeMap<&'static str, Check>>>,
    shutdown: Shutdown,
}

impl Readiness {
    /// Not ready while `shutdown` is stopping.
    pub fn new(shutdown: Shutdown) -> Self {
        Self {
            checks: Arc::default(),
            shutdown,
        }
    }

    /// Records a check: a failing required one makes the process not ready; a failing
    /// optional one is reported as degraded.
    pub fn set(&self, name: &'static str, ok: bool, required: bool) {
        self.lock().insert(name, Check { ok, required });
    }

    /// Forgets a check (one that only held while the process started).
    pub fn clear(&self, name: &'static str) {
        self.lock().remove(name);
    }

    /// Whether the process should receive calls.
    pub fn is_ready(&self) -> bool {
        !self.shutdown.is_stopping() && self.lock().values().all(|c| c.ok || !c.required)
    }

    /// The `/readyz` body: one line per check, with fixed names and states only.
    pub fn report(&self) -> String {
        let mut text = String::new();
        if self.shutdown.is_stopping() {
            text.push_str("shutdown: stopping\n");
        }
        let mut checks = self.lock().clone();
        if let Some(live) = neuralis_metrics::subscription_live() {
            checks.insert(
                "invalidation_subscription",
                Check {
                    ok: live,
                    required: false,
                },
            );
        }
        for (name, check) in checks {
            let state = match (check.ok, check.required) {
                (true, _) => "ok",
                (false, true) => "failing",
                (false, false) => "degraded (served in bypass)",
            };
            text.push_str(&format!("{name}: {state}\n"));
        }
        text
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<&'static str, Check>> {
        self.checks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Serves the admin routes on an already-bound listener until `shutdown` drains.
pub async fn serve_admin(listener: TcpListener, readiness: Readiness, shutdown: Shutdown) {
    let drained = shutdown.drained();
    tokio::pin!(drained);
    loop {
        tokio::select! {
            _ = &mut drained => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let readiness = readiness.clone();
                    tokio::spawn(async move {
                        let _ = tokio::time::timeout(READ_TIMEOUT, answer(stream, &readiness)).await;
                    });
                }
                Err(error) => {
                    tracing::warn!(%error, "admin port: accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
}

async fn answer(mut stream: TcpStream, readiness: &Readiness) -> std::io::Result<()> {
    let mut head = Vec::with_capacity(512);
    let mut buffer = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = stream.read(&mut buffer).await?;
        if read == 0 {
            break;
        }
        head.extend_from_slice(&buffer[..read]);
        if head.len() > MAX_HEAD {
            return respond(
                &mut stream,
                "431 Request Header Fields Too Large",
                "text/plain",
                "",
            )
            .await;
        }
    }
    let line = head.split(|b| *b == b'\r').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut parts = line.split(' ');
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    if method != "GET" {
        return respond(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain",
            "GET only\n",
        )
        .await;
    }
    match path {
        "/metrics" => {
            let text = neuralis_metrics::render();
            respond(&mut stream, "200 OK", neuralis_metrics::CONTENT_TYPE, &text).await
        }
        "/livez" => respond(&mut stream, "200 OK", "text/plain", "ok\n").await,
        "/readyz" => {
            let status = if readiness.is_ready() {
                "200 OK"
            } else {
                "503 Service Unavailable"
            };
            respond(&mut stream, status, "text/plain", &readiness.report()).await
        }
        _ => respond(&mut stream, "404 Not Found", "text/plain", "not found\n").await,
    }
}

async fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &str,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).await.unwrap();
        let code = text[9..12].parse().unwrap();
        let body = text.split_once("\r\n\r\n").unwrap().1.to_owned();
        (code, body)
    }

    #[tokio::test]
    async fn readyz_follows_required_checks_and_stopping_while_livez_stays_up() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shutdown = Shutdown::new();
        let readiness = Readiness::new(shutdown.clone());
        let server = tokio::spawn(serve_admin(listener, readiness.clone(), shutdown.clone()));
        readiness.set("policy", true, true);
        assert_eq!(get(addr, "/readyz").await.0, 200);
        readiness.set("policy", false, true);
        let (code, body) = get(addr, "/readyz").await;
        assert_eq!((code, body.as_str()), (503, "policy: failing\n"));
        readiness.set("policy", true, true);
        readiness.set("cache", false, false);
        assert_eq!(
            get(addr, "/readyz").await.0,
            200,
            "an optional check only degrades"
        );
        assert!(get(addr, "/metrics").await.1.contains("process_open_fds"));
        assert_eq!(get(addr, "/nothing").await.0, 404);
        neuralis_metrics::subscription_attached();
        neuralis_metrics::invalidation(neuralis_metrics::Invalidation::Lost);
        let (code, body) = get(addr, "/readyz").await;
        assert_eq!(
            code, 200,
            "a lost subscription is served in bypass, not fatal"
        );
        assert!(
            body.contains("invalidation_subscription: degraded (served in bypass)"),
            "{body}"
        );
        shutdown.stop();
        assert_eq!(get(addr, "/readyz").await.0, 503, "stopping is not ready");
        assert_eq!(get(addr, "/livez").await.0, 200);
        shutdown.trigger();
        server.await.unwrap();
    }
}
