//! The Prometheus families of every Neuralis process, in one registry per process.
//!
//! Every label value comes from a fixed vocabulary: an enum here, or a `&'static str`
//! the caller took from a closed list (the RPC methods of the compiled contract). No
//! function takes a caller's text, so no path, token, subject, project or slug can
//! become a label value.
#![forbid(unsafe_code)]

mod access;
mod inventory;
mod process;
mod sync_run;

pub use access::*;
pub use inventory::*;
pub use sync_run::*;

use std::sync::LazyLock;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// The content type of [`render`]'s text.
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

type Labels<const N: usize> = [(&'static str, &'static str); N];

/// Every family of the process.
struct Metrics {
    registry: Registry,
    rpc_server: Family<Labels<3>, Histogram, fn() -> Histogram>,
    rpc_client: Family<Labels<3>, Histogram, fn() -> Histogram>,
    inventory_lookups: Family<Labels<1>, Counter>,
    inventory_refills: Family<Labels<1>, Counter>,
    inventory_regroups: Counter,
    inventory_evictions: Counter,
    inventory_bytes: Gauge,
    invalidation_events: Family<Labels<2>, Counter>,
    sync_files: Family<Labels<1>, Counter>,
    sync_bytes: Counter,
    sync_runs: Family<Labels<2>, Counter>,
    policy_decisions: Family<Labels<2>, Counter>,
    auth_refusals: Family<Labels<3>, Counter>,
    decided_reads_refused: Family<Labels<1>, Counter>,
}

/// Latency buckets from 100 µs to about 26 s.
fn latency() -> Histogram {
    Histogram::new(exponential_buckets(0.0001, 2.5, 14))
}

static METRICS: LazyLock<Metrics> = LazyLock::new(|| {
    let mut registry = Registry::default();
    let rpc_server =
        Family::<Labels<3>, Histogram, fn() -> Histogram>::new_with_constructor(latency);
    let rpc_client =
        Family::<Labels<3>, Histogram, fn() -> Histogram>::new_with_constructor(latency);
    let metrics = Metrics {
        rpc_server,
        rpc_client,
        inventory_lookups: Family::default(),
        inventory_refills: Family::default(),
        inventory_regroups: Counter::default(),
        inventory_evictions: Counter::default(),
        inventory_bytes: Gauge::default(),
        invalidation_events: Family::default(),
        sync_files: Family::default(),
        sync_bytes: Counter::default(),
        sync_runs: Family::default(),
        policy_decisions: Family::default(),
        auth_refusals: Family::default(),
        decided_reads_refused: Family::default(),
        registry: Registry::default(),
    };
    registry.register(
        "neuralis_rpc_server_duration_seconds",
        "Served gRPC calls by service, method and status code, from request to the end of the response",
        metrics.rpc_server.clone(),
    );
    registry.register(
        "neuralis_rpc_client_duration_seconds",
        "gRPC calls to other Neuralis services by service, method and status code",
        metrics.rpc_client.clone(),
    );
    registry.register(
        "neuralis_inventory_lookups",
        "Discovery inventory lookups by result (hit, miss, bypass, revalidated)",
        metrics.inventory_lookups.clone(),
    );
    registry.register(
        "neuralis_inventory_refills",
        "Project snapshots loaded from sync by kind (full: every row of the project; delta: the rows changed since the revision held)",
        metrics.inventory_refills.clone(),
    );
    registry.register(
        "neuralis_inventory_regroups",
        "Sources regrouped by the layout core while applying deltas",
        metrics.inventory_regroups.clone(),
    );
    registry.register(
        "neuralis_inventory_evictions",
        "Projects evicted from the discovery inventory to stay within its bounds (least recently used first)",
        metrics.inventory_evictions.clone(),
    );
    registry.register(
        "neuralis_inventory_bytes",
        "What the rows the discovery inventory holds weigh, as its memory bound counts them",
        metrics.inventory_bytes.clone(),
    );
    registry.register(
        "neuralis_invalidation_events",
        "Invalidation notices applied by discovery, by phase and subscription state",
        metrics.invalidation_events.clone(),
    );
    registry.register(
        "neuralis_sync_files",
        "Files handled by finished sync runs, by result",
        metrics.sync_files.clone(),
    );
    registry.register(
        "neuralis_sync_read_bytes",
        "Bytes read from sources by finished sync runs",
        metrics.sync_bytes.clone(),
    );
    registry.register(
        "neuralis_sync_runs",
        "Sync runs of this replica by outcome and trigger (api: SyncSource; interval, auto: the source's trigger; changed: a read found a file changed since its row)",
        metrics.sync_runs.clone(),
    );
    registry.register(
        "neuralis_policy_decisions",
        "Policy decisions by candidate kind and outcome",
        metrics.policy_decisions.clone(),
    );
    registry.register(
        "neuralis_auth_refusals",
        "Calls refused by the authorization gate or a permit's binding step, and calls served unverified (the empty answer), by service, outcome and reason",
        metrics.auth_refusals.clone(),
    );
    registry.register(
        "neuralis_sync_decided_reads_refused",
        "Caller-facing file reads refused by sync, by reason (changed: rewritten or swapped since its row, and re-synced; unreadable: missing, a link or not a file; undecided: no fingerprint)",
        metrics.decided_reads_refused.clone(),
    );
    registry.register_collector(Box::new(inventory::SubscriptionGauge));
    registry.register_collector(Box::new(process::ProcessCollector::new()));
    Metrics {
        registry,
        ..metrics
    }
});

