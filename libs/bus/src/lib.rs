//! Invalidation events and the buses that carry them.
//!
//! Around every write batch that could move a package candidate, sync publishes
//! `start`, then `finish` (or `failed`) for the project (DESIGN.md section 3). The
//! discovery inventory subscribes and drops what a write may have changed. Two buses
//! implement one trait: an in-process broadcast for the all-in-one process and Redis
//! pub/sub for the distributed deployment.
//!
//! A subscription is a stream of [`BusNotice`]s: events, and the moments the
//! subscription is lost and live again. Redis pub/sub delivers at most once, so a
//! subscriber must drop its cache on [`BusNotice::Lost`] and bypass it until
//! [`BusNotice::Live`].
#![forbid(unsafe_code)]

mod error;
mod event;
mod in_process;
mod redis_bus;

pub use error::BusError;
pub use event::{InvalidationEvent, Phase, now_millis};
pub use in_process::InProcessBus;
pub use redis_bus::RedisBus;

use futures::stream::BoxStream;

/// What a subscription yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusNotice {
    /// An invalidation event, in the order the bus delivered it.
    Event(InvalidationEvent),
    /// The subscription is lost: events may be missed from now on until [`BusNotice::Live`].
    Lost,
    /// The subscription is live again after a [`BusNotice::Lost`].
    Live,
}

/// A live subscription. It ends only when the bus itself is dropped.
pub type Subscription = BoxStream<'static, BusNotice>;

/// One way to carry invalidation events between sync and discovery.
#[async_trait::async_trait]
pub trait InvalidationBus: Send + Sync + 'static {
    /// Publishes one event to every current subscriber.
    async fn publish(&self, event: &InvalidationEvent) -> Result<(), BusError>;

    /// Subscribes; returns once the subscription is live, so an event published after
    /// this call returns is seen (unless the subscription is later reported lost).
    async fn subscribe(&self) -> Result<Subscription, BusError>;
}
