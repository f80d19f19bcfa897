//! A load loop, not a micro-benchmark: syncs a synthetic tree (100,000 files by
//! default, a few percent markdown contributions) on each store and prints, as markdown
//! for BENCHMARKS.md, a full sync and a no-change re-sync as ratios to two baselines
//! measured on the same tree in the same round: ripgrep reading every file (`rg -uuu`,
//! the mean of a run right before the full sync and one right after it), and a plain
//! parallel walk that stats every file. Each round uses a fresh store; the rounds show
//! the spread on a shared machine, the summary their median.
//!
//! `cargo bench -p neuralis-sync --bench sync_tree`. Settings, from the environment:
//! `NEURALIS_BENCH_FILES` (tree size), `NEURALIS_BENCH_ROUNDS` (default 3),
//! `NEURALIS_BENCH_STORES` (`embedded,postgres`), `NEURALIS_BENCH_BATCH` (rows per
//! batch; the service's default otherwise), `NEURALIS_BENCH_TREE` (a folder to
//! keep the tree in between runs, generated when missing); PostgreSQL runs when
//! `NEURALIS_TEST_DATABASE_URL` (or the local default) answers. Without ripgrep the rg
//! columns say so and the walk ratios still print.

mod baseline;
mod tree;

use neuralis_bus::InProcessBus;
use neuralis_index::{IndexStore, ScopeKind, SourceKind, SourceRecord, SqlIndexStore, SyncStatus};
use neuralis_sync::layout_rules::LayoutCore;
use neuralis_sync::{SyncConfig, SyncParts, SyncService};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const PROJECT: &str = "bench";
const SLUG: &str = "tree";

/// One store's figures in one round.
struct Round {
    ripgrep: Option<Duration>,
    walk: Duration,
    full: Duration,
    resync: Duration,
    files_indexed: u64,
    chunks_written: u64,
}

