//! Sync replicas that share the work (issue 26 item 1): real `neuralis-node --target
//! sync` processes on one PostgreSQL schema and one Redis channel. An `interval:` sync
//! runs once per period across replicas (counted from both replicas' `/metrics`), a
//! trigger changed through one replica is honoured by the other, killing one replica
//! under steady calls costs nothing with one client retry on the other, and a replica
//! started while PostgreSQL is down stays live and becomes ready once it answers.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use futures::StreamExt;
use neuralis::node::keys::{TokenFor, mint_token};
use neuralis_identity::{BearerToken, Secret};
use neuralis_proto::common::v1 as common;
use neuralis_proto::sync::v1 as sync;
use neuralis_sync::grpc::SourceGrpcClient;
use neuralis_sync::{SourceApi, SyncError};
use neuralis_tests::cluster::{channel, eventually};
use neuralis_tests::postgres::LocalPostgres;
use neuralis_tests::process::{Process, SECRET, SERVICE_SECRET, free_port, http_get, spawn};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const PERIOD: Duration = Duration::from_secs(1);

/// One PostgreSQL schema and Redis channel for the test's replicas, dropped after.
struct Shared {
    env: HashMap<String, String>,
    database: String,
    schema: String,
    data: tempfile::TempDir,
    root: tempfile::TempDir,
}

