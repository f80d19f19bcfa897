//! The `group` bench's two operations timed by this thread's on-CPU time
//! (`/proc/thread-self/schedstat`, Linux), alternating one sort and one grouping per
//! round: on a shared, loaded machine the wall clock mostly measures waiting for a
//! core, which on-CPU time leaves out. Prints the medians and their ratio.
//! `NEURALIS_BENCH_ROUNDS` rounds (default 20) after 3 unrecorded ones.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use neuralis_layout::{GroupOptions, group};

#[path = "support/data.rs"]
mod data;

/// Nanoseconds this thread has spent on a CPU, or `None` off Linux.
///
/// The kernel brings a running thread's total up to date only at a tick or a switch,
/// so a plain read lags by up to a tick (4 ms at 250 Hz): on a quiet machine, where
/// nothing switches the thread out, the medians came out as multiples of 4 ms
/// (11.99, 32.00). Yielding first brings the total up to date (`sched_yield` accounts
/// the time run so far), at the cost of a system call.
fn on_cpu_ns() -> Option<u64> {
    std::thread::yield_now();
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

fn median(mut ms: Vec<f64>) -> f64 {
    ms.sort_by(f64::total_cmp);
    ms[ms.len() / 2]
}

fn main() {
    // Under `cargo test --all-targets` (no `--bench`) run one round as a smoke test.
    let bench = std::env::args().any(|arg| arg == "--bench");
    let rounds = if bench {
        std::env::var("NEURALIS_BENCH_ROUNDS").map_or(20, |n| n.parse().unwrap())
    } else {
        1
    };
    if on_cpu_ns().is_none() {
        eprintln!("group_cpu: /proc/thread-self/schedstat is not readable here; nothing measured");
        return;
    }
    let paths = data::shuffled_paths();
    let rows = data::rows(&paths);
    let options = GroupOptions::synced("bench");
    let (mut sorts, mut groups) = (Vec::new(), Vec::new());
    let warm_up = if bench { 3 } else { 0 };
    for round in 0..warm_up + rounds {
        let mut sorted = paths.clone();
        let start = on_cpu_ns().unwrap();
        sorted.sort();
        let sorted_at = on_cpu_ns().unwrap();
        black_box(&sorted);
        let layout = group(black_box(&rows), &options);
        let grouped_at = on_cpu_ns().unwrap();
        // Both outputs are freed outside the timings, as in `group.rs`.
        drop(black_box(layout));
        drop(sorted);
        if round >= warm_up {
            sorts.push((sorted_at - start) as f64 / 1e6);
            groups.push((grouped_at - sorted_at) as f64 / 1e6);
        }
    }
    let (sort, grouping) = (median(sorts), median(groups));
    println!(
        "on-CPU medians over {rounds} rounds: sort 100k paths {sort:.2} ms, classify and group {grouping:.2} ms, ratio {:.2}",
        grouping / sort
    );
}
