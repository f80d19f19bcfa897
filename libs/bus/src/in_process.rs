//! The in-process bus: a broadcast channel for the all-in-one process.

use crate::{BusError, BusNotice, InvalidationBus, InvalidationEvent, Subscription};
use futures::StreamExt;
use tokio::sync::broadcast;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;

/// How many events a slow subscriber may fall behind before it is told it lost some.
const DEFAULT_CAPACITY: usize = 1024;

/// Broadcasts events to the subscribers of this process.
#[derive(Debug, Clone)]
pub struct InProcessBus {
    sender: broadcast::Sender<InvalidationEvent>,
}

impl Default for InProcessBus {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_CAPACITY)
    }
}

impl InProcessBus {
    /// A bus on which a subscriber may lag `capacity` events before it is told it lost some.
    pub fn with_capacity(capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(capacity.max(1));
        Self { sender }
    }
}

#[async_trait::async_trait]
impl InvalidationBus for InProcessBus {
    async fn publish(&self, event: &InvalidationEvent) -> Result<(), BusError> {
        // No subscriber is not an error: nobody holds anything to invalidate.
        let _ = self.sender.send(event.clone());
        Ok(())
    }

    async fn subscribe(&self) -> Result<Subscription, BusError> {
        let events = BroadcastStream::new(self.sender.subscribe());
        Ok(events.flat_map(notices_for).boxed())
    }
}

/// A lagging receiver missed events: report the gap as a lost subscription that is
/// live again at once, so the subscriber drops what it cached (fail closed).
fn notices_for(
    received: Result<InvalidationEvent, BroadcastStreamRecvError>,
) -> futures::stream::Iter<std::vec::IntoIter<BusNotice>> {
    let notices = match received {
        Ok(event) => vec![BusNotice::Event(event)],
        Err(BroadcastStreamRecvError::Lagged(missed)) => {
            tracing::warn!(missed, "invalidation subscriber lagged");
            vec![BusNotice::Lost, BusNotice::Live]
        }
    };
    futures::stream::iter(notices)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Phase;

    fn event(revision: u64, phase: Phase) -> InvalidationEvent {
        InvalidationEvent {
            project: "p".into(),
            source: "s".into(),
            write_id: format!("w{revision}"),
            revision,
            phase,
            at: 0,
        }
    }

    #[tokio::test]
    async fn subscribers_see_events_in_publish_order() {
        let bus = InProcessBus::default();
        let mut first = bus.subscribe().await.expect("subscribe");
        let mut second = bus.subscribe().await.expect("subscribe");
        let sent = [event(1, Phase::Start), event(2, Phase::Finish)];
        for e in &sent {
            bus.publish(e).await.expect("publish");
        }
        for subscription in [&mut first, &mut second] {
            for e in &sent {
                assert_eq!(subscription.next().await, Some(BusNotice::Event(e.clone())));
            }
        }
    }

    #[tokio::test]
    async fn publishing_without_subscribers_is_not_an_error() {
        let bus = InProcessBus::default();
        assert!(bus.publish(&event(1, Phase::Start)).await.is_ok());
    }

    #[tokio::test]
    async fn a_lagging_subscriber_is_told_it_lost_events() {
        let bus = InProcessBus::with_capacity(2);
        let mut subscription = bus.subscribe().await.expect("subscribe");
        for revision in 0..5 {
            bus.publish(&event(revision, Phase::Finish))
                .await
                .expect("publish");
        }
        assert_eq!(subscription.next().await, Some(BusNotice::Lost));
        assert_eq!(subscription.next().await, Some(BusNotice::Live));
        assert_eq!(
            subscription.next().await,
            Some(BusNotice::Event(event(3, Phase::Finish)))
        );
    }
}
