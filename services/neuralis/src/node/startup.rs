//! A patient start (issue 26 item 3): a process whose sync cannot reach its index
//! store or bus yet, or whose policy cannot reach its access store, or whose store lacks
//! a migration of this release (check mode, before `neuralis migrate up`), stays up,
//! live and not ready (`/readyz` says `startup: failing`), and tries again with backoff
//! until they answer. Anything else that stops the start (a bad key, a port in use)
//! still ends the process at once.

use std::time::Duration;

use anyhow::Result;
use neuralis_access_store::StoreError;
use neuralis_host::Shutdown;
use neuralis_host::admin::Readiness;
use neuralis_policy::StartError;
use neuralis_sync::SyncError;
use tokio::net::TcpListener;

use super::{Node, NodeSettings, Targets};

/// The readiness check that fails until the node has started.
pub const STARTUP: &str = "startup";
/// The first wait between attempts.
const FIRST_WAIT: Duration = Duration::from_millis(250);
/// The longest wait between attempts: a store that is back is found this soon.
const LONGEST_WAIT: Duration = Duration::from_secs(5);

/// Starts the node on `listener`, waiting while sync's store or bus does not answer;
/// `readiness` fails [`STARTUP`] until then.
pub async fn start_patiently(
    settings: NodeSettings,
    targets: Targets,
    listener: TcpListener,
    shutdown: Shutdown,
    readiness: Readiness,
) -> Result<Node> {
    readiness.set(STARTUP, false, true);
    // Kept across attempts: the port is bound once, and callers queue until served.
    let listener = listener.into_std()?;
    let mut wait = FIRST_WAIT;
    loop {
        let attempt = TcpListener::from_std(listener.try_clone()?)?;
        let started = super::start_with(
            settings.clone(),
            targets.clone(),
            attempt,
            shutdown.clone(),
            readiness.clone(),
        )
        .await;
        match started {
            Ok(node) => {
                readiness.clear(STARTUP);
                return Ok(node);
            }
            Err(error) if waits_for_a_store(&error) && !shutdown.is_stopping() => {
                tracing::warn!(error = %format!("{error:#}"), retry_in_ms = wait.as_millis() as u64,
                    "not ready: sync's store or bus does not answer yet; retrying");
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = shutdown.stopping() => return Err(error),
                }
                wait = next_wait(wait);
            }
            Err(error) => return Err(error),
        }
    }
}

/// Whether the start stopped on a store or bus not answering, or on a schema this
/// release has not migrated yet (check mode, before `neuralis migrate up`): worth
/// waiting for, unlike anything a retry cannot mend.
fn waits_for_a_store(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<SyncError>(),
            Some(SyncError::Unavailable(_))
        ) || matches!(
            cause.downcast_ref::<StartError>(),
            Some(StartError::Store(
                StoreError::Unavailable(_) | StoreError::Schema(_)
            ))
        )
    })
}

/// Doubles the wait, up to [`LONGEST_WAIT`].
fn next_wait(wait: Duration) -> Duration {
    (wait * 2).min(LONGEST_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn an_unreachable_index_store_or_bus_is_waited_for() {
        let error = Err::<(), _>(SyncError::Unavailable("connection refused".into()))
            .context("opening the index")
            .unwrap_err();
        assert!(waits_for_a_store(&error));
    }

    #[test]
    fn an_unreachable_or_unmigrated_access_store_is_waited_for() {
        for store in [
            StoreError::Unavailable("database unreachable".into()),
            StoreError::Schema("the store lacks migrations [7]".into()),
        ] {
            let error = Err::<(), _>(StartError::Store(store))
                .context("starting policy")
                .unwrap_err();
            assert!(waits_for_a_store(&error));
        }
        let misconfigured = Err::<(), _>(StartError::Store(StoreError::Config {
            field: "url",
            message: "is not a PostgreSQL URL".into(),
        }))
        .context("starting policy")
        .unwrap_err();
        assert!(!waits_for_a_store(&misconfigured));
    }

    #[test]
    fn a_start_that_a_retry_cannot_mend_is_not_waited_for() {
        let refused = Err::<(), _>(SyncError::invalid("index.postgres.schema", "bad"))
            .context("opening the index")
            .unwrap_err();
        assert!(!waits_for_a_store(&refused));
        assert!(!waits_for_a_store(&anyhow::anyhow!(
            "listen: address in use"
        )));
    }

    #[test]
    fn the_wait_doubles_up_to_the_longest() {
        assert_eq!(next_wait(FIRST_WAIT), Duration::from_millis(500));
        assert_eq!(next_wait(Duration::from_secs(4)), LONGEST_WAIT);
        assert_eq!(next_wait(LONGEST_WAIT), LONGEST_WAIT);
    }
}
