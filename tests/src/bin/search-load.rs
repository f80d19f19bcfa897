//! Load generator for the Search figures in BENCHMARKS.md (issue 25):
//! `cargo run --release -p neuralis-tests --bin search-load`.
//!
//! Starts the all-in-one node in this process on loopback with two projects, `busy` and
//! `quiet`, each a source of `SEARCH_LOAD_DOCS` documents (default 4,000) that all hold
//! the same 64 words, so a query of n of them matches every document: the costliest
//! query of n words there is. Then, over gRPC, in one run:
//! - Search latency (median, p90) and CPU per call (this process's user and system
//!   time, server and client together, from `/proc/self/stat`) against the number of
//!   words, 10 to the bound (64), one call at a time;
//! - a victim's Search (10 words) alone, then while other callers saturate their share
//!   with maximal queries: one caller of the victim's project, two calls at once (its
//!   share); then eight callers of the other project, two calls each (that project's
//!   share is three: the rest are shed). Each figure is a ratio to the victim alone,
//!   measured in the same run.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;
use neuralis_discovery::{CallerToken, DiscoveryApi, DiscoveryError};
use neuralis_proto::discovery::v1 as pb;
use neuralis_tests::Cluster;
use neuralis_tests::fixture::{read_policy, register, scope};

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

fn words() -> Vec<String> {
    (0..64).map(|i| format!("common{i:02}")).collect()
}

fn query(n: usize) -> String {
    words()[..n].join(" ")
}

/// This process's CPU time so far (user + system), from `/proc/self/stat` in clock
/// ticks of 10 ms; zero where there is no `/proc`.
fn cpu_time() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // The fields after the command name (which may hold spaces) start after ") ".
    let fields: Vec<&str> = stat
        .rsplit_once(") ")
        .map(|(_, rest)| rest.split(' ').collect())
        .unwrap_or_default();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|t| t.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

fn request(project: &str, text: &str) -> pb::SearchRequest {
    pb::SearchRequest {
        scope: scope(project, "", ""),
        query: text.into(),
        limit: 10,
    }
}

async fn project(cluster: &Cluster, name: &str, docs: usize) -> Result<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    let body = words().join(" ");
    std::fs::create_dir_all(dir.path().join(".claude/docs"))?;
    for i in 0..docs {
        let path = dir.path().join(format!(".claude/docs/d{i:05}.md"));
        std::fs::write(path, format!("---\nname: d{i:05}\n---\n{body}\n"))?;
    }
    let admin = cluster.token("ops", "owner", None, name);
    register(
        cluster,
        &admin,
        name,
        "repo",
        dir.path(),
        read_policy(vec![]),
    )
    .await?;
    Ok(dir)
}

/// `calls` searches of `text` as `token`, one at a time: sorted latencies and the CPU
/// time the process spent meanwhile.
async fn one_at_a_time(
    discovery: &Arc<dyn DiscoveryApi>,
    token: &str,
    project: &str,
    text: &str,
    calls: usize,
) -> Result<(Vec<Duration>, Duration)> {
    let cpu = cpu_time();
    let mut latencies = Vec::with_capacity(calls);
    for _ in 0..calls {
        let started = Instant::now();
        discovery
            .search(CallerToken::new(Some(token.into())), request(project, text))
            .await?;
        latencies.push(started.elapsed());
    }
    latencies.sort();
    Ok((latencies, cpu_time().saturating_sub(cpu)))
}

fn at(sorted: &[Duration], p: f64) -> Duration {
    neuralis_tests::load::percentile(sorted, p)
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1e3)
}

/// The victim's `calls` searches of 10 words in `busy`, one at a time: the sorted
/// latencies of every call, and how many were refused (by code).
async fn victim_calls(cluster: &Cluster, token: &str, calls: usize) -> (Vec<Duration>, String) {
    let mut latencies = Vec::with_capacity(calls);
    let mut refused: HashMap<String, usize> = HashMap::new();
    for _ in 0..calls {
        let started = Instant::now();
        let caller = CallerToken::new(Some(token.into()));
        let answer = cluster
            .discovery
            .search(caller, request("busy", &query(10)))
            .await;
        latencies.push(started.elapsed());
        if let Err(error) = answer {
            let code = error.to_string();
            let code = code.split(':').next().unwrap_or("error").to_owned();
            *refused.entry(code).or_default() += 1;
        }
    }
    latencies.sort();
    let refused = if refused.is_empty() {
        "0".to_owned()
    } else {
        format!("{refused:?}")
    };
    (latencies, refused)
}

