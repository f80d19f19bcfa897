//! Graceful shutdown in two steps, with a deadline.
//!
//! The first SIGTERM (or Ctrl-C) starts *stopping*: health turns NOT_SERVING and
//! `/readyz` fails while every call is still served, so load balancers move away.
//! After the drain delay, *draining* starts: servers stop accepting calls, in-flight
//! calls finish, and open server streams end with `UNAVAILABLE` (see
//! [`crate::rpc::ServerLayer`]). The process then exits 0. If draining takes longer
//! than the deadline (the grace period), or a second signal arrives, it exits 1 at once.

use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// A drain signal shared by everything that must stop cleanly.
#[derive(Debug, Clone, Default)]
pub struct Shutdown {
    stopping: CancellationToken,
    drain: CancellationToken,
}

impl Shutdown {
    /// A drain signal that nothing has triggered yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts draining at once (tests and embedded callers use this instead of a
    /// signal); stopping starts with it.
    pub fn trigger(&self) {
        self.stopping.cancel();
        self.drain.cancel();
    }

    /// Starts stopping: health turns NOT_SERVING, calls are still served.
    pub fn stop(&self) {
        self.stopping.cancel();
    }

    /// True once stopping (or draining) has started.
    pub fn is_stopping(&self) -> bool {
        self.stopping.is_cancelled()
    }

    /// Resolves when stopping starts (turn health NOT_SERVING there).
    pub fn stopping(&self) -> impl Future<Output = ()> + Send + 'static {
        let token = self.stopping.clone();
        async move { token.cancelled().await }
    }

    /// True once draining has started.
    pub fn is_draining(&self) -> bool {
        self.drain.is_cancelled()
    }

    /// Resolves when draining starts: hand it to `serve_with_incoming_shutdown`, and
    /// select on it in every long stream.
    pub fn drained(&self) -> impl Future<Output = ()> + Send + 'static {
        let token = self.drain.clone();
        async move { token.cancelled().await }
    }

    /// On the first SIGTERM or SIGINT: stops, waits `delay` (calls still served),
    /// then drains; exits the process on a second signal or when `deadline` passes
    /// after the drain began.
    pub fn listen_for_signals(&self, delay: Duration, deadline: Duration) {
        let this = self.clone();
        tokio::spawn(async move {
            wait_for_signal().await;
            tracing::info!(
                delay_ms = delay.as_millis() as u64,
                deadline_ms = deadline.as_millis() as u64,
                "shutdown signal received, not serving"
            );
            this.stop();
            tokio::select! {
                _ = wait_for_signal() => {
                    tracing::warn!("second signal, exiting now");
                    std::process::exit(1);
                }
                _ = tokio::time::sleep(delay) => {}
            }
            tracing::info!("draining");
            this.trigger();
            tokio::select! {
                _ = wait_for_signal() => tracing::warn!("second signal, exiting now"),
                _ = tokio::time::sleep(deadline) => tracing::warn!("drain deadline passed, exiting now"),
            }
            std::process::exit(1);
        });
    }
}

#[cfg(unix)]
async fn wait_for_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(mut term), Ok(mut int)) => {
            tokio::select! {
                _ = term.recv() => {},
                _ = int.recv() => {},
            }
        }
        _ => {
            // Without signal handlers the process still stops on the default action.
            std::future::pending::<()>().await;
        }
    }
}

#[cfg(not(unix))]
async fn wait_for_signal() {
    let _ = tokio::signal::ctrl_c().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn drained_resolves_after_trigger_and_not_before() {
        let shutdown = Shutdown::new();
        let drained = shutdown.drained();
        assert!(!shutdown.is_draining());
        let pending = tokio::time::timeout(Duration::from_millis(20), shutdown.drained()).await;
        assert!(pending.is_err(), "must not resolve before a trigger");
        shutdown.trigger();
        drained.await;
        assert!(shutdown.is_draining());
    }

    #[tokio::test]
    async fn stopping_comes_before_draining() {
        let shutdown = Shutdown::new();
        shutdown.stop();
        shutdown.stopping().await;
        assert!(shutdown.is_stopping());
        assert!(!shutdown.is_draining(), "stopping alone keeps serving");
        shutdown.trigger();
        assert!(shutdown.is_draining());
    }
}