fn main() {
    // Under `cargo test --all-targets` a smoke test on a small tree rather than a
    // minute-long benchmark.
    let tree::Settings { files, rounds } = tree::Settings::from_env(3);
    let stores = std::env::var("NEURALIS_BENCH_STORES").unwrap_or("embedded,postgres".into());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let tree = tree::Tree::at(std::env::var_os("NEURALIS_BENCH_TREE"), files);
    let markdown = tree::markdown_files(files);
    println!(
        "tree: {files} files, {markdown} markdown contributions ({:.1} %)",
        100.0 * markdown as f64 / files as f64
    );
    if !baseline::ripgrep_installed() {
        println!(
            "ripgrep (rg) is not installed: the rg baseline is skipped (apt-get install ripgrep)"
        );
    }
    // Warm up: the tree was just written; the first pass over it pays for that.
    let _ = baseline::ripgrep(tree.path());
    let _ = baseline::parallel_walk(tree.path());
    println!();
    println!(
        "| round | store | rg -uuu | walk | full sync | full / rg | full / walk | no-change re-sync | re-sync / walk | re-sync / rg | file rows/s |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut results: Vec<(&str, Round)> = Vec::new();
    for round in 1..=rounds {
        if stores.contains("embedded") {
            let measured = runtime.block_on(embedded_round(tree.path()));
            print_row(round, "embedded (SQLite)", &measured);
            results.push(("embedded (SQLite)", measured));
        }
        if stores.contains("postgres") {
            match runtime.block_on(postgres_round(tree.path(), round)) {
                Ok(measured) => {
                    print_row(round, "PostgreSQL", &measured);
                    results.push(("PostgreSQL", measured));
                }
                Err(err) => println!("| {round} | PostgreSQL | not run: {err} | | | | | | | | |"),
            }
        }
    }
    println!();
    for store in ["embedded (SQLite)", "PostgreSQL"] {
        summarize(
            store,
            results.iter().filter(|(s, _)| *s == store).map(|(_, r)| r),
        );
    }
}

async fn embedded_round(root: &Path) -> Round {
    let index = tempfile::tempdir().expect("tempdir");
    let store = SqlIndexStore::open_embedded(&index.path().join("index.db"))
        .await
        .expect("embedded");
    let measured = measure(Arc::new(store.clone()), root).await;
    store.close().await;
    measured
}

async fn postgres_round(root: &Path, round: usize) -> Result<Round, String> {
    let url = std::env::var("NEURALIS_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let schema = format!("bench_{}_{round}", std::process::id());
    let store = SqlIndexStore::connect_postgres(&url, &schema)
        .await
        .map_err(|err| err.to_string())?;
    let measured = measure(Arc::new(store.clone()), root).await;
    store.close().await;
    drop_schema(&url, &schema).await;
    Ok(measured)
}

/// Baselines first, then a full sync into the empty store, then a no-change re-sync.
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

async fn measure(store: Arc<dyn IndexStore>, root: &Path) -> Round {
    // ripgrep runs right before the full sync and right after it, and the baseline is
    // the mean of the two: on a shared machine whose speed drifts over seconds, one run
    // on one side alone moved the ratio by a quarter.
    let walk = baseline::parallel_walk(root);
    let ripgrep_before = baseline::ripgrep(root);
    let defaults = SyncConfig::default();
    let config = SyncConfig {
        max_file_size: 1024 * 1024,
        batch_size: std::env::var("NEURALIS_BENCH_BATCH")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(defaults.batch_size),
        ..defaults
    };
    let parts = SyncParts {
        store: Arc::clone(&store),
        bus: Arc::new(InProcessBus::default()),
        rules: Arc::new(LayoutCore),
        embedder: None,
        verifiers: verifiers(),
        forgetter: Arc::new(neuralis_sync::NoForget),
        kept_dirs: Vec::new(),
        require_allowed_roots: false,
        data_excludes: Vec::new(),
    };
    let service = SyncService::from_parts(&config, parts)
        .await
        .expect("service");
    store
        .create_source(&source(root))
        .await
        .expect("source created");
    let started = Instant::now();
    let full = service
        .local()
        .sync_now(PROJECT, SLUG)
        .await
        .expect("full sync");
    let full_time = started.elapsed();
    let ripgrep = baseline::ripgrep(root)
        .zip(ripgrep_before)
        .map(|(after, before)| (after + before) / 2);
    let started = Instant::now();
    let again = service
        .local()
        .sync_now(PROJECT, SLUG)
        .await
        .expect("re-sync");
    let resync = started.elapsed();
    assert_eq!(
        again.counters.files_indexed, 0,
        "a no-change re-sync writes nothing"
    );
    Round {
        ripgrep,
        walk,
        full: full_time,
        resync,
        files_indexed: full.counters.files_indexed,
        chunks_written: full.counters.chunks_written,
    }
}

fn source(root: &Path) -> SourceRecord {
    SourceRecord {
        id: format!("{PROJECT}/{SLUG}.0000000000000001"),
        project: PROJECT.into(),
        slug: SLUG.into(),
        kind: SourceKind::Local,
        root: root.to_str().expect("utf-8").into(),
        machine_uri: None,
        scope: ScopeKind::Project,
        owner: None,
        trigger: "manual".into(),
        privacy_patterns: Vec::new(),
        exclude_globs: Vec::new(),
        recognizes_packages: false,
        status: SyncStatus::default(),
        created_at: 0,
        updated_at: 0,
    }
}

fn ratio(time: Duration, base: Option<Duration>) -> Option<f64> {
    base.map(|base| time.as_secs_f64() / base.as_secs_f64())
}

fn shown(value: Option<f64>, unit: &str) -> String {
    value.map_or("rg missing".into(), |v| format!("{v:.2}{unit}"))
}

fn print_row(round: usize, store: &str, r: &Round) {
    let seconds = |d: Duration| d.as_secs_f64();
    println!(
        "| {round} | {store} | {} | {:.3} s | {:.2} s | {} | {:.1}x | {:.3} s | {:.2}x | {} | {:.0} ({} chunk rows) |",
        shown(r.ripgrep.map(seconds), " s"),
        seconds(r.walk),
        seconds(r.full),
        shown(ratio(r.full, r.ripgrep), "x"),
        seconds(r.full) / seconds(r.walk),
        seconds(r.resync),
        seconds(r.resync) / seconds(r.walk),
        shown(ratio(r.resync, r.ripgrep), "x"),
        r.files_indexed as f64 / seconds(r.full),
        r.chunks_written,
    );
}

/// The spread of each ratio over the rounds.
fn summarize<'a>(store: &str, rounds: impl Iterator<Item = &'a Round>) {
    let rounds: Vec<&Round> = rounds.collect();
    if rounds.is_empty() {
        return;
    }
    let spread = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        let (low, high) = (values[0], values[values.len() - 1]);
        let middle = values.len() / 2;
        let median = if values.len().is_multiple_of(2) {
            (values[middle - 1] + values[middle]) / 2.0
        } else {
            values[middle]
        };
        format!("{low:.2}–{high:.2}x (median {median:.2}x)")
    };
    let full_rg: Vec<f64> = rounds
        .iter()
        .filter_map(|r| ratio(r.full, r.ripgrep))
        .collect();
    let resync_walk: Vec<f64> = rounds
        .iter()
        .filter_map(|r| ratio(r.resync, Some(r.walk)))
        .collect();
    let full_rg = if full_rg.is_empty() {
        "rg missing".into()
    } else {
        spread(full_rg)
    };
    println!(
        "{store}, {} rounds: full sync / rg {full_rg}; no-change re-sync / walk {}",
        rounds.len(),
        spread(resync_walk)
    );
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
