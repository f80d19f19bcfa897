//! Load generator for the discovery figures in BENCHMARKS.md:
//! `cargo run --release -p neuralis-tests --bin discovery-load --features binary-allocator`
//! for the latencies and the cold fill as the `neuralis` binary has them (mimalloc), or
//! without the feature for the live heap per row (the system allocator, counted; its
//! latencies are slower). The first line printed names the allocator.
//!
//! Starts the all-in-one node in this process on loopback, syncs two synthetic
//! projects (10,000 and 100,000 files, the same 100 packages of 400 files, the rest
//! plain files outside every package), then measures over gRPC, in one run:
//! - a no-op gRPC call (health Check), the baseline of every ratio;
//! - per project: `ListPackages` latency (warm inventory); the time from a one-file
//!   write's `finish` (the end of its SyncSource stream) to the first `ListPackages`
//!   that reflects it, with the invalidation bus on Redis (a delta since the revision
//!   held); and a cold fill (the project evicted, then read in full);
//! - what the inventory holds per indexed row: its own weighing (the figure its memory
//!   bound counts), and the process's resident memory before and after a cold fill of
//!   the large project as a cross-check.
//!
//! The inventory keeps one project (`max_projects = 1`), so a call to the other
//! project evicts it: that is how a cold fill is measured without a new project.
#![forbid(unsafe_code)]

#[path = "discovery-load/heap.rs"]
mod heap;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::Result;
use neuralis_discovery::CallerToken;
use neuralis_proto::discovery::v1 as pb;
use neuralis_tests::Cluster;
use neuralis_tests::fixture::{read_policy, register, resync, scope, visible};
use neuralis_tests::synthetic::write_tree;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