/// The whole registry in the Prometheus text format (version 0.0.4).
pub fn render() -> String {
    let mut text = String::new();
    // Writing into a String cannot fail.
    let _ = prometheus_client::encoding::prometheus_text::encode(&mut text, &METRICS.registry);
    text
}

/// One served call. `service` and `method` come from the compiled contract's list (or
/// are `"unknown"`), `code` from [`code_name`].
pub fn rpc_served(service: &'static str, method: &'static str, code: &'static str, seconds: f64) {
    METRICS
        .rpc_server
        .get_or_create(&[("service", service), ("method", method), ("code", code)])
        .observe(seconds);
}

/// One call to another Neuralis service (same vocabulary as [`rpc_served`]).
pub fn rpc_called(service: &'static str, method: &'static str, code: &'static str, seconds: f64) {
    METRICS
        .rpc_client
        .get_or_create(&[("service", service), ("method", method), ("code", code)])
        .observe(seconds);
}

/// The canonical name of a gRPC status code number (`UNKNOWN` for a number outside
/// the 17 codes).
pub fn code_name(code: i32) -> &'static str {
    const NAMES: [&str; 17] = [
        "OK",
        "CANCELLED",
        "UNKNOWN",
        "INVALID_ARGUMENT",
        "DEADLINE_EXCEEDED",
        "NOT_FOUND",
        "ALREADY_EXISTS",
        "PERMISSION_DENIED",
        "RESOURCE_EXHAUSTED",
        "FAILED_PRECONDITION",
        "ABORTED",
        "OUT_OF_RANGE",
        "UNIMPLEMENTED",
        "INTERNAL",
        "UNAVAILABLE",
        "DATA_LOSS",
        "UNAUTHENTICATED",
    ];
    usize::try_from(code)
        .ok()
        .and_then(|i| NAMES.get(i))
        .copied()
        .unwrap_or("UNKNOWN")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_renders_after_one_update_and_the_process_ones_always() {
        rpc_served("neuralis.test.v1.T", "Call", code_name(0), 0.01);
        rpc_called("neuralis.test.v1.T", "Call", code_name(14), 0.02);
        inventory_lookup(Lookup::Hit);
        inventory_full_refill();
        inventory_delta_apply();
        inventory_regroups(1);
        inventory_evictions(1);
        inventory_bytes(10);
        subscription_attached();
        invalidation(Invalidation::Finish);
        sync_run(
            RunOutcome::Succeeded,
            RunTrigger::Interval,
            RunFiles {
                indexed: 3,
                bytes_read: 10,
                ..RunFiles::default()
            },
        );
        policy_decisions(Candidate::File, Decision::Hidden, 2);
        auth_refusal(
            "neuralis.test.v1.T",
            AuthOutcome::Unverified,
            AuthReason::InvalidCredential,
        );
        let text = render();
        for family in [
            "neuralis_auth_refusals_total{service=\"neuralis.test.v1.T\",outcome=\"unverified\",reason=\"invalid_credential\"} 1",
            "neuralis_rpc_server_duration_seconds_bucket{",
            "neuralis_rpc_client_duration_seconds_count{service=\"neuralis.test.v1.T\",method=\"Call\",code=\"UNAVAILABLE\"} 1",
            "neuralis_inventory_lookups_total{result=\"hit\"}",
            "neuralis_inventory_refills_total{kind=\"full\"}",
            "neuralis_inventory_refills_total{kind=\"delta\"}",
            "neuralis_inventory_regroups_total",
            "neuralis_inventory_evictions_total",
            "neuralis_inventory_bytes 10",
            "neuralis_invalidation_events_total{phase=\"finish\",subscription=\"live\"}",
            "neuralis_invalidation_subscription_up 1",
            "neuralis_sync_files_total{result=\"indexed\"}",
            "neuralis_sync_read_bytes_total",
            "neuralis_sync_runs_total{outcome=\"succeeded\",trigger=\"interval\"}",
            "neuralis_policy_decisions_total{kind=\"file\",outcome=\"hidden\"}",
            "process_resident_memory_bytes",
            "process_cpu_seconds_total",
            "process_open_fds",
        ] {
            assert!(text.contains(family), "{family} missing from\n{text}");
        }
    }

    #[test]
    fn code_names_are_the_canonical_ones_and_never_the_number() {
        assert_eq!(code_name(0), "OK");
        assert_eq!(code_name(16), "UNAUTHENTICATED");
        assert_eq!(code_name(17), "UNKNOWN");
        assert_eq!(code_name(-1), "UNKNOWN");
    }
}
