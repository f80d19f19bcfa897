//! A patient start (issue 26 item 3): a policy process started while its store does not
//! answer, or answers with a schema its release has not migrated yet (check mode, before
//! `neuralis migrate up`), stays up, live and not ready, and turns ready once it can
//! serve, without a restart. (Sync's own case: `sync_replicas.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use neuralis_tests::cluster::eventually;
use neuralis_tests::postgres::LocalPostgres;
use neuralis_tests::process::{SECRET, SERVICE_SECRET, free_port, http_get, neuralis_binary};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const WAIT: Duration = Duration::from_secs(30);

/// A policy process on `store`, its admin port at the returned address.
fn policy(store: &HashMap<&str, String>, data: &std::path::Path) -> (Child, SocketAddr) {
    let admin: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let child = Command::new(NODE)
        .args(["--target", "policy", "--listen", "127.0.0.1:0"])
        .args(["--admin-listen", &admin.to_string()])
        .arg("--data-dir")
        .arg(data)
        .env_clear()
        .envs(store)
        .env("NEURALIS__POLICY__STORE__BACKEND", "postgres")
        .env("NEURALIS__IDENTITY__KEYS__KIND", "hs256")
        .env("NEURALIS__IDENTITY__KEYS__SECRET", SECRET)
        .env("NEURALIS__SERVICE_IDENTITY__KEYS__KIND", "hs256")
        .env("NEURALIS__SERVICE_IDENTITY__KEYS__SECRET", SERVICE_SECRET)
        .env("NEURALIS__TELEMETRY__LOG_FILTER", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    (child, admin)
}

/// Live, not ready, still running: what a pod waiting for its store shows.
async fn waiting(admin: SocketAddr, child: &mut Child) {
    let live = eventually(WAIT, || async move {
        tokio::net::TcpStream::connect(admin).await.is_ok()
            && http_get(admin, "/livez").await.0 == 200
    })
    .await;
    assert!(live, "live while it waits");
    let (code, detail) = http_get(admin, "/readyz").await;
    assert_eq!(code, 503, "not ready while it waits: {detail}");
    assert!(detail.contains("startup: failing"), "{detail}");
    assert!(child.try_wait().unwrap().is_none(), "still running");
}

async fn turns_ready(admin: SocketAddr, mut child: Child) {
    let ready = eventually(
        WAIT,
        || async move { http_get(admin, "/readyz").await.0 == 200 },
    )
    .await;
    let (_, detail) = http_get(admin, "/readyz").await;
    let _ = child.kill();
    let _ = child.wait();
    assert!(ready, "ready once it can serve: {detail}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_started_while_its_store_is_down_is_live_and_becomes_ready_once_it_answers() {
    let postgres = LocalPostgres::start();
    postgres.halt();
    let data = tempfile::tempdir().unwrap();
    let store = HashMap::from([("NEURALIS__POLICY__STORE__URL", postgres.url())]);
    let (mut child, admin) = policy(&store, data.path());
    waiting(admin, &mut child).await;
    postgres.resume();
    turns_ready(admin, child).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_in_check_mode_is_not_ready_until_migrate_up_has_run() {
    let url = std::env::var("NEURALIS_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let schema = format!("patient_{}", std::process::id());
    let data = tempfile::tempdir().unwrap();
    let store = HashMap::from([
        ("NEURALIS__POLICY__STORE__URL", url),
        ("NEURALIS__POLICY__STORE__SCHEMA", schema),
        ("NEURALIS__POLICY__MIGRATIONS", "check".to_owned()),
    ]);
    let (mut child, admin) = policy(&store, data.path());
    waiting(admin, &mut child).await;

    // What the chart's hook Job runs, once per release.
    let migrate = Command::new(neuralis_binary(NODE))
        .args(["migrate", "up", "--target", "policy"])
        .env_clear()
        .envs(&store)
        .env("NEURALIS__POLICY__STORE__BACKEND", "postgres")
        .output()
        .unwrap();
    assert!(
        migrate.status.success(),
        "{}",
        String::from_utf8_lossy(&migrate.stderr)
    );
    turns_ready(admin, child).await;
}
