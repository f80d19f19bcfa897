//! Sustained load with a fixed call count: `concurrency` workers share `calls` tickets,
//! so a run always stops; every call has a deadline, errors are counted by gRPC code,
//! and the latencies of every call (failed ones included) give the percentiles.
//!
//! The figures are only ever read as ratios to a baseline (a no-op RPC) measured by the
//! same function in the same run, taking turns with it: absolute numbers depend on the
//! machine and on what else runs on it.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;

/// How much load one measurement puts on a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Load {
    /// Calls measured (after the warm-up).
    pub calls: usize,
    /// Calls in flight at once.
    pub concurrency: usize,
    /// Calls made, unmeasured, before the measured ones.
    pub warmup: usize,
}

/// What one measurement saw.
#[derive(Debug, Clone)]
pub struct Measured {
    /// Every call's latency, sorted.
    pub latencies: Vec<Duration>,
    /// From the first call's start to the last call's end.
    pub wall: Duration,
    /// Failed calls by gRPC code (`Ok` never appears).
    pub errors: BTreeMap<String, usize>,
}

impl Measured {
    /// Calls per second over the wall time.
    pub fn throughput(&self) -> f64 {
        self.latencies.len() as f64 / self.wall.as_secs_f64().max(f64::EPSILON)
    }

    /// The `p`-quantile latency (nearest rank), e.g. `0.999`; zero when nothing ran.
    pub fn percentile(&self, p: f64) -> Duration {
        percentile(&self.latencies, p)
    }

    /// Failed calls, every code together.
    pub fn failed(&self) -> usize {
        self.errors.values().sum()
    }

    /// `CODE×n` for each failing code, or `0`.
    pub fn errors_text(&self) -> String {
        if self.errors.is_empty() {
            return "0".into();
        }
        self.errors
            .iter()
            .map(|(code, n)| format!("{code}×{n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The nearest-rank `p`-quantile of `sorted` (ascending); zero when empty.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (p.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The percentiles every table shows.
pub const PERCENTILES: [(&str, f64); 4] = [
    ("p50", 0.50),
    ("p90", 0.90),
    ("p99", 0.99),
    ("p99.9", 0.999),
];

/// One kind of call, boxed so calls of several kinds can take turns.
pub type Call = Arc<dyn Fn(usize) -> BoxFuture<'static, Result<(), tonic::Status>> + Send + Sync>;

/// Boxes `call` (given the call's number; it sets its own deadline).
pub fn call<F, Fut>(call: F) -> Call
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), tonic::Status>> + Send + 'static,
{
    Arc::new(move |n| call(n).boxed())
}

/// Runs `load.warmup` then `load.calls` calls of `call`, at most `load.concurrency`
/// at once.
pub async fn measure<F, Fut>(load: Load, call: F) -> Measured
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), tonic::Status>> + Send + 'static,
{
    let mut measured = measure_in_turns(load, 1, &[self::call(call)]).await;
    measured.pop().unwrap_or_else(Measured::empty)
}

/// Measures every kind of `calls` with `load`, in `rounds` turns: each round makes a
/// slice of every kind's calls, one kind after the other. On a shared machine the
/// background load moves within seconds; taking turns gives a call and its baseline
/// the same background, so their ratio means something.
pub async fn measure_in_turns(load: Load, rounds: usize, calls: &[Call]) -> Vec<Measured> {
    for call in calls {
        if load.warmup > 0 {
            let _ = drive(load.warmup, load.concurrency, call.clone()).await;
        }
    }
    let rounds = rounds.clamp(1, load.calls.max(1));
    let mut results: Vec<Measured> = calls.iter().map(|_| Measured::empty()).collect();
    for round in 0..rounds {
        // Every slice the same size; the last one takes the remainder.
        let slice = load.calls / rounds + usize::from(round + 1 == rounds) * (load.calls % rounds);
        for (call, result) in calls.iter().zip(results.iter_mut()) {
            let part = drive(slice, load.concurrency, call.clone()).await;
            result.latencies.extend(part.latencies);
            result.wall += part.wall;
            for (code, n) in part.errors {
                *result.errors.entry(code).or_default() += n;
            }
        }
    }
    for result in &mut results {
        result.latencies.sort_unstable();
    }
    results
}

impl Measured {
    fn empty() -> Self {
        Self {
            latencies: Vec::new(),
            wall: Duration::ZERO,
            errors: BTreeMap::new(),
        }
    }
}

async fn drive(calls: usize, concurrency: usize, call: Call) -> Measured {
    let tickets = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency.max(1))
        .map(|_| {
            let (tickets, call) = (tickets.clone(), call.clone());
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                let mut errors: BTreeMap<String, usize> = BTreeMap::new();
                loop {
                    let ticket = tickets.fetch_add(1, Ordering::Relaxed);
                    if ticket >= calls {
                        break;
                    }
                    let at = Instant::now();
                    let outcome = call(ticket).await;
                    latencies.push(at.elapsed());
                    if let Err(status) = outcome {
                        *errors.entry(code_name(status.code())).or_default() += 1;
                    }
                }
                (latencies, errors)
            })
        })
        .collect();
    let mut measured = Measured::empty();
    for worker in workers {
        match worker.await {
            Ok((latencies, errors)) => {
                measured.latencies.extend(latencies);
                for (code, n) in errors {
                    *measured.errors.entry(code).or_default() += n;
                }
            }
            // A panicked worker's calls are lost: count them, never hide them.
            Err(_) => *measured.errors.entry("WORKER_PANIC".into()).or_default() += 1,
        }
    }
    measured.wall = started.elapsed();
    measured.latencies.sort_unstable();
    measured
}

