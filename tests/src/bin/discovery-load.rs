//! Load generator for the discovery figures in BENCHMARKS.md:
//! `cargo run --release -p neuralis-tests --bin discovery-load`.
//!
//! Starts the all-in-one node in this process on loopback, syncs a synthetic
//! 10,000-file project, then measures over gRPC, in one run:
//! - `ListPackages` latency (warm inventory) against a no-op gRPC call (health Check);
//! - the time from a write's `finish` (the end of its SyncSource stream) to the first
//!   `ListPackages` that reflects it, with the invalidation bus on Redis.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use neuralis_discovery::CallerToken;
use neuralis_proto::discovery::v1 as pb;
use neuralis_tests::Cluster;
use neuralis_tests::fixture::{read_policy, register, resync, scope, visible};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

const PROJECT: &str = "bench";
const CALLS: usize = 2000;
const WRITES: usize = 30;

fn write_tree(root: &Path) -> Result<usize> {
    let mut files = 0;
    let mut put = |path: String, body: String| -> Result<()> {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap_or(root))?;
        std::fs::write(path, body)?;
        files += 1;
        Ok(())
    };
    for i in 0..100 {
        for k in 0..2 {
            put(
                format!("tools/t{i}/skills/s{k}/SKILL.md"),
                format!("---\nname: t{i}-s{k}\ndescription: skill {k} of tool {i}\n---\nDo it.\n"),
            )?;
        }
        put(
            format!("tools/t{i}/rules/r.md"),
            format!("---\nname: t{i}-rule\n---\nA rule.\n"),
        )?;
        put(
            format!("tools/t{i}/docs/d.md"),
            format!("---\nname: t{i}-doc\n---\nA doc.\n"),
        )?;
    }
    for i in 0..96 {
        for j in 0..100 {
            put(
                format!("src/m{i}/f{j}.rs"),
                format!("pub fn f{j}() -> u32 {{ {j} }}\n"),
            )?;
        }
    }
    Ok(files)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

fn summary(name: &str, mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let (p50, p99) = (percentile(&samples, 0.50), percentile(&samples, 0.99));
    println!(
        "| {name} | {} | {:.3} ms | {:.3} ms |",
        samples.len(),
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3
    );
    (p50, p99)
}

#[tokio::main]
async fn main() -> Result<()> {
    let redis = std::env::var("NEURALIS_TEST_REDIS_URL")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let bus = HashMap::from([
        ("NEURALIS__SYNC__BUS__KIND".to_owned(), "redis".to_owned()),
        ("NEURALIS__SYNC__BUS__URL".to_owned(), redis),
        (
            "NEURALIS__SYNC__BUS__CHANNEL".to_owned(),
            "neuralis:bench".to_owned(),
        ),
        (
            "NEURALIS__TELEMETRY__LOG_FILTER".to_owned(),
            "warn".to_owned(),
        ),
    ]);
    let cluster = Cluster::all_in_one(bus).await?;
    let admin = cluster.token("ops", "owner", None, PROJECT);
    let member = cluster.token("ada", "member", Some("a1"), PROJECT);
    let dir = tempfile::tempdir()?;
    let files = write_tree(dir.path())?;
    let started = Instant::now();
    register(
        &cluster,
        &admin,
        PROJECT,
        "repo",
        dir.path(),
        read_policy(vec![]),
    )
    .await?;
    println!(
        "synthetic project: {files} files, first sync {:.2} s\n",
        started.elapsed().as_secs_f64()
    );

    let caller = CallerToken::new(Some(member.clone()));
    let request = || pb::ListPackagesRequest {
        scope: scope(PROJECT, "a1", ""),
        ..Default::default()
    };
    let packages = cluster
        .discovery
        .list_packages(caller.clone(), request())
        .await?
        .packages;
    let listed: usize = packages.iter().map(|p| p.files.len()).sum();
    println!(
        "a ListPackages answer: {} packages, {listed} files\n",
        packages.len()
    );
    for _ in 0..50 {
        cluster
            .discovery
            .list_packages(caller.clone(), request())
            .await?;
    }

    let channel =
        tonic::transport::Endpoint::from_shared(format!("http://{}", cluster.addrs["discovery"]))?
            .connect()
            .await?;
    let mut health = HealthClient::new(channel);
    let mut noop = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let t = Instant::now();
        health
            .check(HealthCheckRequest {
                service: String::new(),
            })
            .await?;
        noop.push(t.elapsed());
    }
    let mut list = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let t = Instant::now();
        cluster
            .discovery
            .list_packages(caller.clone(), request())
            .await?;
        list.push(t.elapsed());
    }
    println!("| call | n | p50 | p99 |\n| --- | --- | --- | --- |");
    let (noop50, noop99) = summary("no-op gRPC (health Check)", noop);
    let (list50, list99) = summary("ListPackages, warm 10,000-file project", list);
    println!(
        "\nratio ListPackages / no-op: p50 {:.1}x, p99 {:.1}x\n",
        list50.as_secs_f64() / noop50.as_secs_f64(),
        list99.as_secs_f64() / noop99.as_secs_f64()
    );

    let mut reflected = Vec::with_capacity(WRITES);
    let mut first_call_reflected = 0;
    for k in 0..WRITES {
        let path = dir.path().join(format!("tools/t0/skills/new{k}/SKILL.md"));
        std::fs::create_dir_all(path.parent().unwrap_or(dir.path()))?;
        std::fs::write(&path, format!("---\nname: new{k}\n---\n"))?;
        resync(&cluster, &admin, PROJECT, "repo").await?;
        let finished = Instant::now();
        let target = format!("tools/t0/skills/new{k}/SKILL.md");
        let mut calls = 0;
        loop {
            calls += 1;
            let seen = visible(&cluster, &member, scope(PROJECT, "a1", "")).await?;
            if seen.iter().any(|(p, _)| *p == target) {
                break;
            }
        }
        reflected.push(finished.elapsed());
        first_call_reflected += usize::from(calls == 1);
    }
    println!(
        "| write finish -> ListPackages reflecting it (Redis bus) | n | p50 | p99 |\n| --- | --- | --- | --- |"
    );
    summary("finish to reflected", reflected);
    println!(
        "\nthe first call after the finish already reflected the write in {first_call_reflected} of {WRITES} writes"
    );
    // The cost of that first call is a cold inventory fill: measure one for comparison.
    let mut cold = Vec::with_capacity(WRITES);
    let fresh = format!("{PROJECT}-cold");
    let admin2 = cluster.token("ops", "owner", None, &fresh);
    let member2 = cluster.token("ada", "member", Some("a1"), &fresh);
    register(
        &cluster,
        &admin2,
        &fresh,
        "repo",
        dir.path(),
        read_policy(vec![]),
    )
    .await?;
    for _ in 0..WRITES {
        let t = Instant::now();
        let _ = visible(&cluster, &member2, scope(&fresh, "a1", "")).await?;
        cold.push(t.elapsed());
        // Invalidate by a write that moves a package, so every call is a cold fill.
        let path = dir.path().join("tools/t1/skills/flip/SKILL.md");
        if path.exists() {
            std::fs::remove_file(&path)?;
        } else {
            std::fs::create_dir_all(path.parent().unwrap_or(dir.path()))?;
            std::fs::write(&path, "---\nname: flip\n---\n")?;
        }
        resync(&cluster, &admin2, &fresh, "repo").await?;
    }
    println!(
        "\n| ListPackages on an invalidated inventory (a full refill) | n | p50 | p99 |\n| --- | --- | --- | --- |"
    );
    summary("cold fill", cold);
    cluster.stop().await
}
