//! The distributed bus: Redis pub/sub on one channel per deployment.
//!
//! Pub/sub delivers at most once and forgets everything while a subscriber is away,
//! so a subscription watches its connection (a periodic ping) and reports
//! [`BusNotice::Lost`] the moment it drops, then reconnects with a capped backoff and
//! reports [`BusNotice::Live`].

use crate::{BusError, BusNotice, InvalidationBus, InvalidationEvent, Subscription};
use futures::StreamExt;
use redis::AsyncCommands;
use redis::aio::{ConnectionManager, PubSubSink, PubSubStream};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

/// How often an idle subscription checks that its connection is still there.
const PING_EVERY: Duration = Duration::from_secs(5);
/// The first and the longest wait between two reconnection attempts.
const BACKOFF_FIRST: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(5);

/// Publishes and subscribes on one Redis channel.
#[derive(Clone)]
pub struct RedisBus {
    client: redis::Client,
    channel: String,
    publisher: ConnectionManager,
}

impl std::fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a password: never print it.
        f.debug_struct("RedisBus")
            .field("channel", &self.channel)
            .finish()
    }
}

impl RedisBus {
    /// Connects the publisher to `url`; events go to `channel`.
    pub async fn connect(url: &str, channel: &str) -> Result<Self, BusError> {
        if channel.is_empty() {
            return Err(BusError::InvalidConfig {
                field: "bus.redis.channel",
                message: "the channel name is empty".into(),
            });
        }
        let client = redis::Client::open(url).map_err(|err| BusError::InvalidConfig {
            field: "bus.redis.url",
            message: err.to_string(),
        })?;
        let publisher = ConnectionManager::new(client.clone())
            .await
            .map_err(unavailable)?;
        Ok(Self {
            client,
            channel: channel.to_owned(),
            publisher,
        })
    }

    /// The channel this bus publishes to.
    pub fn channel(&self) -> &str {
        &self.channel
    }
}

#[async_trait::async_trait]
impl InvalidationBus for RedisBus {
    async fn publish(&self, event: &InvalidationEvent) -> Result<(), BusError> {
        let mut publisher = self.publisher.clone();
        let _receivers: i64 = publisher
            .publish(&self.channel, event.to_json())
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn subscribe(&self) -> Result<Subscription, BusError> {
        let connection = open_subscription(&self.client, &self.channel).await?;
        let (notices, receiver) = mpsc::channel(256);
        tokio::spawn(keep_subscribed(
            self.client.clone(),
            self.channel.clone(),
            connection,
            notices,
        ));
        Ok(ReceiverStream::new(receiver).boxed())
    }
}

fn unavailable(err: redis::RedisError) -> BusError {
    BusError::Unavailable(err.to_string())
}

async fn open_subscription(
    client: &redis::Client,
    channel: &str,
) -> Result<(PubSubSink, PubSubStream), BusError> {
    let mut pubsub = client.get_async_pubsub().await.map_err(unavailable)?;
    pubsub.subscribe(channel).await.map_err(unavailable)?;
    Ok(pubsub.split())
}

/// Forwards messages until the subscriber goes away; on a lost connection reports
/// it, reconnects and reports the subscription live again.
async fn keep_subscribed(
    client: redis::Client,
    channel: String,
    mut connection: (PubSubSink, PubSubStream),
    notices: mpsc::Sender<BusNotice>,
) {
    loop {
        forward_until_lost(&mut connection, &notices).await;
        if notices.send(BusNotice::Lost).await.is_err() {
            return;
        }
        tracing::warn!(channel = %channel, "invalidation subscription lost");
        match reconnect(&client, &channel, &notices).await {
            Some(fresh) => connection = fresh,
            None => return,
        }
        if notices.send(BusNotice::Live).await.is_err() {
            return;
        }
        tracing::info!(channel = %channel, "invalidation subscription live again");
    }
}

/// Returns when the connection is lost or the subscriber has gone away.
async fn forward_until_lost(
    (sink, stream): &mut (PubSubSink, PubSubStream),
    notices: &mpsc::Sender<BusNotice>,
) {
    let mut ping = tokio::time::interval(PING_EVERY);
    loop {
        tokio::select! {
            () = notices.closed() => return,
            message = stream.next() => {
                let Some(message) = message else { return };
                for notice in notices_for(message.get_payload_bytes()) {
                    if notices.send(notice).await.is_err() {
                        return;
                    }
                }
            }
            _ = ping.tick() => {
                if sink.ping::<redis::Value>().await.is_err() {
                    return;
                }
            }
        }
    }
}

/// A message that is not a well-formed event means something changed that cannot be
/// attributed: report it as a gap so the subscriber drops its cache (fail closed).
fn notices_for(payload: &[u8]) -> Vec<BusNotice> {
    let event = std::str::from_utf8(payload)
        .ok()
        .and_then(InvalidationEvent::from_json);
    match event {
        Some(event) => vec![BusNotice::Event(event)],
        None => {
            tracing::warn!(bytes = payload.len(), "unreadable invalidation message");
            vec![BusNotice::Lost, BusNotice::Live]
        }
    }
}

/// Retries with a capped backoff; `None` when the subscriber went away meanwhile.
async fn reconnect(
    client: &redis::Client,
    channel: &str,
    notices: &mpsc::Sender<BusNotice>,
) -> Option<(PubSubSink, PubSubStream)> {
    let mut wait = BACKOFF_FIRST;
    loop {
        if notices.is_closed() {
            return None;
        }
        match open_subscription(client, channel).await {
            Ok(connection) => return Some(connection),
            Err(err) => tracing::debug!(error = %err, "invalidation resubscribe failed"),
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(BACKOFF_MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Phase;

    #[test]
    fn an_unreadable_message_reads_as_a_gap() {
        assert_eq!(
            notices_for(b"garbage"),
            vec![BusNotice::Lost, BusNotice::Live]
        );
        assert_eq!(
            notices_for(&[0xff, 0xfe]),
            vec![BusNotice::Lost, BusNotice::Live]
        );
    }

    #[test]
    fn a_wellformed_message_reads_as_its_event() {
        let event = InvalidationEvent {
            project: "p".into(),
            source: "s".into(),
            write_id: "w".into(),
            revision: 3,
            phase: Phase::Start,
            at: 9,
        };
        assert_eq!(
            notices_for(event.to_json().as_bytes()),
            vec![BusNotice::Event(event)]
        );
    }
}
