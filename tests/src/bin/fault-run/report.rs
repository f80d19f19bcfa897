//! A run's figures as Markdown: a table of calls (sent, failed by code, WRONG) and the
//! times to recover, measured from the fault's injection.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::Injected;
use crate::load::{Event, KINDS, Seen, Tally};

pub struct Outcome {
    pub fault: String,
    /// None: the load did not end within its limit.
    pub seen: Option<Seen>,
    pub injected: anyhow::Result<Injected>,
    pub t0: Instant,
    /// Processes that exited by themselves.
    pub crashed: Vec<String>,
    /// Discovery's subscription and inventory lines of `/metrics` at the end.
    pub discovery_metrics: String,
    /// Discovery's `/readyz` through the run (not sampled when discovery restarts:
    /// its admin port moves).
    pub readiness: Option<Samples>,
}

/// The subscription state and inventory lookups from discovery's `/metrics` (whether
/// the inventory caches again once the fault is over).
pub async fn inventory(admin: std::net::SocketAddr) -> String {
    let scrape = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        neuralis_tests::process::http_get(admin, "/metrics"),
    )
    .await;
    let Ok((200, text)) = scrape else {
        return "discovery's /metrics did not answer".into();
    };
    text.lines()
        .filter(|l| {
            l.starts_with("neuralis_invalidation_subscription_up")
                || l.starts_with("neuralis_inventory_lookups_total")
        })
        .map(|l| l.replace("neuralis_", ""))
        .collect::<Vec<_>>()
        .join("; ")
}

fn codes(failed: &BTreeMap<String, usize>) -> String {
    if failed.is_empty() {
        return "0".into();
    }
    let total: usize = failed.values().sum();
    let each: Vec<String> = failed.iter().map(|(c, n)| format!("{c} {n}")).collect();
    format!("{total} ({})", each.join(", "))
}

fn row(name: &str, tally: &Tally) -> String {
    format!(
        "| {name} | {} | {} | {} | {} | {} | {} |",
        tally.sent,
        tally.ok,
        tally.after_finish,
        codes(&tally.failed),
        tally.stale,
        tally.leaked
    )
}

/// Seconds, or a dash.
fn secs(value: Option<f64>) -> String {
    value.map_or("–".into(), |v| format!("{v:.2} s"))
}

/// The end of the first success started at or after `from`, relative to `from`.
fn first_ok(events: &[Event], from: f64) -> Option<f64> {
    events
        .iter()
        .filter(|e| e.ok && e.start >= from)
        .map(|e| e.end - from)
        .min_by(f64::total_cmp)
}

/// The end of the last failure, relative to `from` (after it, no call failed).
fn last_failure(events: &[Event], from: f64) -> Option<f64> {
    events
        .iter()
        .filter(|e| !e.ok)
        .map(|e| e.end - from)
        .max_by(f64::total_cmp)
}

/// `/readyz` samples of one process: (second since the load started, ready).
pub type Samples = Vec<(f64, bool)>;

