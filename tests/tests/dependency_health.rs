//! Health that follows the stores and buses a service needs, with real servers the
//! tests stop and start: policy is NOT_SERVING while its access store (a PostgreSQL of
//! the test's own) is down and SERVING once it is back; discovery started while its
//! Redis is down still starts, serves in bypass and says so, and subscribes once a
//! Redis answers on that port.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures::StreamExt;
use neuralis::node::keys::{TokenFor, mint_token};
use neuralis_identity::{BearerToken, Secret};
use neuralis_policy::{PolicyApi, PolicyGrpcClient};
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_proto::sync::v1 as sync;
use neuralis_sync::SourceApi;
use neuralis_sync::grpc::SourceGrpcClient;
use neuralis_tests::cluster::{channel, eventually};
use neuralis_tests::postgres::LocalPostgres;
use neuralis_tests::process::{SECRET, free_port, health, http_get, spawn};
use tonic_health::pb::health_check_response::ServingStatus;

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const POLICY: &str = "neuralis.policy.v1.PolicyService";
const DISCOVERY: &str = "neuralis.discovery.v1.DiscoveryService";
const WAIT: Duration = Duration::from_secs(20);

/// Whether the process at `grpc`/`admin` reports `want` for `service` and overall, on
/// gRPC health and on `/readyz`, within [`WAIT`].
async fn reports(grpc: SocketAddr, admin: SocketAddr, service: &str, want: ServingStatus) -> bool {
    eventually(WAIT, || async move {
        let ready = http_get(admin, "/readyz").await.0 == 200;
        health(grpc, service).await == Some(want)
            && health(grpc, "").await == Some(want)
            && ready == (want == ServingStatus::Serving)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_is_not_serving_while_its_access_store_is_down_and_serving_once_it_is_back() {
    let postgres = LocalPostgres::start();
    let data = tempfile::tempdir().unwrap();
    let env = HashMap::from([
        ("NEURALIS__POLICY__STORE__BACKEND".into(), "postgres".into()),
        ("NEURALIS__POLICY__STORE__URL".into(), postgres.url()),
        ("NEURALIS__HEALTH_PROBE_INTERVAL_MS".into(), "200".into()),
    ]);
    let args = ["--target", "policy", "--listen", "127.0.0.1:0"];
    let node = spawn(NODE, &args, &env, data.path());
    let admin = node.admin.unwrap();
    assert!(
        reports(node.grpc, admin, POLICY, ServingStatus::Serving).await,
        "serving with its store up"
    );

    postgres.halt();
    assert!(
        reports(node.grpc, admin, POLICY, ServingStatus::NotServing).await,
        "NOT_SERVING while the store is down"
    );
    let (_, detail) = http_get(admin, "/readyz").await;
    assert!(detail.contains("access_store: failing"), "{detail}");
    // The process stays up: the pod is taken out of rotation, not restarted.
    assert_eq!(http_get(admin, "/livez").await.0, 200);
    // A call that needs the store fails fast and retryably (the pool's 1.5 s bound),
    // never at the caller's deadline.
    let bounded = tokio::time::timeout(Duration::from_secs(5), put_policy(node.grpc)).await;
    assert!(
        matches!(
            bounded,
            Ok(Err(neuralis_policy::PolicyError::Unavailable(_)))
        ),
        "{bounded:?}"
    );

    postgres.resume();
    let served = eventually(WAIT, || async move { put_policy(node.grpc).await.is_ok() }).await;
    assert!(served, "calls succeed again once the store is back");
    assert!(
        reports(node.grpc, admin, POLICY, ServingStatus::Serving).await,
        "SERVING once the store is back"
    );
    let (_, detail) = http_get(admin, "/readyz").await;
    assert!(detail.contains("access_store: ok"), "{detail}");
}

/// One write of a source's URI policy (it needs the access store).
async fn put_policy(
    policy_addr: SocketAddr,
) -> Result<policy::PutSourcePolicyResponse, neuralis_policy::PolicyError> {
    let owner = BearerToken::new(Some(token("ops", "owner", None)));
    PolicyGrpcClient::new(channel(policy_addr, None).unwrap(), 32 << 20)
        .put_source_policy(
            owner,
            policy::PutSourcePolicyRequest {
                source_id: "p/repo".into(),
                policy: Some(policy::UriPolicy::default()),
            },
        )
        .await
}

/// A throwaway Redis on `port` (never the shared one).
fn start_redis(port: u16, dir: &Path) -> Child {
    Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server must be installed (make test installs it)")
}

async fn redis_answers(port: u16) -> bool {
    eventually(WAIT, || async move {
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
    })
    .await
}

fn token(subject: &str, role: &str, agent: Option<&str>) -> String {
    mint_token(
        &Secret::new(SECRET.to_owned()),
        TokenFor {
            subject: subject.into(),
            role: role.into(),
            agent: agent.map(str::to_owned),
            project: Some("p".into()),
            ttl_seconds: 600,
            ..TokenFor::default()
        },
    )
    .unwrap()
}

/// Creates source `repo` of project `p` over `root`, readable by members, and syncs it.
async fn register(sync_addr: SocketAddr, policy_addr: SocketAddr, root: &Path) {
    let owner = BearerToken::new(Some(token("ops", "owner", None)));
    let sources = SourceGrpcClient::new(channel(sync_addr, None).unwrap());
    let spec = sync::SourceSpec {
        project: "p".into(),
        slug: "repo".into(),
        kind: sync::SourceKind::Local as i32,
        root: root.display().to_string(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        ..Default::default()
    };
    let created = sources
        .create_source(&owner, sync::CreateSourceRequest { source: Some(spec) })
        .await
        .unwrap();
    let policy = policy::UriPolicy {
        hide_flagged_files: false,
        default_capabilities: Some(policy::Capabilities {
            read: true,
            write: false,
            exec: false,
        }),
        paths: vec![],
    };
    PolicyGrpcClient::new(channel(policy_addr, None).unwrap(), 32 << 20)
        .put_source_policy(
            owner.clone(),
            policy::PutSourcePolicyRequest {
                source_id: created.source.unwrap().id,
                policy: Some(policy),
            },
        )
        .await
        .unwrap();
    assert!(resync(sync_addr).await, "the first sync");
}

async fn resync(sync_addr: SocketAddr) -> bool {
    let owner = BearerToken::new(Some(token("ops", "owner", None)));
    let sources = SourceGrpcClient::new(channel(sync_addr, None).unwrap());
    let request = sync::SyncSourceRequest {
        project: "p".into(),
        slug: "repo".into(),
    };
    let Ok(mut progress) = sources.sync_source(&owner, request).await else {
        return false;
    };
    while let Some(update) = progress.next().await {
        if update.is_err() {
            return false;
        }
    }
    true
}

/// The paths a member acting as agent `a1` is listed, through discovery's gRPC port.
async fn listed(discovery_addr: SocketAddr) -> Vec<String> {
    let mut client = discovery::discovery_service_client::DiscoveryServiceClient::new(
        channel(discovery_addr, None).unwrap(),
    );
    let mut request = tonic::Request::new(discovery::ListPackagesRequest {
        scope: Some(discovery::Scope {
            project_id: "p".into(),
            agent_id: "a1".into(),
            conversation_id: String::new(),
        }),
        ..Default::default()
    });
    let bearer = format!("Bearer {}", token("ada", "member", Some("a1")));
    request
        .metadata_mut()
        .insert("authorization", bearer.parse().unwrap());
    let answer = client.list_packages(request).await.unwrap().into_inner();
    answer
        .packages
        .into_iter()
        .flat_map(|p| p.files)
        .map(|f| f.path)
        .collect()
}

fn write(root: &Path, path: &str, body: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_started_with_redis_down_serves_in_bypass_and_subscribes_once_redis_is_back() {
    let data = tempfile::tempdir().unwrap();
    let redis_dir = tempfile::tempdir().unwrap();
    let redis_port = free_port();
    let postgres = LocalPostgres::start();
    let mut env: HashMap<String, String> = HashMap::from([
        ("NEURALIS__SYNC__INDEX__KIND".into(), "postgres".into()),
        ("NEURALIS__SYNC__INDEX__URL".into(), postgres.url()),
        ("NEURALIS__SYNC__INDEX__SCHEMA".into(), "index".into()),
        ("NEURALIS__SYNC__BUS__KIND".into(), "redis".into()),
        (
            "NEURALIS__SYNC__BUS__URL".into(),
            format!("redis://127.0.0.1:{redis_port}"),
        ),
        ("NEURALIS__POLICY__STORE__BACKEND".into(), "postgres".into()),
        ("NEURALIS__POLICY__STORE__URL".into(), postgres.url()),
        ("NEURALIS__POLICY__STORE__SCHEMA".into(), "access".into()),
        ("NEURALIS__HEALTH_PROBE_INTERVAL_MS".into(), "200".into()),
        (
            "NEURALIS__SYNC__ALLOWED_ROOTS".into(),
            std::env::temp_dir().display().to_string(),
        ),
    ]);
    // Sync publishes on that Redis: it starts, and a source is synced, while it is up.
    let mut redis = start_redis(redis_port, redis_dir.path());
    assert!(redis_answers(redis_port).await);
    let policy_args = ["--target", "policy", "--listen", "127.0.0.1:0"];
    let policy = spawn(NODE, &policy_args, &env, &data.path().join("policy"));
    env.insert(
        "NEURALIS__PEERS__POLICY_URL".into(),
        format!("http://{}", policy.grpc),
    );
    let sync_args = [
        "--target",
        "sync",
        "--listen",
        "127.0.0.1:0",
        "--internal-listen",
        "127.0.0.1:0",
    ];
    let sync = spawn(NODE, &sync_args, &env, &data.path().join("sync"));
    let tree = tempfile::tempdir().unwrap();
    write(
        tree.path(),
        ".claude/skills/one/SKILL.md",
        "---\nname: one\n---\n",
    );
    register(sync.grpc, policy.grpc, tree.path()).await;

    // Nothing listens on the bus port when discovery starts.
    redis.kill().unwrap();
    redis.wait().unwrap();
    env.insert(
        "NEURALIS__PEERS__SYNC_FEED_URL".into(),
        format!("http://{}", sync.internal.unwrap()),
    );
    let discovery_args = ["--target", "discovery", "--listen", "127.0.0.1:0"];
    let discovery = spawn(NODE, &discovery_args, &env, &data.path().join("discovery"));
    let admin = discovery.admin.unwrap();
    assert!(
        reports(discovery.grpc, admin, DISCOVERY, ServingStatus::Serving).await,
        "discovery serves without its bus"
    );
    let (_, detail) = http_get(admin, "/readyz").await;
    assert!(
        detail.contains("invalidation_subscription: degraded (served in bypass)"),
        "{detail}"
    );
    let (_, metrics) = http_get(admin, "/metrics").await;
    assert!(
        metrics.contains("neuralis_invalidation_subscription_up 0"),
        "the bypass shows on /metrics"
    );
    assert!(
        listed(discovery.grpc)
            .await
            .contains(&".claude/skills/one/SKILL.md".to_owned())
    );

    // A Redis answers on that port again: discovery subscribes on its own.
    let mut redis = start_redis(redis_port, redis_dir.path());
    assert!(redis_answers(redis_port).await);
    let subscribed = eventually(WAIT, || async move {
        let (_, detail) = http_get(admin, "/readyz").await;
        let (_, metrics) = http_get(admin, "/metrics").await;
        detail.contains("invalidation_subscription: ok")
            && metrics.contains("neuralis_invalidation_subscription_up 1")
    })
    .await;
    assert!(subscribed, "subscribed once Redis is back");

    // Events flow: a write synced now reaches discovery as a finish event, and shows.
    write(
        tree.path(),
        ".claude/skills/two/SKILL.md",
        "---\nname: two\n---\n",
    );
    let sync_addr = sync.grpc;
    let delivered = eventually(WAIT, || async move {
        resync(sync_addr).await && {
            let (_, metrics) = http_get(admin, "/metrics").await;
            metrics.lines().any(|line| {
                line.starts_with("neuralis_invalidation_events_total{phase=\"finish\"")
                    && !line.ends_with(" 0")
            })
        }
    })
    .await;
    assert!(delivered, "a finish event reached discovery");
    assert!(
        listed(discovery.grpc)
            .await
            .contains(&".claude/skills/two/SKILL.md".to_owned())
    );
    redis.kill().unwrap();
    redis.wait().unwrap();
}
