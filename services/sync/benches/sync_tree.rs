//! A load loop, not a micro-benchmark: syncs a synthetic tree (100,000 files by
//! default, a few percent markdown contributions) on each store and prints, as
//! markdown for BENCHMARKS.md, a full sync and a no-change re-sync as ratios to a plain
//! parallel walk of the same tree measured in the same run, and index rows written per
//! second.
//!
//! `cargo bench -p neuralis-sync --bench sync_tree`; `NEURALIS_BENCH_FILES` changes
//! the size; PostgreSQL runs when `NEURALIS_TEST_DATABASE_URL` (or the local default)
//! answers.

use neuralis_bus::InProcessBus;
use neuralis_index::{IndexStore, SqlIndexStore};
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::layout_rules::LayoutCore;
use neuralis_sync::{SyncConfig, SyncParts, SyncService};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

const PROJECT: &str = "bench";

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this target too,
    // as a smoke test on a small tree rather than a minute-long benchmark.
    let benching = std::env::args().any(|arg| arg == "--bench");
    let files: usize = std::env::var("NEURALIS_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if benching { 100_000 } else { 2_000 });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let tree = tempfile::tempdir().expect("tempdir");
    let markdown = generate(tree.path(), files);
    println!(
        "tree: {files} files, {markdown} markdown contributions ({:.1} %)",
        100.0 * markdown as f64 / files as f64
    );
    let walk = best_of(3, || parallel_walk(tree.path()));
    println!(
        "plain parallel walk (2 threads, stat only): {:.3} s",
        walk.as_secs_f64()
    );
    println!();
    println!(
        "| store | full sync | ratio to walk | no-change re-sync | ratio to walk | file rows/s | chunk rows/s |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    let index = tempfile::tempdir().expect("tempdir");
    let embedded = runtime.block_on(async {
        Arc::new(
            SqlIndexStore::open_embedded(&index.path().join("index.db"))
                .await
                .expect("embedded"),
        ) as Arc<dyn IndexStore>
    });
    runtime.block_on(measure("embedded (SQLite)", embedded, tree.path(), walk));
    let url = std::env::var("NEURALIS_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let schema = format!("bench_{}", std::process::id());
    match runtime.block_on(SqlIndexStore::connect_postgres(&url, &schema)) {
        Ok(store) => {
            runtime.block_on(measure("PostgreSQL", Arc::new(store), tree.path(), walk));
            runtime.block_on(drop_schema(&url, &schema));
        }
        Err(err) => println!("| PostgreSQL | not run: {err} | | | | | |"),
    }
}

/// Verifiers nobody presents a credential to (the benchmark calls no RPC).
fn verifiers() -> Arc<neuralis_authz::Verifiers> {
    use neuralis_identity::{
        IdentityConfig, KeySource, Secret, ServiceIdentityConfig, ServiceVerifier, Verifier,
    };
    let hs256 = |secret: &str| KeySource::Hs256 {
        secret: Secret::new(secret),
    };
    let callers = Verifier::from_config(&IdentityConfig {
        keys: hs256("benchmark-caller-secret-of-32-bytes!!"),
        ..IdentityConfig::default()
    })
    .expect("verifier");
    let services = ServiceVerifier::from_config(&ServiceIdentityConfig {
        keys: hs256("benchmark-service-secret-of-32-bytes!"),
        ..ServiceIdentityConfig::default()
    })
    .expect("verifier");
    Arc::new(neuralis_authz::Verifiers::new(
        Arc::new(callers),
        Arc::new(services),
        &[],
    ))
}

async fn measure(name: &str, store: Arc<dyn IndexStore>, root: &Path, walk: Duration) {
    let config = SyncConfig {
        max_file_size: 1024 * 1024,
        ..SyncConfig::default()
    };
    let parts = SyncParts {
        store,
        bus: Arc::new(InProcessBus::default()),
        rules: Arc::new(LayoutCore),
        embedder: None,
        verifiers: verifiers(),
    };
    let service = SyncService::from_parts(&config, parts)
        .await
        .expect("service");
    let spec = pb::SourceSpec {
        project: PROJECT.into(),
        slug: "tree".into(),
        kind: pb::SourceKind::Local as i32,
        root: root.to_str().expect("utf-8").into(),
        ..Default::default()
    };
    // Straight into the store: the benchmark measures syncing, not the API.
    let record = neuralis_sync::source::record_from_spec(&spec, 0).expect("spec");
    service
        .store()
        .create_source(&record)
        .await
        .expect("source");
    let started = Instant::now();
    let full = service
        .local()
        .sync_now(PROJECT, "tree")
        .await
        .expect("full sync");
    let full_time = started.elapsed();
    let again = best_of_async(3, || async {
        let started = Instant::now();
        let run = service
            .local()
            .sync_now(PROJECT, "tree")
            .await
            .expect("re-sync");
        assert_eq!(
            run.counters.files_indexed, 0,
            "a no-change re-sync writes nothing"
        );
        started.elapsed()
    })
    .await;
    let seconds = full_time.as_secs_f64();
    println!(
        "| {name} | {seconds:.2} s | {:.1}x | {:.3} s | {:.1}x | {:.0} | {:.0} |",
        seconds / walk.as_secs_f64(),
        again.as_secs_f64(),
        again.as_secs_f64() / walk.as_secs_f64(),
        full.counters.files_indexed as f64 / seconds,
        full.counters.chunks_written as f64 / seconds,
    );
}

/// A deterministic tree: code and data files in many folders, and packages whose
/// skills, rules and docs make up about 3 % of the files.
fn generate(root: &Path, files: usize) -> usize {
    let mut markdown = 0;
    for n in 0..files {
        let (path, content) = if n % 33 == 0 {
            markdown += 1;
            contribution(n)
        } else {
            (
                PathBuf::from(format!("src/area{}/module{}/file{n}.rs", n % 50, n % 977)),
                code(n),
            )
        };
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, content).expect("write");
    }
    markdown
}

fn contribution(n: usize) -> (PathBuf, String) {
    let package = format!("packages/pkg{}", n % 40);
    match n % 3 {
        0 => (
            PathBuf::from(format!("{package}/skills/skill{n}/SKILL.md")),
            format!(
                "---\nname: skill{n}\ndescription: does thing {n}\n---\n# Skill {n}\n\nSteps.\n\n## Notes\n\nMore.\n"
            ),
        ),
        1 => (
            PathBuf::from(format!("{package}/rules/rule{n}.md")),
            format!("---\nname: rule{n}\n---\nAlways do {n}.\n"),
        ),
        _ => (
            PathBuf::from(format!("{package}/.claude/docs/doc{n}.md")),
            format!("---\ntitle: Doc {n}\n---\n# Doc\n\nText {n}.\n"),
        ),
    }
}

fn code(n: usize) -> String {
    format!("// file {n}\npub fn f{n}(x: u64) -> u64 {{\n    x.wrapping_mul({n})\n}}\n")
}

/// Lists and stats every file with two threads, reading nothing.
fn parallel_walk(root: &Path) -> usize {
    let tops: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("root")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    let mut dirs: Vec<PathBuf> = tops
        .iter()
        .filter(|p| p.is_dir())
        .flat_map(|p| {
            std::fs::read_dir(p)
                .expect("dir")
                .filter_map(|e| e.ok().map(|e| e.path()))
        })
        .collect();
    let half = dirs.len() / 2;
    let second = dirs.split_off(half);
    let count = |dirs: Vec<PathBuf>| move || dirs.into_iter().map(|d| walk_dir(&d)).sum::<usize>();
    let other = std::thread::spawn(count(second));
    count(dirs)() + other.join().expect("thread")
}

fn walk_dir(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return usize::from(std::fs::metadata(dir).is_ok());
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| match entry.metadata() {
            Ok(meta) if meta.is_dir() => walk_dir(&entry.path()),
            Ok(_) => 1,
            Err(_) => 0,
        })
        .sum()
}

fn best_of(runs: usize, mut work: impl FnMut() -> usize) -> Duration {
    (0..runs)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(work());
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

async fn best_of_async<F, Fut>(runs: usize, mut work: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Duration>,
{
    let mut best = Duration::MAX;
    for _ in 0..runs {
        best = best.min(work().await);
    }
    best
}

async fn drop_schema(url: &str, schema: &str) {
    use sqlx::Connection;
    if let Ok(mut connection) = sqlx::PgConnection::connect(url).await {
        let statement = format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE");
        let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
            .execute(&mut connection)
            .await;
    }
}
