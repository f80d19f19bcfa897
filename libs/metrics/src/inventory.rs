//! Discovery's inventory and the invalidation subscription it follows.

use std::sync::atomic::{AtomicU8, Ordering};

use super::METRICS;
/// How a discovery lookup was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// From the inventory.
    Hit,
    /// Not cached: loaded from sync and stored.
    Miss,
    /// The inventory is bypassed (no live subscription, or a write is open).
    Bypass,
    /// A cached snapshot confirmed current by sync's revision.
    Revalidated,
    /// Sync could not be reached: a held snapshot served, known current because no
    /// event said otherwise (issue 26, listings that outlive sync).
    Held,
}

/// One inventory lookup.
pub fn inventory_lookup(lookup: Lookup) {
    let result = match lookup {
        Lookup::Hit => "hit",
        Lookup::Miss => "miss",
        Lookup::Bypass => "bypass",
        Lookup::Revalidated => "revalidated",
        Lookup::Held => "held",
    };
    METRICS
        .inventory_lookups
        .get_or_create(&[("result", result)])
        .inc();
}

/// One snapshot loaded from sync (every row of a project: a full refill).
pub fn inventory_full_refill() {
    METRICS
        .inventory_refills
        .get_or_create(&[("kind", "full")])
        .inc();
}

/// One delta applied to a held snapshot (only the rows changed since its revision).
pub fn inventory_delta_apply() {
    METRICS
        .inventory_refills
        .get_or_create(&[("kind", "delta")])
        .inc();
}

/// Sources regrouped by the layout core while applying deltas (a delta whose paths
/// cannot move a package regroups none).
pub fn inventory_regroups(sources: u64) {
    if sources > 0 {
        METRICS.inventory_regroups.inc_by(sources);
    }
}

/// What the inventory's rows weigh now (its own estimate, which the bound counts).
pub fn inventory_bytes(bytes: usize) {
    METRICS
        .inventory_bytes
        .set(i64::try_from(bytes).unwrap_or(i64::MAX));
}

/// Projects evicted from the inventory to stay within its bounds.
pub fn inventory_evictions(count: u64) {
    if count > 0 {
        METRICS.inventory_evictions.inc_by(count);
    }
}

/// An invalidation notice discovery applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invalidation {
    Start,
    Finish,
    Failed,
    /// The subscription was lost: the inventory is dropped and bypassed.
    Lost,
    /// The subscription is live again.
    Live,
}

const NO_SUBSCRIPTION: u8 = 0;
const LIVE: u8 = 1;
const LOST: u8 = 2;
static SUBSCRIPTION: AtomicU8 = AtomicU8::new(NO_SUBSCRIPTION);

/// Records one notice; `Lost` and `Live` also move the subscription state.
pub fn invalidation(notice: Invalidation) {
    let phase = match notice {
        Invalidation::Start => "start",
        Invalidation::Finish => "finish",
        Invalidation::Failed => "failed",
        Invalidation::Lost => {
            SUBSCRIPTION.store(LOST, Ordering::Relaxed);
            "lost"
        }
        Invalidation::Live => {
            SUBSCRIPTION.store(LIVE, Ordering::Relaxed);
            "live"
        }
    };
    let state = match SUBSCRIPTION.load(Ordering::Relaxed) {
        LOST => "lost",
        _ => "live",
    };
    METRICS
        .invalidation_events
        .get_or_create(&[("phase", phase), ("subscription", state)])
        .inc();
}

/// Discovery followed a live subscription (at start).
pub fn subscription_attached() {
    SUBSCRIPTION.store(LIVE, Ordering::Relaxed);
}

/// The invalidation subscription's state: `None` in a process without discovery,
/// `Some(true)` while live, `Some(false)` while lost (served in bypass).
pub fn subscription_live() -> Option<bool> {
    match SUBSCRIPTION.load(Ordering::Relaxed) {
        NO_SUBSCRIPTION => None,
        state => Some(state == LIVE),
    }
}

/// `neuralis_invalidation_subscription_up`, only in a process that subscribes.
#[derive(Debug)]
pub(crate) struct SubscriptionGauge;

impl prometheus_client::collector::Collector for SubscriptionGauge {
    fn encode(
        &self,
        mut encoder: prometheus_client::encoding::DescriptorEncoder,
    ) -> Result<(), std::fmt::Error> {
        use prometheus_client::encoding::EncodeMetric;
        let Some(live) = subscription_live() else {
            return Ok(());
        };
        let gauge = prometheus_client::metrics::gauge::ConstGauge::new(i64::from(live));
        let metric = encoder.encode_descriptor(
            "neuralis_invalidation_subscription_up",
            "1 while discovery's invalidation subscription is live; 0 while lost (the inventory is bypassed)",
            None,
            gauge.metric_type(),
        )?;
        gauge.encode(metric)
    }
}
