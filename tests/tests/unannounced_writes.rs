//! Issue 27, "recovery windows": a write nobody announced (another sync instance on
//! another bus channel) is caught when the recovery window revalidates, at a cost in
//! proportion to the change: a delta since the revision held, only the written source
//! regrouped, no full re-read of the project.
//!
//! Two real processes on one PostgreSQL schema: A runs every service and hears only
//! its own bus channel; B runs sync alone and announces on another channel, so A's
//! discovery never hears B's writes.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use futures::StreamExt as _;
use neuralis::node::keys::{TokenFor, mint_token};
use neuralis_discovery::DiscoveryApi;
use neuralis_discovery::grpc::DiscoveryGrpcClient;
use neuralis_identity::{BearerToken, Secret};
use neuralis_policy::PolicyApi;
use neuralis_policy::grpc::PolicyGrpcClient;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_proto::sync::v1 as sync;
use neuralis_sync::SourceApi;
use neuralis_sync::grpc::SourceGrpcClient;
use neuralis_tests::cluster::{channel, eventually};
use neuralis_tests::fixture::{read_policy, write_tree};
use neuralis_tests::process::{Process, SECRET, http_get, spawn};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "quiet";

struct Schema {
    database: String,
    name: String,
}

impl Drop for Schema {
    fn drop(&mut self) {
        let sql = format!("DROP SCHEMA IF EXISTS {} CASCADE;", self.name);
        let _ = Command::new("psql")
            .arg(&self.database)
            .args(["-q", "-c", &sql])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn env(schema: &Schema, channel: &str) -> HashMap<String, String> {
    let redis = std::env::var("NEURALIS_TEST_REDIS_URL")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    HashMap::from([
        ("NEURALIS__SYNC__INDEX__KIND".into(), "postgres".into()),
        ("NEURALIS__SYNC__INDEX__URL".into(), schema.database.clone()),
        ("NEURALIS__SYNC__INDEX__SCHEMA".into(), schema.name.clone()),
        ("NEURALIS__SYNC__BUS__KIND".into(), "redis".into()),
        ("NEURALIS__SYNC__BUS__URL".into(), redis),
        ("NEURALIS__SYNC__BUS__CHANNEL".into(), channel.into()),
        (
            "NEURALIS__SYNC__ALLOWED_ROOTS".into(),
            std::env::temp_dir().display().to_string(),
        ),
        (
            "NEURALIS__DISCOVERY__INVENTORY__RECOVERY_WINDOW_MS".into(),
            "200".into(),
        ),
        // Only DeleteSource asks policy from a sync-only process.
        (
            "NEURALIS__PEERS__POLICY_URL".into(),
            "http://127.0.0.1:9".into(),
        ),
    ])
}

fn token(subject: &str, role: &str) -> BearerToken {
    let minted = mint_token(
        &Secret::new(SECRET.to_owned()),
        TokenFor {
            subject: subject.into(),
            role: role.into(),
            project: Some(P.into()),
            ttl_seconds: 600,
            ..TokenFor::default()
        },
    )
    .unwrap();
    BearerToken::new(Some(minted))
}

fn sources(process: &Process) -> SourceGrpcClient {
    SourceGrpcClient::new(channel(process.grpc, None).unwrap())
}

async fn register(a: &Process, slug: &str, root: &Path) {
    let spec = sync::SourceSpec {
        project: P.into(),
        slug: slug.into(),
        kind: sync::SourceKind::Local as i32,
        root: root.display().to_string(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        ..Default::default()
    };
    let created = sources(a)
        .create_source(
            &token("ops", "owner"),
            sync::CreateSourceRequest { source: Some(spec) },
        )
        .await
        .unwrap();
    let policy = PolicyGrpcClient::new(channel(a.grpc, None).unwrap(), 4 << 20);
    let request = policy::PutSourcePolicyRequest {
        source_id: created.source.unwrap().id,
        policy: Some(read_policy(vec![])),
    };
    policy
        .put_source_policy(token("ops", "owner"), request)
        .await
        .unwrap();
    run_sync(a, slug).await;
}

async fn run_sync(process: &Process, slug: &str) {
    let request = sync::SyncSourceRequest {
        project: P.into(),
        slug: slug.into(),
    };
    let mut progress = sources(process)
        .sync_source(&token("ops", "owner"), request)
        .await
        .unwrap();
    while let Some(update) = progress.next().await {
        update.unwrap();
    }
}

async fn listed_ids(a: &Process) -> Vec<String> {
    let discovery = DiscoveryGrpcClient::new(channel(a.grpc, None).unwrap());
    let request = discovery::ListPackagesRequest {
        scope: Some(discovery::Scope {
            project_id: P.into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    let answer = discovery
        .list_packages(token("ada", "member"), request)
        .await
        .unwrap();
    answer
        .packages
        .iter()
        .flat_map(|p| &p.files)
        .map(|f| f.id.clone())
        .collect()
}

/// A counter on A's `/metrics`, 0 before its first update.
async fn counter(a: &Process, line_prefix: &str) -> f64 {
    let (_, text) = http_get(a.admin.unwrap(), "/metrics").await;
    text.lines()
        .find_map(|l| l.strip_prefix(line_prefix)?.trim().parse().ok())
        .unwrap_or(0.0)
}

async fn costs(a: &Process) -> (f64, f64, f64) {
    (
        counter(a, "neuralis_inventory_refills_total{kind=\"full\"} ").await,
        counter(a, "neuralis_inventory_refills_total{kind=\"delta\"} ").await,
        counter(a, "neuralis_inventory_regroups_total ").await,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unannounced_write_is_caught_by_a_delta_that_regroups_only_its_source() {
    let mut random = [0u8; 4];
    getrandom::fill(&mut random).unwrap();
    let schema = Schema {
        database: std::env::var("NEURALIS_TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into()),
        name: format!("uw_{}", hex::encode(random)),
    };
    let (repo, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_tree(
        repo.path(),
        &[(".claude/skills/one/SKILL.md", "---\nname: zqone\n---\n")],
    )
    .unwrap();
    write_tree(
        other.path(),
        &[(".claude/skills/two/SKILL.md", "---\nname: zqtwo\n---\n")],
    )
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let a = spawn(
        NODE,
        &["--listen", "127.0.0.1:0"],
        &env(&schema, &format!("neuralis:{}:a", schema.name)),
        &data.path().join("a"),
    );
    let b = spawn(
        NODE,
        &[
            "--target",
            "sync",
            "--listen",
            "127.0.0.1:0",
            "--internal-listen",
            "127.0.0.1:0",
        ],
        &env(&schema, &format!("neuralis:{}:b", schema.name)),
        &data.path().join("b"),
    );
    register(&a, "repo", repo.path()).await;
    register(&a, "other", other.path()).await;
    let mut before = listed_ids(&a).await;
    before.sort();
    assert_eq!(before, ["zqone", "zqtwo"]);
    let (full, deltas, regroups) = costs(&a).await;

    // B syncs a new skill of `repo`; A hears nothing of it.
    write_tree(
        repo.path(),
        &[(".claude/skills/fresh/SKILL.md", "---\nname: zqfresh\n---\n")],
    )
    .unwrap();
    run_sync(&b, "repo").await;
    let caught = eventually(Duration::from_secs(20), || async {
        listed_ids(&a).await.contains(&"zqfresh".to_owned())
    })
    .await;
    assert!(caught, "the recovery window catches the unannounced write");

    let (full_after, deltas_after, regroups_after) = costs(&a).await;
    assert_eq!(full_after, full, "no full re-read of the project");
    assert!(deltas_after > deltas, "caught up by a delta");
    assert_eq!(
        regroups_after - regroups,
        1.0,
        "only the written source is regrouped; `other` is reused as it was"
    );
}