impl Shared {
    fn new(case: &str) -> Self {
        let mut random = [0u8; 4];
        getrandom::fill(&mut random).unwrap();
        let schema = format!("sr_{case}_{}", hex::encode(random));
        let database = std::env::var("NEURALIS_TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
        let redis = std::env::var("NEURALIS_TEST_REDIS_URL")
            .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
        let env = HashMap::from([
            ("NEURALIS__SYNC__INDEX__KIND".into(), "postgres".into()),
            ("NEURALIS__SYNC__INDEX__URL".into(), database.clone()),
            ("NEURALIS__SYNC__INDEX__SCHEMA".into(), schema.clone()),
            ("NEURALIS__SYNC__BUS__KIND".into(), "redis".into()),
            ("NEURALIS__SYNC__BUS__URL".into(), redis),
            (
                "NEURALIS__SYNC__BUS__CHANNEL".into(),
                format!("neuralis:{schema}"),
            ),
            // Only DeleteSource asks policy; the channel is lazy and never used here.
            (
                "NEURALIS__PEERS__POLICY_URL".into(),
                "http://127.0.0.1:9".into(),
            ),
            ("NEURALIS__SYNC__LEASE_TTL_MS".into(), "3000".into()),
            ("NEURALIS__SYNC__SOURCES_REFRESH_MS".into(), "500".into()),
            // Replicas taking turns at a one-second interval, well below the default
            // minimum (sync.schedule.min_interval_ms).
            (
                "NEURALIS__SYNC__SCHEDULE__MIN_INTERVAL_MS".into(),
                "1000".into(),
            ),
            (
                "NEURALIS__SYNC__ALLOWED_ROOTS".into(),
                std::env::temp_dir().display().to_string(),
            ),
        ]);
        let root = tempfile::tempdir().unwrap();
        write(
            root.path(),
            ".claude/skills/one/SKILL.md",
            "---\nname: one\n---\n",
        );
        Self {
            env,
            database,
            schema,
            data: tempfile::tempdir().unwrap(),
            root,
        }
    }

    fn replica(&self, name: &str) -> Process {
        let args = [
            "--target",
            "sync",
            "--listen",
            "127.0.0.1:0",
            "--internal-listen",
            "127.0.0.1:0",
        ];
        spawn(NODE, &args, &self.env, &self.data.path().join(name))
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        let sql = format!("DROP SCHEMA IF EXISTS {} CASCADE;", self.schema);
        let _ = Command::new("psql")
            .arg(&self.database)
            .args(["-q", "-c", &sql])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn write(root: &Path, path: &str, body: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
}

fn owner() -> BearerToken {
    let token = mint_token(
        &Secret::new(SECRET.to_owned()),
        TokenFor {
            subject: "ops".into(),
            role: "owner".into(),
            project: Some("p".into()),
            ttl_seconds: 600,
            ..TokenFor::default()
        },
    )
    .unwrap();
    BearerToken::new(Some(token))
}

fn client(addr: SocketAddr) -> SourceGrpcClient {
    SourceGrpcClient::new(channel(addr, None).unwrap())
}

fn spec(root: &Path, trigger: &str) -> sync::SourceSpec {
    sync::SourceSpec {
        project: "p".into(),
        slug: "repo".into(),
        kind: sync::SourceKind::Local as i32,
        root: root.display().to_string(),
        scope: common::SourceScope::Project as i32,
        trigger: trigger.into(),
        ..Default::default()
    }
}

async fn create(replica: &Process, root: &Path, trigger: &str) {
    client(replica.grpc)
        .create_source(
            &owner(),
            sync::CreateSourceRequest {
                source: Some(spec(root, trigger)),
            },
        )
        .await
        .unwrap();
}

/// The interval runs this replica counts on `/metrics`, whatever their outcome.
async fn interval_runs(replica: &Process) -> f64 {
    let (_, text) = http_get(replica.admin.unwrap(), "/metrics").await;
    text.lines()
        .filter(|line| {
            line.starts_with("neuralis_sync_runs_total{") && line.contains("trigger=\"interval\"")
        })
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

async fn runs_of(replicas: &[&Process]) -> f64 {
    let mut sum = 0.0;
    for replica in replicas {
        sum += interval_runs(replica).await;
    }
    sum
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_run_each_interval_sync_once_between_them() {
    let shared = Shared::new("once");
    let a = shared.replica("a");
    create(&a, shared.root.path(), "interval:1s").await;
    // B arms the source it finds stored at start.
    let b = shared.replica("b");
    let started = eventually(Duration::from_secs(10), || async {
        runs_of(&[&a, &b]).await >= 1.0
    })
    .await;
    assert!(started, "the interval trigger runs");

    let before = runs_of(&[&a, &b]).await;
    let clock = Instant::now();
    tokio::time::sleep(Duration::from_secs(6)).await;
    let runs = runs_of(&[&a, &b]).await - before;
    let periods = clock.elapsed().as_secs_f64() / PERIOD.as_secs_f64();
    // One run per period across both replicas (give or take the one at each edge),
    // where each replica on its own timer would make it two.
    assert!(
        (periods - 1.5..=periods + 1.5).contains(&runs),
        "{runs} interval runs in {periods:.1} periods across two replicas"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trigger_changed_through_one_replica_is_honoured_by_the_other() {
    let shared = Shared::new("switch");
    let a = shared.replica("a");
    create(&a, shared.root.path(), "interval:1s").await;
    let b = shared.replica("b");
    let running = eventually(Duration::from_secs(10), || async {
        runs_of(&[&a, &b]).await >= 2.0
    })
    .await;
    assert!(running, "the interval trigger runs");

    client(a.grpc)
        .update_source(
            &owner(),
            sync::UpdateSourceRequest {
                source: Some(spec(shared.root.path(), "manual")),
            },
        )
        .await
        .unwrap();
    // A run already started may finish; none starts after one period.
    tokio::time::sleep(PERIOD + Duration::from_millis(500)).await;
    let (a_before, b_before) = (interval_runs(&a).await, interval_runs(&b).await);
    tokio::time::sleep(PERIOD * 4).await;
    assert_eq!(interval_runs(&a).await, a_before, "A runs nothing");
    assert_eq!(
        interval_runs(&b).await,
        b_before,
        "B honours the switch to manual made through A"
    );
}

/// What the calls of the kill run came to.
#[derive(Debug, Default)]
struct Tally {
    sent: u32,
    /// First attempts that failed, by code (each was retried once on the other replica).
    retried: HashMap<String, u32>,
    /// Calls that failed after their retry.
    failed: u32,
    /// What each of them failed with (the figure alone did not say why).
    failures: Vec<String>,
    /// Answers that were not the source asked for, or a sync that did not end `done`.
    wrong: u32,
    /// The longest `SyncSource` after the kill (waiting out a lapsed lease included).
    longest_sync_after_kill: Duration,
}

/// One call through `first`, retried once through `second` when it was UNAVAILABLE
/// (the replica went away).
async fn call_with_one_retry(
    first: &SourceGrpcClient,
    second: &SourceGrpcClient,
    n: u32,
    tally: &mut Tally,
) -> Result<bool, SyncError> {
    match call(first, n).await {
        Err(SyncError::Unavailable(_)) => {
            *tally.retried.entry("UNAVAILABLE".into()).or_default() += 1;
            call(second, n).await
        }
        other => other,
    }
}

/// A read (GetSource) or, every third call, a write that syncs the source to the end:
/// whether the answer was right.
async fn call(client: &SourceGrpcClient, n: u32) -> Result<bool, SyncError> {
    if n.is_multiple_of(3) {
        let request = sync::SyncSourceRequest {
            project: "p".into(),
            slug: "repo".into(),
        };
        let mut progress = client.sync_source(&owner(), request).await?;
        let mut done = false;
        while let Some(update) = progress.next().await {
            done = update?.done;
        }
        Ok(done)
    } else {
        let request = sync::GetSourceRequest {
            project: "p".into(),
            slug: "repo".into(),
        };
        let answer = client.get_source(&owner(), request).await?;
        let slug = answer.source.and_then(|s| s.spec).map(|spec| spec.slug);
        Ok(slug.as_deref() == Some("repo"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_under_steady_calls_costs_nothing_with_one_retry() {
    let shared = Shared::new("kill");
    // A tree whose sync takes a while, so A dies holding the source's lease.
    for n in 0..1_500 {
        write(
            shared.root.path(),
            &format!("docs/{n}.md"),
            "# a page\n\nsome words\n",
        );
    }
    let mut a = shared.replica("a");
    let b = shared.replica("b");
    create(&a, shared.root.path(), "manual").await;
    let (to_a, to_b) = (client(a.grpc), client(b.grpc));
    assert!(call(&to_a, 3).await.unwrap(), "the first sync");
    let mut tally = Tally::default();
    let clock = Instant::now();
    let mut killed = None;
    while clock.elapsed() < Duration::from_secs(10) {
        if killed.is_none() && clock.elapsed() > Duration::from_secs(2) {
            // A is in the middle of a run (every file rewritten) when it dies.
            write(
                shared.root.path(),
                ".claude/skills/one/SKILL.md",
                "---\nname: two\n---\n",
            );
            for n in 0..1_500 {
                write(
                    shared.root.path(),
                    &format!("docs/{n}.md"),
                    "# a page\n\nnew words\n",
                );
            }
            let request = sync::SyncSourceRequest {
                project: "p".into(),
                slug: "repo".into(),
            };
            let mut running = to_a.sync_source(&owner(), request).await.unwrap();
            let _ = running.next().await;
            a.child.kill().unwrap();
            a.child.wait().unwrap();
            killed = Some(Instant::now());
        }
        // Calls alternate between the replicas, as a balancer would spread them.
        let (first, second) = if tally.sent.is_multiple_of(2) {
            (&to_a, &to_b)
        } else {
            (&to_b, &to_a)
        };
        tally.sent += 1;
        let started = Instant::now();
        match call_with_one_retry(first, second, tally.sent, &mut tally).await {
            Ok(true) => {}
            Ok(false) => tally.wrong += 1,
            Err(error) => {
                tally.failed += 1;
                tally.failures.push(format!("call {}: {error}", tally.sent));
            }
        }
        if killed.is_some() && tally.sent.is_multiple_of(3) {
            tally.longest_sync_after_kill = tally.longest_sync_after_kill.max(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The figures RELIABILITY.md quotes (`--nocapture`).
    eprintln!("sync replica killed: {tally:?}");
    assert!(killed.is_some() && tally.sent > 40, "{tally:?}");
    assert_eq!((tally.failed, tally.wrong), (0, 0), "{tally:?}");
    // A sync asked of B waits at most for A's lease to lapse (3 s here).
    assert!(
        tally.longest_sync_after_kill < Duration::from_secs(8),
        "{tally:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_started_while_postgres_is_down_is_live_and_becomes_ready_once_it_answers() {
    let postgres = LocalPostgres::start();
    postgres.halt();
    let mut shared = Shared::new("patient");
    shared
        .env
        .insert("NEURALIS__SYNC__INDEX__URL".into(), postgres.url());
    let admin: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let mut child = Command::new(NODE)
        .args(["--target", "sync", "--listen", "127.0.0.1:0"])
        .args(["--internal-listen", "127.0.0.1:0"])
        .args(["--admin-listen", &admin.to_string()])
        .arg("--data-dir")
        .arg(shared.data.path().join("patient"))
        .env_clear()
        .envs(&shared.env)
        .env("NEURALIS__IDENTITY__KEYS__KIND", "hs256")
        .env("NEURALIS__IDENTITY__KEYS__SECRET", SECRET)
        .env("NEURALIS__SERVICE_IDENTITY__KEYS__KIND", "hs256")
        .env("NEURALIS__SERVICE_IDENTITY__KEYS__SECRET", SERVICE_SECRET)
        .env("NEURALIS__TELEMETRY__LOG_FILTER", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let live = eventually(Duration::from_secs(20), || async move {
        tokio::net::TcpStream::connect(admin).await.is_ok()
            && http_get(admin, "/livez").await.0 == 200
    })
    .await;
    assert!(live, "live while its store is down");
    let (code, detail) = http_get(admin, "/readyz").await;
    assert_eq!(code, 503, "not ready while its store is down: {detail}");
    assert!(detail.contains("startup: failing"), "{detail}");
    assert!(child.try_wait().unwrap().is_none(), "still running");

    postgres.resume();
    let ready = eventually(Duration::from_secs(20), || async move {
        http_get(admin, "/readyz").await.0 == 200
    })
    .await;
    let (_, detail) = http_get(admin, "/readyz").await;
    let _ = child.kill();
    let _ = child.wait();
    assert!(ready, "ready once the store answers: {detail}");
    assert!(!detail.contains("startup"), "{detail}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_source_change_is_announced_to_the_other_replica_before_its_next_refresh() {
    let mut shared = Shared::new("notice");
    // Only the notice can tell B within the test.
    shared
        .env
        .insert("NEURALIS__SYNC__SOURCES_REFRESH_MS".into(), "600000".into());
    let mut a = shared.replica("a");
    let b = shared.replica("b");
    // B subscribes to the notices on a task of its own, right after it starts.
    tokio::time::sleep(Duration::from_secs(1)).await;
    create(&a, shared.root.path(), "manual").await;
    client(a.grpc)
        .update_source(
            &owner(),
            sync::UpdateSourceRequest {
                source: Some(spec(shared.root.path(), "interval:1s")),
            },
        )
        .await
        .unwrap();
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    let b_runs = eventually(Duration::from_secs(10), || async {
        interval_runs(&b).await >= 2.0
    })
    .await;
    assert!(b_runs, "B armed the interval set through A");
}
