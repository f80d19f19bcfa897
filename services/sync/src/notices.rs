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

/// Says that a source changed; a notice that cannot be sent is logged (the other
/// replicas' periodic re-read covers it).
pub(crate) fn announce(bus: &Arc<dyn InvalidationBus>, project: &str, slug: &str) {
    let (bus, notice) = (
        Arc::clone(bus),
        InvalidationEvent {
            project: project.to_owned(),
            source: slug.to_owned(),
            write_id: SOURCE_CHANGED.to_owned(),
            revision: 0,
            phase: Phase::Finish,
            at: now_millis(),
        },
    );
    tokio::spawn(async move {
        if let Err(err) = bus.publish(&notice).await {
            tracing::warn!(error = %err, "source change not announced to the other sync replicas");
        }
    });
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
