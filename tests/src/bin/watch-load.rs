//! Load generator for the `WatchPackages` figures in BENCHMARKS.md:
//! `cargo run --release -p neuralis-tests --bin watch-load`.
//!
//! Starts the all-in-one node in this process on loopback (invalidation bus on Redis),
//! syncs one synthetic project of 10,000 files (100 packages of 400 files), and
//! measures over gRPC, in one run:
//! - a no-op gRPC call (health Check) and a warm `ListPackages`, the baselines;
//! - per one-file write: the time from its finish (the end of its SyncSource stream) to
//!   the watch message that carries it, against the time from a finish to the first
//!   `ListPackages` that reflects it when the caller polls back to back (the best a
//!   poller can do, at the cost of a listing per poll);
//! - the server's cost of an idle stream: the re-decisions it makes per second
//!   (`recheck_ms`), each one listing's worth of work that sends nothing.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use futures::StreamExt as _;
use neuralis_discovery::CallerToken;
use neuralis_proto::discovery::v1 as pb;
use neuralis_tests::Cluster;
use neuralis_tests::fixture::{read_policy, register, resync, scope, visible};
use neuralis_tests::synthetic::write_tree;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

const CALLS: usize = 2000;
const WRITES: usize = 30;
const PROJECT: &str = "watch-10k";

fn p50(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn add_skill(root: &Path, name: &str) -> Result<String> {
    let target = format!("tools/t0/skills/{name}/SKILL.md");
    let path = root.join(&target);
    std::fs::create_dir_all(path.parent().unwrap_or(root))?;
    std::fs::write(&path, format!("---\nname: {name}\n---\n"))?;
    Ok(target)
}

#[tokio::main]
async fn main() -> Result<()> {
    let redis = std::env::var("NEURALIS_TEST_REDIS_URL")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let recheck_ms = 1000;
    let settings = HashMap::from([
        ("NEURALIS__SYNC__BUS__KIND".to_owned(), "redis".to_owned()),
        ("NEURALIS__SYNC__BUS__URL".to_owned(), redis),
        (
            "NEURALIS__SYNC__BUS__CHANNEL".to_owned(),
            "neuralis:watch-bench".to_owned(),
        ),
        (
            "NEURALIS__DISCOVERY__WATCH__RECHECK_MS".to_owned(),
            recheck_ms.to_string(),
        ),
        (
            "NEURALIS__TELEMETRY__LOG_FILTER".to_owned(),
            "warn".to_owned(),
        ),
    ]);
    let cluster = Cluster::all_in_one(settings).await?;
    let admin = cluster.token("ops", "owner", None, PROJECT);
    let member = cluster.token("ada", "member", Some("a1"), PROJECT);
    let dir = tempfile::tempdir()?;
    write_tree(dir.path(), 96)?;
    register(
        &cluster,
        &admin,
        PROJECT,
        "repo",
        dir.path(),
        read_policy(vec![]),
    )
    .await?;
    let caller = CallerToken::new(Some(member.clone()));
    let list = || pb::ListPackagesRequest {
        scope: scope(PROJECT, "a1", ""),
        ..Default::default()
    };

    let channel =
        tonic::transport::Endpoint::from_shared(format!("http://{}", cluster.addrs["discovery"]))?
            .connect()
            .await?;
    let mut health = HealthClient::new(channel);
    let mut noop = Vec::with_capacity(CALLS);
    let mut listing = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let t = Instant::now();
        health.check(HealthCheckRequest::default()).await?;
        noop.push(t.elapsed());
        let t = Instant::now();
        cluster
            .discovery
            .list_packages(caller.clone(), list())
            .await?;
        listing.push(t.elapsed());
    }
    let (noop, listing) = (p50(noop), p50(listing));

    // Finish -> the watch message carrying the write.
    let request = pb::WatchPackagesRequest {
        scope: scope(PROJECT, "a1", ""),
        resume_revision: String::new(),
    };
    let mut stream = cluster
        .discovery
        .watch_packages(caller.clone(), request)
        .await?;
    stream.next().await.context("the first answer")??;
    let mut watched = Vec::with_capacity(WRITES);
    let mut messages = 0;
    for k in 0..WRITES {
        let name = format!("watched{k}");
        add_skill(dir.path(), &name)?;
        resync(&cluster, &admin, PROJECT, "repo").await?;
        let finished = Instant::now();
        loop {
            let message = stream.next().await.context("a message")??;
            messages += 1;
            let files = message.packages.iter().flat_map(|p| &p.files);
            if files.clone().any(|f| f.id == name) {
                break;
            }
        }
        watched.push(finished.elapsed());
    }
    drop(stream);

    // Finish -> the first ListPackages that reflects it, polling back to back.
    let mut polled = Vec::with_capacity(WRITES);
    let mut polls = 0;
    for k in 0..WRITES {
        let target = add_skill(dir.path(), &format!("polled{k}"))?;
        resync(&cluster, &admin, PROJECT, "repo").await?;
        let finished = Instant::now();
        loop {
            polls += 1;
            let seen = visible(&cluster, &member, scope(PROJECT, "a1", "")).await?;
            if seen.iter().any(|(p, _)| *p == target) {
                break;
            }
        }
        polled.push(finished.elapsed());
    }
    let (watched, polled) = (p50(watched), p50(polled));
    let x = |d: Duration| d.as_secs_f64() / noop.as_secs_f64();
    println!("| figure | p50 | ratio to the no-op |\n| --- | --- | --- |");
    println!(
        "| no-op gRPC (health Check), n = {CALLS} | {:.3} ms | 1 |",
        ms(noop)
    );
    println!(
        "| ListPackages, warm, n = {CALLS} | {:.3} ms | {:.1}x |",
        ms(listing),
        x(listing)
    );
    println!(
        "| finish -> watch message, n = {WRITES} ({messages} messages) | {:.3} ms | {:.1}x |",
        ms(watched),
        x(watched)
    );
    println!(
        "| finish -> reflecting ListPackages, polling, n = {WRITES} ({polls} listings) | {:.3} ms | {:.1}x |",
        ms(polled),
        x(polled)
    );
    println!(
        "\nwatch message / warm ListPackages: {:.2}; an idle stream re-decides {:.1} times a second \
         (recheck_ms = {recheck_ms}): {:.2} % of one core at the warm ListPackages cost",
        watched.as_secs_f64() / listing.as_secs_f64(),
        1000.0 / recheck_ms as f64,
        100.0 * listing.as_secs_f64() * 1000.0 / recheck_ms as f64
    );
    cluster.stop().await
}