/// Asks `admin`'s `/readyz` every 250 ms until `until` is set; never panics (a process
/// being restarted answers nothing: not ready).
pub async fn sample_readiness(
    admin: std::net::SocketAddr,
    t0: Instant,
    until: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Samples {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut samples = Vec::new();
    while !until.load(std::sync::atomic::Ordering::SeqCst) {
        let ask = async {
            let mut stream = tokio::net::TcpStream::connect(admin).await.ok()?;
            stream
                .write_all(b"GET /readyz HTTP/1.1\r\nHost: admin\r\n\r\n")
                .await
                .ok()?;
            let mut text = String::new();
            stream.read_to_string(&mut text).await.ok()?;
            Some(text.starts_with("HTTP/1.1 200"))
        };
        let ready = tokio::time::timeout(std::time::Duration::from_secs(1), ask)
            .await
            .ok()
            .flatten()
            .unwrap_or(false);
        samples.push((t0.elapsed().as_secs_f64(), ready));
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    samples
}

/// `not ready in N of M samples before the fault, N of M after`.
fn readiness(samples: &Samples, at: f64) -> String {
    let count = |after: bool| {
        let part: Vec<bool> = samples
            .iter()
            .filter(|(t, _)| (*t >= at) == after)
            .map(|(_, r)| *r)
            .collect();
        (part.iter().filter(|r| !**r).count(), part.len())
    };
    let (before, before_all) = count(false);
    let (after, after_all) = count(true);
    format!(
        "NOT ready in {before} of {before_all} samples before the fault, {after} of {after_all} after"
    )
}

/// Failures by the second (after the fault) in which they ended, with their codes:
/// `+3 s: UNAVAILABLE 12`.
fn timeline(events: &[Event], from: f64) -> String {
    let mut seconds: BTreeMap<i64, BTreeMap<&str, usize>> = BTreeMap::new();
    for event in events.iter().filter(|e| !e.ok) {
        let second = (event.end - from).floor() as i64;
        *seconds
            .entry(second)
            .or_default()
            .entry(event.code)
            .or_default() += 1;
    }
    let parts: Vec<String> = seconds
        .iter()
        .map(|(second, codes)| {
            let codes: Vec<String> = codes.iter().map(|(c, n)| format!("{c} {n}")).collect();
            format!("{second:+} s: {}", codes.join(", "))
        })
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join("; ")
    }
}

impl Outcome {
    /// Prints the run; true when it is clean (no WRONG answer, no crash, recovered).
    pub fn print(&self) -> bool {
        println!("## {}\n", self.fault);
        let injected = match &self.injected {
            Ok(injected) => injected,
            Err(error) => {
                println!("The fault could not be injected: {error:#}\n");
                return false;
            }
        };
        let Some(seen) = &self.seen else {
            println!("The load did not end within its limit.\n");
            return false;
        };
        println!("Fault: {}.\n", injected.note);
        println!(
            "| call | sent | answered | of which after a finish | failed (by code) | WRONG: pre-write row | WRONG: hidden file |"
        );
        println!("|---|---:|---:|---:|---|---:|---:|");
        let mut all = Tally::default();
        for (kind, tally) in KINDS.iter().zip(&seen.tallies) {
            println!("{}", row(kind, tally));
            all.sent += tally.sent;
            all.ok += tally.ok;
            all.after_finish += tally.after_finish;
            all.stale += tally.stale;
            all.leaked += tally.leaked;
            for (code, n) in &tally.failed {
                *all.failed.entry(code.clone()).or_default() += n;
            }
        }
        println!("{}", row("**all reads**", &all));
        println!(
            "| SyncSource (writer) | {} | {} | – | {} | – | – |\n",
            seen.writes.sent,
            seen.writes.ok,
            codes(&seen.writes.failed)
        );
        let at = injected.at.duration_since(self.t0).as_secs_f64();
        let restored = injected
            .restored
            .map(|r| r.duration_since(self.t0).as_secs_f64());
        let failed_any = all.failed.values().sum::<usize>() > 0;
        let recovered_reads = !failed_any || first_ok(&seen.events, at).is_some();
        let last = last_failure(&seen.events, at);
        let ended_clean = seen.events.iter().rev().take(20).all(|e| e.ok);
        println!(
            "Load: {:.1} s wall, {:.0} calls/s. Fault at {at:.2} s{}.\n",
            seen.wall,
            all.sent as f64 / seen.wall.max(f64::EPSILON),
            restored.map_or(String::new(), |r| format!(
                ", undone at {r:.2} s (+{:.2} s)",
                r - at
            )),
        );
        println!("| recovery (reads) | time |");
        println!("|---|---:|");
        println!(
            "| fault → first success | {} |",
            secs(first_ok(&seen.events, at))
        );
        if let Some(r) = restored {
            println!(
                "| undone → first success | {} |",
                secs(first_ok(&seen.events, r))
            );
        }
        println!(
            "| fault → last failure (error rate zero after) | {} |",
            if failed_any {
                secs(last)
            } else {
                "no failure".into()
            }
        );
        if let Some(r) = restored {
            println!(
                "| undone → writer's first successful sync | {} |",
                secs(first_ok(&seen.write_events, r))
            );
        } else {
            println!(
                "| fault → writer's first successful sync | {} |",
                secs(first_ok(&seen.write_events, at))
            );
        }
        println!();
        println!(
            "Failed reads by second after the fault: {}.\n",
            timeline(&seen.events, at)
        );
        if let Some(samples) = &self.readiness {
            println!(
                "Discovery's `/readyz` every 250 ms: {}.\n",
                readiness(samples, at)
            );
        }
        println!(
            "Discovery at the end (`/metrics`): {}.\n",
            self.discovery_metrics
        );
        if !self.crashed.is_empty() {
            println!("Exited by themselves: {}.\n", self.crashed.join(", "));
        }
        let wrong = all.stale + all.leaked;
        let clean = wrong == 0 && self.crashed.is_empty() && recovered_reads && ended_clean;
        println!(
            "Verdict: {} (WRONG {wrong}, {}, {}).\n",
            if clean { "clean" } else { "NOT CLEAN" },
            if recovered_reads {
                "recovered"
            } else {
                "no success after the fault"
            },
            if ended_clean {
                "the last 20 calls answered"
            } else {
                "failures at the end"
            },
        );
        clean
    }
}