/// Calls per latency figure; `DISCOVERY_LOAD_CALLS` overrides it (a quick check).
fn calls() -> usize {
    std::env::var("DISCOVERY_LOAD_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000)
}
const WRITES: usize = 30;

/// One synthetic project.
struct Project {
    name: String,
    files: usize,
    first_sync: Duration,
    dir: tempfile::TempDir,
    admin: String,
    member: String,
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn summary(name: &str, mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let (p50, p99) = (percentile(&samples, 0.50), percentile(&samples, 0.99));
    println!(
        "| {name} | {} | {:.3} ms | {:.3} ms |",
        samples.len(),
        ms(p50),
        ms(p99)
    );
    (p50, p99)
}

/// The inventory counters of this process (the node runs in it).
fn counters() -> String {
    let text = neuralis_metrics::render();
    text.lines()
        .filter(|l| {
            l.starts_with("neuralis_inventory_refills_total")
                || l.starts_with("neuralis_inventory_regroups_total")
                || l.starts_with("neuralis_inventory_evictions_total")
                || l.starts_with("neuralis_inventory_bytes")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

async fn make(cluster: &Cluster, name: &str, plain_modules: usize) -> Result<Project> {
    let admin = cluster.token("ops", "owner", None, name);
    let member = cluster.token("ada", "member", Some("a1"), name);
    let dir = tempfile::tempdir()?;
    let files = write_tree(dir.path(), plain_modules)?;
    let started = Instant::now();
    register(
        cluster,
        &admin,
        name,
        "repo",
        dir.path(),
        read_policy(vec![]),
    )
    .await?;
    let first_sync = started.elapsed();
    println!(
        "project {name}: {files} files, first sync {:.2} s",
        first_sync.as_secs_f64()
    );
    Ok(Project {
        name: name.to_owned(),
        files,
        first_sync,
        dir,
        admin,
        member,
    })
}

/// The process's resident set (Linux `/proc/self/statm`, pages of 4 KiB); 0 elsewhere.
fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

struct Figures {
    list: Duration,
    reflected: Duration,
    new_package: Duration,
    cold: Duration,
    plain: Duration,
}

/// The baseline of a cold fill: the project's rows read from the embedded store with a
/// plain query on a connection of its own, every column of every row taken as an owned
/// value (what any reader of the rows must at least do).
fn plain_read(db: &std::path::Path, project: &str) -> Result<(Duration, usize)> {
    let connection = rusqlite::Connection::open_with_flags(
        db,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let started = Instant::now();
    let mut statement = connection.prepare(
        "SELECT source, path, content_hash, size, modified, classification, payload, \
         usable_manifest, privacy_owner, payload_version, real_path, content_flags \
         FROM index_files WHERE project = ?1 ORDER BY source, path",
    )?;
    let mut rows = statement.query([project])?;
    let mut kept: Vec<(String, String, String, i64, String, Option<String>)> = Vec::new();
    while let Some(row) = rows.next()? {
        let _: (i64, i64, i64, i64) = (row.get(3)?, row.get(4)?, row.get(7)?, row.get(9)?);
        let _: (Option<String>, Option<String>) = (row.get(8)?, row.get(11)?);
        kept.push((
            row.get(0)?,
            row.get(1)?,
            row.get(2)?,
            row.get(3)?,
            row.get(6)?,
            row.get(10)?,
        ));
    }
    Ok((started.elapsed(), kept.len()))
}

/// Writes a one-file write `WRITES` times (the `k`-th at `target(k)`), each synced,
/// and returns the median time from a write's finish to the first `ListPackages` of a
/// member that lists it (its distribution printed as a row of the table) and in how
/// many writes the first call after the finish listed it.
async fn write_then_list(
    cluster: &Cluster,
    project: &Project,
    what: &str,
    target: impl Fn(usize) -> String,
) -> Result<(Duration, usize)> {
    let mut reflected = Vec::with_capacity(WRITES);
    let mut first_call_reflected = 0;
    for k in 0..WRITES {
        let target = target(k);
        let path = project.dir.path().join(&target);
        std::fs::create_dir_all(path.parent().unwrap_or(project.dir.path()))?;
        std::fs::write(&path, format!("---\nname: new{k}\n---\n"))?;
        resync(cluster, &project.admin, &project.name, "repo").await?;
        let finished = Instant::now();
        let mut calls = 0;
        loop {
            calls += 1;
            let seen = visible(cluster, &project.member, scope(&project.name, "a1", "")).await?;
            if seen.iter().any(|(p, _)| *p == target) {
                break;
            }
        }
        reflected.push(finished.elapsed());
        first_call_reflected += usize::from(calls == 1);
    }
    let (reflected50, _) = summary(
        &format!("write finish -> ListPackages reflecting it (Redis bus), {what}"),
        reflected,
    );
    Ok((reflected50, first_call_reflected))
}

async fn measure(cluster: &Cluster, project: &Project, other: &Project) -> Result<Figures> {
    let caller = CallerToken::new(Some(project.member.clone()));
    let request = || pb::ListPackagesRequest {
        scope: scope(&project.name, "a1", ""),
        ..Default::default()
    };
    let answer = cluster
        .discovery
        .list_packages(caller.clone(), request())
        .await?;
    let listed: usize = answer.packages.iter().map(|p| p.files.len()).sum();
    println!(
        "\n### {} files: a ListPackages answer holds {} packages, {listed} files, {} bytes\n",
        project.files,
        answer.packages.len(),
        prost::Message::encoded_len(&answer)
    );
    for _ in 0..50 {
        cluster
            .discovery
            .list_packages(caller.clone(), request())
            .await?;
    }
    let mut list = Vec::with_capacity(calls());
    for _ in 0..calls() {
        let t = Instant::now();
        cluster
            .discovery
            .list_packages(caller.clone(), request())
            .await?;
        list.push(t.elapsed());
    }
    println!("| call | n | p50 | p99 |\n| --- | --- | --- | --- |");
    let (list50, _) = summary("ListPackages, warm", list);

    let before = counters();
    // A skill added inside a package (the package's files are grouped again), then a
    // new package (the roots move: the files below it are split again).
    let (reflected, first_inside) = write_then_list(cluster, project, "inside a package", |k| {
        format!("tools/t0/skills/new{k}/SKILL.md")
    })
    .await?;
    let (new_package, first_new) = write_then_list(cluster, project, "a new package", |k| {
        format!("tools/n{k}/skills/s/SKILL.md")
    })
    .await?;

    // A cold fill: the other project's call evicts this one (max_projects = 1).
    let mut cold = Vec::with_capacity(WRITES);
    for _ in 0..WRITES {
        visible(cluster, &other.member, scope(&other.name, "a1", "")).await?;
        let t = Instant::now();
        visible(cluster, &project.member, scope(&project.name, "a1", "")).await?;
        cold.push(t.elapsed());
    }
    let (cold50, _) = summary("cold fill (evicted, full re-read)", cold);
    let db = cluster.data_dir("sync").join("index.db");
    let mut plain = Vec::with_capacity(WRITES);
    let mut read = 0;
    for _ in 0..WRITES {
        let (took, rows) = plain_read(&db, &project.name)?;
        read = rows;
        plain.push(took);
    }
    println!("(the plain query read {read} rows)");
    let (plain50, _) = summary("the same rows, plain query (baseline)", plain);
    let held = neuralis_metrics::render()
        .lines()
        .find_map(|l| {
            l.strip_prefix("neuralis_inventory_bytes ")?
                .trim()
                .parse::<f64>()
                .ok()
        })
        .unwrap_or(0.0);
    println!(
        "
inventory holds {held:.0} bytes (its weighing) for {} rows: {:.0} bytes per row",
        project.files,
        held / project.files as f64
    );
    println!(
        "\nthe first call after the finish reflected the write in {first_inside} of {WRITES} \
         writes inside a package, {first_new} of {WRITES} new packages\n\
         inventory counters before the writes: {before}\nafter the writes and cold fills: {}",
        counters()
    );
    Ok(Figures {
        list: list50,
        reflected,
        new_package,
        cold: cold50,
        plain: plain50,
    })
}

/// Latencies of `calls()` no-op gRPC calls (health Check), one after another.
async fn noop(health: &mut HealthClient<tonic::transport::Channel>) -> Result<Vec<Duration>> {
    let mut noop = Vec::with_capacity(calls());
    for _ in 0..calls() {
        let t = Instant::now();
        health
            .check(HealthCheckRequest {
                service: String::new(),
            })
            .await?;
        noop.push(t.elapsed());
    }
    Ok(noop)
}

#[tokio::main]
async fn main() -> Result<()> {
    println!("allocator: {}", heap::ALLOCATOR);
    let redis = std::env::var("NEURALIS_TEST_REDIS_URL")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let settings = HashMap::from([
        ("NEURALIS__SYNC__BUS__KIND".to_owned(), "redis".to_owned()),
        ("NEURALIS__SYNC__BUS__URL".to_owned(), redis),
        (
            "NEURALIS__SYNC__BUS__CHANNEL".to_owned(),
            "neuralis:bench".to_owned(),
        ),
        (
            "NEURALIS__DISCOVERY__INVENTORY__MAX_PROJECTS".to_owned(),
            "1".to_owned(),
        ),
        (
            "NEURALIS__TELEMETRY__LOG_FILTER".to_owned(),
            "warn".to_owned(),
        ),
    ]);
    let cluster = Cluster::all_in_one(settings).await?;
    let small = make(&cluster, "bench-10k", 96).await?;
    let large = make(&cluster, "bench-100k", 996).await?;
    // Live heap with each project held, after a warm call (the fill's passing buffers
    // freed), measured first: nothing else has run yet to leave garbage behind.
    let mut heap_held = Vec::new();
    for project in [&small, &large] {
        for _ in 0..2 {
            visible(&cluster, &project.member, scope(&project.name, "a1", "")).await?;
        }
        heap_held.push((heap::live_bytes(), heap::inventory_weighing()));
    }
    println!(
        "{}",
        heap::report(heap_held[0], heap_held[1], large.files - small.files)
    );

    let channel =
        tonic::transport::Endpoint::from_shared(format!("http://{}", cluster.addrs["discovery"]))?
            .connect()
            .await?;
    let mut health = HealthClient::new(channel);
    println!("\n| call | n | p50 | p99 |\n| --- | --- | --- | --- |");
    let (noop50, _) = summary("no-op gRPC (health Check)", noop(&mut health).await?);

    let f10 = measure(&cluster, &small, &large).await?;
    // Resident memory with the small project held, then the large one (a cross-check
    // of the weighing: the allocator may keep freed pages, so it is a rough figure).
    visible(&cluster, &small.member, scope(&small.name, "a1", "")).await?;
    let rss_small = resident_bytes();
    visible(&cluster, &large.member, scope(&large.name, "a1", "")).await?;
    let rss_large = resident_bytes();
    println!(
        "
resident memory: {:.1} MiB with the 10k project held, {:.1} MiB with the 100k one: \
         {:.0} bytes per extra row",
        rss_small as f64 / 1048576.0,
        rss_large as f64 / 1048576.0,
        (rss_large as f64 - rss_small as f64) / (large.files - small.files) as f64
    );
    let f100 = measure(&cluster, &large, &small).await?;

    // The same no-op again after every figure: the ratios divide by the first, so how
    // far the second moved says how steady that baseline was over the run.
    let (after50, _) = summary(
        "no-op gRPC (health Check), after the figures",
        noop(&mut health).await?,
    );
    println!(
        "no-op p50 after the figures / before: {:.2}",
        after50.as_secs_f64() / noop50.as_secs_f64()
    );
    let x = |a: Duration| a.as_secs_f64() / noop50.as_secs_f64();
    println!(
        "\n## Ratios (p50, to the no-op p50 of {:.3} ms)\n",
        ms(noop50)
    );
    println!("| figure | 10k files | 100k files | 100k / 10k |\n| --- | --- | --- | --- |");
    for (name, a, b) in [
        ("ListPackages, warm", f10.list, f100.list),
        ("finish -> reflected", f10.reflected, f100.reflected),
        (
            "finish -> reflected, a new package",
            f10.new_package,
            f100.new_package,
        ),
        ("cold fill", f10.cold, f100.cold),
    ] {
        println!(
            "| {name} | {:.3} ms = {:.1}x | {:.3} ms = {:.1}x | {:.2} |",
            ms(a),
            x(a),
            ms(b),
            x(b),
            b.as_secs_f64() / a.as_secs_f64()
        );
    }
    println!("\n| cold fill against | 10k files | 100k files |\n| --- | --- | --- |");
    let over = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!(
        "| the first sync | {:.3}x | {:.3}x |\n| the plain query | {:.2}x | {:.2}x |",
        over(f10.cold, small.first_sync),
        over(f100.cold, large.first_sync),
        over(f10.cold, f10.plain),
        over(f100.cold, f100.plain)
    );
    cluster.stop().await
}