/// A gRPC code's canonical name: `DeadlineExceeded` as `DEADLINE_EXCEEDED`.
pub fn code_name(code: tonic::Code) -> String {
    let name = format!("{code:?}");
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// One row of the results table: a call measured beside its no-op baseline.
pub struct Row<'a> {
    pub mode: &'a str,
    pub call: &'a str,
    pub measured: &'a Measured,
    pub baseline: &'a Measured,
}

/// The markdown table's header.
pub fn table_header() -> String {
    "| mode | call | calls | errors | calls/s | calls/s ÷ no-op | p50 ms | p90 ms | p99 ms | p99.9 ms | p50 × no-op | p90 × no-op | p99 × no-op | p99.9 × no-op |\n\
     | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        .into()
}

/// One markdown table line: absolute figures, then ratios to the baseline.
pub fn table_row(row: &Row<'_>) -> String {
    let m = row.measured;
    let b = row.baseline;
    let ms = |d: Duration| format!("{:.2}", d.as_secs_f64() * 1e3);
    let ratio = |a: f64, b: f64| {
        if b > 0.0 {
            format!("{:.2}", a / b)
        } else {
            "n/a".into()
        }
    };
    let mut line = format!(
        "| {} | {} | {} | {} | {:.0} | {} |",
        row.mode,
        row.call,
        m.latencies.len(),
        m.errors_text(),
        m.throughput(),
        ratio(m.throughput(), b.throughput()),
    );
    for (_, p) in PERCENTILES {
        line.push_str(&format!(" {} |", ms(m.percentile(p))));
    }
    for (_, p) in PERCENTILES {
        let (a, b) = (m.percentile(p).as_secs_f64(), b.percentile(p).as_secs_f64());
        line.push_str(&format!(" {} |", ratio(a, b)));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(values: &[u64]) -> Vec<Duration> {
        values.iter().map(|&v| Duration::from_millis(v)).collect()
    }

    #[test]
    fn a_percentile_is_the_nearest_rank_of_the_sorted_latencies() {
        let sorted = ms(&(1..=1000).collect::<Vec<_>>());
        let cases = [
            (0.50, 500),
            (0.90, 900),
            (0.99, 990),
            (0.999, 999),
            (1.0, 1000),
            (0.0, 1),
        ];
        for (p, want) in cases {
            assert_eq!(percentile(&sorted, p), Duration::from_millis(want), "{p}");
        }
        assert_eq!(percentile(&ms(&[7]), 0.999), Duration::from_millis(7));
        assert_eq!(percentile(&[], 0.5), Duration::ZERO);
    }

    #[tokio::test]
    async fn a_run_makes_exactly_its_calls_and_counts_failures_by_code() {
        let load = Load {
            calls: 250,
            concurrency: 7,
            warmup: 10,
        };
        let measured = measure(load, |n| async move {
            if n % 10 == 0 {
                Err(tonic::Status::unavailable("down"))
            } else {
                Ok(())
            }
        })
        .await;
        assert_eq!(measured.latencies.len(), 250);
        assert_eq!(measured.failed(), 25);
        assert_eq!(measured.errors_text(), "UNAVAILABLE×25");
    }

    #[tokio::test]
    async fn calls_taking_turns_each_make_exactly_their_calls() {
        let load = Load {
            calls: 103,
            concurrency: 4,
            warmup: 0,
        };
        let ok = call(|_| async { Ok(()) });
        let denied = call(|_| async { Err(tonic::Status::permission_denied("no")) });
        let measured = measure_in_turns(load, 10, &[ok, denied]).await;
        assert_eq!(measured[0].latencies.len(), 103);
        assert_eq!(measured[0].failed(), 0);
        assert_eq!(measured[1].latencies.len(), 103);
        assert_eq!(measured[1].errors_text(), "PERMISSION_DENIED×103");
    }
}
