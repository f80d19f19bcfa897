//! Live heap bytes of this process, for the inventory's bytes per indexed row: a
//! counting wrapper around the system allocator (`stats_alloc`; the workspace forbids
//! `unsafe`, which a hand-written `GlobalAlloc` needs). Counting is two atomic additions
//! per allocation. The bytes are those asked for: the allocator's own bookkeeping
//! (about 8 to 16 bytes per block with glibc) is not counted.
//!
//! Built with `--features binary-allocator` it runs on the `neuralis` binary's allocator
//! (mimalloc) instead, so latencies are measured as the binary has them; heap bytes are
//! then not counted (0).

#[cfg(not(feature = "binary-allocator"))]
#[global_allocator]
static GLOBAL: &stats_alloc::StatsAlloc<std::alloc::System> = &stats_alloc::INSTRUMENTED_SYSTEM;

#[cfg(feature = "binary-allocator")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Which allocator this build runs on, printed first: the latencies and the cold fill
/// differ by more than the goals' margins between the two builds (BENCHMARKS.md,
/// issue 31 round 21: the cold fill of the 100k project 159-178 ms counted on the
/// system allocator, 93-96 ms on mimalloc, same code), so a figure means little
/// without it.
#[cfg(not(feature = "binary-allocator"))]
pub const ALLOCATOR: &str = "the system allocator, counted (heap bytes measured; latencies \
     slower than the `neuralis` binary's: build with `--features binary-allocator` for those)";
#[cfg(feature = "binary-allocator")]
pub const ALLOCATOR: &str = "mimalloc, as the `neuralis` binary runs (latencies as the binary \
     has them; heap bytes not counted)";

/// Bytes allocated and not yet freed, by every thread of the process (a reallocation
/// counts its growth as allocated and its shrinking as freed); 0 on the binary's
/// allocator, which does not count.
pub fn live_bytes() -> i64 {
    #[cfg(not(feature = "binary-allocator"))]
    {
        let stats = GLOBAL.stats();
        stats.bytes_allocated as i64 - stats.bytes_deallocated as i64
    }
    #[cfg(feature = "binary-allocator")]
    {
        0
    }
}

/// The inventory's own weighing of what it holds (the `neuralis_inventory_bytes` gauge
/// of this process; the node runs in it), to set beside the heap's count.
pub fn inventory_weighing() -> f64 {
    neuralis_metrics::render()
        .lines()
        .find_map(|l| {
            l.strip_prefix("neuralis_inventory_bytes ")?
                .trim()
                .parse::<f64>()
                .ok()
        })
        .unwrap_or(0.0)
}

/// One line: live heap and the inventory's weighing with the small project held, then
/// the large one, and both per extra row.
pub fn report(small: (i64, f64), large: (i64, f64), extra_rows: usize) -> String {
    let mib = |bytes: f64| bytes / 1048576.0;
    let rows = extra_rows as f64;
    format!(
        "heap bytes per row: {:.0} (live heap {:.1} MiB with the 10k project held, {:.1} MiB \
         with the 100k one, after a warm call each); the inventory's weighing over the same \
         rows: {:.0} bytes per row",
        (large.0 - small.0) as f64 / rows,
        mib(small.0 as f64),
        mib(large.0 as f64),
        (large.1 - small.1) / rows
    )
}
