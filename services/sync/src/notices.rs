//! Source-change notices between sync replicas (issue 26 item 1): a replica that
//! created, updated or deleted a source says so on a channel of its own beside the
//! invalidation channel (`<channel>:sources`, which discovery never reads), and every
//! replica re-reads the stored sources when told. The store stays the truth: a lost
//! notice costs at most one refresh period (`sync.sources_refresh_ms`).

use neuralis_bus::{BusNotice, InvalidationBus, InvalidationEvent, Phase, now_millis};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// The `write_id` of a source-change notice (it names no write batch).
const SOURCE_CHANGED: &str = "source-changed";

/// The channel of source-change notices beside invalidation channel `channel`.
pub fn channel_beside(channel: &str) -> String {
    format!("{channel}:sources")
}

/// How long a call that changed a source waits to announce it.
const ANNOUNCE_WITHIN: Duration = Duration::from_secs(1);

/// Says that a source changed, before the call that changed it answers (a replica
/// stopped right after still told the others); a notice that cannot be sent within
/// [`ANNOUNCE_WITHIN`] is logged (the other replicas' periodic re-read covers it).
pub(crate) async fn announce(bus: &dyn InvalidationBus, project: &str, slug: &str) {
    let notice = InvalidationEvent {
        project: project.to_owned(),
        source: slug.to_owned(),
        write_id: SOURCE_CHANGED.to_owned(),
        revision: 0,
        phase: Phase::Finish,
        at: now_millis(),
    };
    match tokio::time::timeout(ANNOUNCE_WITHIN, bus.publish(&notice)).await {
        Ok(Ok(())) => {}
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "source change not announced to the other sync replicas");
        }
        Err(_) => tracing::warn!("source change not announced to the other sync replicas in time"),
    }
}

/// Wakes `changed` on every notice, and when the subscription is live again after a
/// loss (notices may have been missed); subscribes again `retry` after a failure.
pub(crate) async fn follow(bus: Arc<dyn InvalidationBus>, changed: Arc<Notify>, retry: Duration) {
    loop {
        match bus.subscribe().await {
            Ok(mut notices) => {
                use futures::StreamExt;
                while let Some(notice) = notices.next().await {
                    if matches!(notice, BusNotice::Event(_) | BusNotice::Live) {
                        changed.notify_one();
                    }
                }
            }
            Err(err) => {
                tracing::warn!(error = %err, "source-change notices not followed; retrying");
            }
        }
        tokio::time::sleep(retry).await;
    }
}
