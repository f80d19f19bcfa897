//! Discovery's invalidation subscription at start. A bus that cannot be reached when
//! discovery starts is not fatal: the inventory caches nothing until it is subscribed
//! (every answer is read from sync, never stale), the state is reported (a warning,
//! `neuralis_invalidation_subscription_up 0`, `invalidation_subscription: degraded` on
//! `/readyz`), and subscribing is retried with a capped backoff until it succeeds.
//! A bus that is misconfigured (a bad URL, an empty channel) still stops the start.

use std::sync::{Arc, Weak};
use std::time::Duration;

use anyhow::{Context, Result};
use neuralis_bus::{InvalidationBus, Subscription};
use neuralis_discovery::inventory::InventoryShell;
use neuralis_sync::SyncError;
use neuralis_sync::config::BusConfig;

/// The first and the longest wait between two attempts to subscribe.
const RETRY_FIRST: Duration = Duration::from_millis(100);
const RETRY_MAX: Duration = Duration::from_secs(5);
/// How long the start waits for the first attempt (the Redis client retries a
/// refused connection for several seconds on its own).
const FIRST_ATTEMPT: Duration = Duration::from_secs(2);

/// Where discovery's events come from: the bus of a sync in this process, or the
/// configured one, opened here.
pub(crate) enum BusSource {
    Shared(Arc<dyn InvalidationBus>),
    Configured(BusConfig),
}

/// Why one attempt did not subscribe.
enum Attempt {
    /// The bus did not answer: retried.
    Unreachable(String),
    /// The configuration is wrong: retrying cannot help.
    Invalid(anyhow::Error),
}

async fn subscribe(source: &BusSource) -> Result<Subscription, Attempt> {
    let bus = match source {
        BusSource::Shared(bus) => bus.clone(),
        BusSource::Configured(config) => match neuralis_sync::service::open_bus(config).await {
            Ok(bus) => bus,
            Err(SyncError::Unavailable(reason)) => return Err(Attempt::Unreachable(reason)),
            Err(other) => {
                return Err(Attempt::Invalid(
                    anyhow::Error::new(other).context("connecting the bus"),
                ));
            }
        },
    };
    bus.subscribe()
        .await
        .map_err(|error| Attempt::Unreachable(error.to_string()))
}

/// Subscribes `inventory` now if the bus answers, otherwise serves in bypass and keeps
/// trying in the background; fails only on a misconfigured bus.
pub(crate) async fn follow(inventory: &Arc<InventoryShell>, source: BusSource) -> Result<()> {
    let first = tokio::time::timeout(FIRST_ATTEMPT, subscribe(&source))
        .await
        .unwrap_or_else(|_| Err(Attempt::Unreachable("no answer in time".into())));
    match first {
        Ok(subscription) => {
            inventory.attach(subscription);
            Ok(())
        }
        Err(Attempt::Invalid(error)) => Err(error),
        Err(Attempt::Unreachable(reason)) => {
            // The reason is the bus client's error, never the URL (it may carry a password).
            tracing::warn!(
                reason = %reason,
                "invalidation bus unreachable at start; serving in bypass (inventory not cached) until subscribed"
            );
            neuralis_metrics::invalidation(neuralis_metrics::Invalidation::Lost);
            tokio::spawn(retry(Arc::downgrade(inventory), source));
            Ok(())
        }
    }
    .context("subscribing to invalidation events")
}

/// Retries until subscribed, or until discovery is gone.
async fn retry(inventory: Weak<InventoryShell>, source: BusSource) {
    let mut wait = RETRY_FIRST;
    loop {
        tokio::time::sleep(wait).await;
        let Some(shell) = inventory.upgrade() else {
            return;
        };
        match subscribe(&source).await {
            Ok(subscription) => {
                shell.attach(subscription);
                neuralis_metrics::invalidation(neuralis_metrics::Invalidation::Live);
                tracing::info!("invalidation subscription live; the inventory caches again");
                return;
            }
            Err(Attempt::Unreachable(reason)) => {
                tracing::debug!(reason = %reason, "invalidation bus still unreachable");
            }
            Err(Attempt::Invalid(error)) => {
                // Cannot happen after a first attempt that only found the bus down; if it
                // does, stay in bypass (always correct) and say so.
                tracing::error!(error = %format!("{error:#}"), "invalidation bus misconfigured; staying in bypass");
                return;
            }
        }
        wait = (wait * 2).min(RETRY_MAX);
    }
}
