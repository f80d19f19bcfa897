//! Health that follows what discovery needs, and a drain that turns health
//! NOT_SERVING first, ends open streams and exits 0 within the grace period.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use futures::StreamExt;
use neuralis_tests::cluster::{channel, eventually};
use neuralis_tests::process::{SECRET, free_port, health, http_get, spawn};
use tonic::transport::Endpoint;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const DISCOVERY: &str = "neuralis.discovery.v1.DiscoveryService";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_is_not_serving_while_policy_is_down_and_serving_once_it_is_back() {
    let data = tempfile::tempdir().unwrap();
    let database = std::env::var("NEURALIS_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let redis = std::env::var("NEURALIS_TEST_REDIS_URL")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes).unwrap();
    let tag = format!("operate_{}", hex::encode(bytes));
    let mut env: HashMap<String, String> = HashMap::from([
        ("NEURALIS__SYNC__INDEX__KIND".into(), "postgres".into()),
        ("NEURALIS__SYNC__INDEX__URL".into(), database.clone()),
        (
            "NEURALIS__SYNC__INDEX__SCHEMA".into(),
            format!("{tag}_index"),
        ),
        ("NEURALIS__SYNC__BUS__KIND".into(), "redis".into()),
        ("NEURALIS__SYNC__BUS__URL".into(), redis),
        (
            "NEURALIS__SYNC__BUS__CHANNEL".into(),
            format!("neuralis:{tag}"),
        ),
        ("NEURALIS__POLICY__STORE__BACKEND".into(), "postgres".into()),
        ("NEURALIS__POLICY__STORE__URL".into(), database.clone()),
        (
            "NEURALIS__POLICY__STORE__SCHEMA".into(),
            format!("{tag}_policy"),
        ),
        ("NEURALIS__HEALTH_PROBE_INTERVAL_MS".into(), "200".into()),
    ]);
    let policy_listen = format!("127.0.0.1:{}", free_port());
    let policy_args = ["--target", "policy", "--listen", policy_listen.as_str()];
    let policy = spawn(NODE, &policy_args, &env, &data.path().join("policy"));
    // Sync asks policy to forget a source before deleting it.
    env.insert(
        "NEURALIS__PEERS__POLICY_URL".into(),
        format!("http://{policy_listen}"),
    );
    let sync = spawn(
        NODE,
        &[
            "--target",
            "sync",
            "--listen",
            "127.0.0.1:0",
            "--internal-listen",
            "127.0.0.1:0",
        ],
        &env,
        &data.path().join("sync"),
    );
    let mut discovery_env = env.clone();
    discovery_env.insert(
        "NEURALIS__PEERS__SYNC_FEED_URL".into(),
        format!("http://{}", sync.internal.unwrap()),
    );
    discovery_env.insert(
        "NEURALIS__PEERS__POLICY_URL".into(),
        format!("http://{policy_listen}"),
    );
    let discovery = spawn(
        NODE,
        &["--target", "discovery", "--listen", "127.0.0.1:0"],
        &discovery_env,
        &data.path().join("discovery"),
    );
    let status_is = |want: ServingStatus| {
        let addr = discovery.grpc;
        let admin = discovery.admin.unwrap();
        async move {
            eventually(Duration::from_secs(15), || async move {
                let ready = http_get(admin, "/readyz").await.0 == 200;
                health(addr, DISCOVERY).await == Some(want)
                    && health(addr, "").await == Some(want)
                    && ready == (want == ServingStatus::Serving)
            })
            .await
        }
    };
    assert!(
        status_is(ServingStatus::Serving).await,
        "serving with both peers up"
    );

    drop(policy);
    assert!(
        status_is(ServingStatus::NotServing).await,
        "NOT_SERVING while policy is down"
    );
    let (_, detail) = http_get(discovery.admin.unwrap(), "/readyz").await;
    assert!(detail.contains("policy: failing"), "{detail}");
    assert_eq!(
        health(sync.grpc, "").await,
        Some(ServingStatus::Serving),
        "sync needs no policy"
    );

    let _policy = spawn(NODE, &policy_args, &env, &data.path().join("policy"));
    assert!(
        status_is(ServingStatus::Serving).await,
        "SERVING once policy is back"
    );

    drop(discovery);
    drop(sync);
    let _ = Command::new("psql")
        .arg(&database)
        .args(["-q", "-c", &format!("DROP SCHEMA IF EXISTS {tag}_index CASCADE; DROP SCHEMA IF EXISTS {tag}_policy CASCADE;")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_turns_health_not_serving_ends_open_streams_and_exits_zero_within_the_grace_period()
{
    let data = tempfile::tempdir().unwrap();
    let env = HashMap::from([
        ("NEURALIS__DRAIN_DELAY_MS".to_owned(), "300".to_owned()),
        ("NEURALIS__DRAIN_DEADLINE_MS".to_owned(), "5000".to_owned()),
    ]);
    let mut node = spawn(NODE, &["--listen", "127.0.0.1:0"], &env, data.path());
    let channel = Endpoint::from_shared(format!("http://{}", node.grpc))
        .unwrap()
        .connect()
        .await
        .unwrap();
    // A stream that never ends by itself: the health watch.
    let mut watch = HealthClient::new(channel.clone())
        .watch(HealthCheckRequest {
            service: DISCOVERY.into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        watch.next().await.unwrap().unwrap().status(),
        ServingStatus::Serving
    );

    let sent = Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &node.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let next = tokio::time::timeout(Duration::from_secs(5), watch.next())
        .await
        .unwrap();
    assert_eq!(
        next.unwrap().unwrap().status(),
        ServingStatus::NotServing,
        "health turns NOT_SERVING first"
    );
    assert_eq!(
        http_get(node.admin.unwrap(), "/readyz").await.0,
        503,
        "readyz fails while stopping"
    );
    // Calls are still served during the drain delay.
    assert!(health(node.grpc, DISCOVERY).await.is_some());
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match watch.next().await {
                Some(Ok(_)) => continue,
                Some(Err(status)) => break Some(status.code()),
                None => break None,
            }
        }
    })
    .await
    .expect("the open stream ends on drain");
    assert!(
        matches!(ended, None | Some(tonic::Code::Unavailable)),
        "the stream ends cleanly: {ended:?}"
    );
    let exit = loop {
        if let Some(exit) = node.child.try_wait().unwrap() {
            break exit;
        }
        assert!(
            sent.elapsed() < Duration::from_secs(5),
            "still running after the grace period"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(exit.success(), "a drained server exits 0, got {exit:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_a_sync_source_stream_ends_it_and_exits_zero_within_the_grace_period() {
    use neuralis_proto::common::v1 as common;
    use neuralis_proto::sync::v1 as sync;
    use neuralis_sync::SourceApi;
    use neuralis_sync::grpc::SourceGrpcClient;
    let data = tempfile::tempdir().unwrap();
    let env = HashMap::from([("NEURALIS__DRAIN_DEADLINE_MS".to_owned(), "5000".to_owned())]);
    let mut node = spawn(
        NODE,
        &["--listen", "127.0.0.1:0"],
        &env,
        &data.path().join("node"),
    );
    // A tree large enough that its sync is still streaming when the signal comes.
    let tree = data.path().join("tree");
    for dir in 0..100 {
        let dir_path = tree.join(format!("d{dir}"));
        std::fs::create_dir_all(&dir_path).unwrap();
        for file in 0..200 {
            std::fs::write(
                dir_path.join(format!("f{file}.md")),
                format!("# {dir} {file}\n").repeat(40),
            )
            .unwrap();
        }
    }
    let admin = neuralis::node::keys::mint_token(
        &neuralis_identity::Secret::new(SECRET.to_owned()),
        neuralis::node::keys::TokenFor {
            subject: "ops".into(),
            role: "owner".into(),
            project: Some("proj".into()),
            ttl_seconds: 600,
            ..Default::default()
        },
    )
    .unwrap();
    let caller = neuralis_identity::BearerToken::new(Some(admin));
    let sources = SourceGrpcClient::new(channel(node.grpc, None).unwrap());
    sources
        .create_source(
            &caller,
            sync::CreateSourceRequest {
                source: Some(sync::SourceSpec {
                    project: "proj".into(),
                    slug: "big".into(),
                    kind: sync::SourceKind::Local as i32,
                    root: tree.display().to_string(),
                    scope: common::SourceScope::Project as i32,
                    trigger: "manual".into(),
                    ..Default::default()
                }),
            },
        )
        .await
        .unwrap();
    let mut progress = sources
        .sync_source(
            &caller,
            sync::SyncSourceRequest {
                project: "proj".into(),
                slug: "big".into(),
            },
        )
        .await
        .unwrap();
    let first = progress.next().await.expect("a first update");
    assert!(first.is_ok(), "{first:?}");
    let sent = Instant::now();
    assert!(
        Command::new("kill")
            .args(["-TERM", &node.child.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    let mut ended = None;
    while let Some(update) = tokio::time::timeout(Duration::from_secs(5), progress.next())
        .await
        .expect("the stream ends within the grace period")
    {
        if let Err(error) = update {
            ended = Some(format!("{error}"));
            break;
        }
    }
    let exit = loop {
        if let Some(exit) = node.child.try_wait().unwrap() {
            break exit;
        }
        assert!(
            sent.elapsed() < Duration::from_secs(5),
            "still running after the grace period"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(exit.success(), "exit 0, got {exit:?} (stream: {ended:?})");
    eprintln!("stream ended: {ended:?}, exit after {:?}", sent.elapsed());
}
