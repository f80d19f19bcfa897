//! Graceful shutdown with a deadline.
//!
//! The first SIGTERM (or Ctrl-C) starts draining: servers stop accepting calls and
//! long-lived streams watch [`Shutdown::drained`] and end. If draining takes longer
//! than the deadline, or a second signal arrives, the process stops at once.

use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// A drain signal shared by everything that must stop cleanly.
#[derive(Debug, Clone, Default)]
pub struct Shutdown {
    drain: CancellationToken,
}

impl Shutdown {
    /// A drain signal that nothing has triggered yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts draining (tests and embedded callers use this instead of a signal).
    pub fn trigger(&self) {
        self.drain.cancel();
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

    /// Triggers draining on the first SIGTERM or SIGINT, and exits the process on a
    /// second signal or when `deadline` passes after the first.
    pub fn listen_for_signals(&self, deadline: Duration) {
        let this = self.clone();
        tokio::spawn(async move {
            wait_for_signal().await;
            tracing::info!(
                deadline_ms = deadline.as_millis() as u64,
                "shutdown signal received, draining"
            );
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
}