/// Callers that search with maximal queries nonstop, `per_caller` calls each at once,
/// until `stop`; counts the calls answered and shed.
fn saturate(
    cluster: &Cluster,
    project: &'static str,
    callers: usize,
    per_caller: usize,
    stop: Arc<AtomicBool>,
    counts: Arc<[AtomicUsize; 2]>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut loops = Vec::new();
    for i in 0..callers {
        let token = cluster.token(&format!("attacker{i}"), "member", None, project);
        for _ in 0..per_caller {
            let (discovery, token) = (cluster.discovery.clone(), token.clone());
            let (stop, counts) = (stop.clone(), counts.clone());
            loops.push(tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let caller = CallerToken::new(Some(token.clone()));
                    let answer = discovery.search(caller, request(project, &query(64))).await;
                    let shed = matches!(answer, Err(DiscoveryError::ResourceExhausted { .. }));
                    counts[usize::from(shed)].fetch_add(1, Ordering::Relaxed);
                    if shed {
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                }
            }));
        }
    }
    loops
}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() -> Result<()> {
    let (calls, docs) = (
        env_or("SEARCH_LOAD_CALLS", 40),
        env_or("SEARCH_LOAD_DOCS", 4_000),
    );
    let cluster = Cluster::all_in_one(HashMap::new()).await?;
    let _busy = project(&cluster, "busy", docs).await?;
    let _quiet = project(&cluster, "quiet", docs).await?;
    let member = cluster.token("ada", "member", None, "busy");
    println!("documents per project: {docs}; calls per figure: {calls}\n");
    println!("| words | p50 | p90 | CPU per call | p50 per word |");
    println!("| --- | --- | --- | --- | --- |");
    one_at_a_time(&cluster.discovery, &member, "busy", &query(64), 3).await?;
    for n in [10, 16, 24, 32, 48, 64] {
        let (latencies, cpu) =
            one_at_a_time(&cluster.discovery, &member, "busy", &query(n), calls).await?;
        let p50 = at(&latencies, 0.5);
        println!(
            "| {n} | {} | {} | {} | {:.2} ms |",
            ms(p50),
            ms(at(&latencies, 0.9)),
            ms(cpu / calls as u32),
            p50.as_secs_f64() * 1e3 / n as f64
        );
    }

    let victim = |project: &str| cluster.token("victim", "member", None, project);
    println!(
        "\n| victim's Search (10 words) | p50 | p90 | p50 ratio to alone | victim refused | attackers' calls answered / shed |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    let (alone, refused) = victim_calls(&cluster, &victim("busy"), calls).await;
    println!(
        "| alone | {} | {} | 1.0 | {refused} | |",
        ms(at(&alone, 0.5)),
        ms(at(&alone, 0.9))
    );
    for (label, attacked, callers) in [
        ("1 caller of its project at its share (2 calls)", "busy", 1),
        (
            "8 callers of another project, 2 calls each (that project's share is 3)",
            "quiet",
            8,
        ),
    ] {
        let stop = Arc::new(AtomicBool::new(false));
        let counts = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let loops = saturate(&cluster, attacked, callers, 2, stop.clone(), counts.clone());
        tokio::time::sleep(Duration::from_millis(500)).await;
        let (under, refused) = victim_calls(&cluster, &victim("busy"), calls).await;
        stop.store(true, Ordering::Relaxed);
        for task in loops {
            task.await?;
        }
        println!(
            "| while {label} | {} | {} | {:.1} | {refused} | {} / {} |",
            ms(at(&under, 0.5)),
            ms(at(&under, 0.9)),
            at(&under, 0.5).as_secs_f64() / at(&alone, 0.5).as_secs_f64(),
            counts[0].load(Ordering::Relaxed),
            counts[1].load(Ordering::Relaxed),
        );
    }
    cluster.stop().await?;
    Ok(())
}
