//! Faults: answers stay correct when Redis goes away and comes back; an unreachable
//! policy is UNAVAILABLE, never an unfiltered answer; with sync away warm listings keep
//! answering (nothing writes without sync) and reads of file bytes are UNAVAILABLE.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use neuralis_discovery::{CallerToken, DiscoveryError};
use neuralis_proto::discovery::v1 as discovery;
use neuralis_tests::cluster::eventually;
use neuralis_tests::fixture::{
    self, REPO, read_policy, register, resync, scope, state_of, visible,
};
use neuralis_tests::{Cluster, Mode};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A throwaway Redis the test may stop (never the shared one).
fn start_redis(port: u16, dir: &std::path::Path) -> Child {
    Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server must be installed for the fault tests (make test installs it)")
}

async fn wait_for_port(port: u16) {
    let up = eventually(Duration::from_secs(10), || async move {
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
    })
    .await;
    assert!(up, "redis did not start on {port}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_stay_correct_while_redis_is_down_and_caching_resumes_after() {
    let redis_dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut redis = start_redis(port, redis_dir.path());
    wait_for_port(port).await;
    let bus = HashMap::from([
        ("NEURALIS__SYNC__BUS__KIND".to_owned(), "redis".to_owned()),
        (
            "NEURALIS__SYNC__BUS__URL".to_owned(),
            format!("redis://127.0.0.1:{port}"),
        ),
        (
            "NEURALIS__SYNC__BUS__CHANNEL".to_owned(),
            "neuralis:faults".to_owned(),
        ),
    ]);
    let cluster = Cluster::all_in_one(bus).await.unwrap();
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", Some("a1"), P);
    let dir = tempfile::tempdir().unwrap();
    fixture::write_tree(dir.path(), REPO).unwrap();
    register(&cluster, &admin, P, "repo", dir.path(), read_policy(vec![]))
        .await
        .unwrap();
    let seen = |path: &'static str| {
        let (cluster, member) = (&cluster, member.clone());
        async move {
            state_of(
                &visible(cluster, &member, scope(P, "a1", "")).await.unwrap(),
                path,
            )
            .is_some()
        }
    };
    assert!(seen(".claude/skills/review/SKILL.md").await);

    redis.kill().unwrap();
    redis.wait().unwrap();
    fixture::write_tree(
        dir.path(),
        &[(".claude/skills/during/SKILL.md", "---\nname: during\n---\n")],
    )
    .unwrap();
    let synced = resync(&cluster, &admin, P, "repo").await.is_ok();
    // Whatever sync did without its bus, the answer matches the index: never stale.
    assert_eq!(seen(".claude/skills/during/SKILL.md").await, synced);

    let mut redis = start_redis(port, redis_dir.path());
    wait_for_port(port).await;
    fixture::write_tree(
        dir.path(),
        &[(".claude/skills/after/SKILL.md", "---\nname: after\n---\n")],
    )
    .unwrap();
    let resumed = eventually(Duration::from_secs(15), || async {
        resync(&cluster, &admin, P, "repo").await.is_ok()
            && seen(".claude/skills/after/SKILL.md").await
    })
    .await;
    assert!(
        resumed,
        "after Redis is back, writes and answers flow again"
    );
    assert!(
        seen(".claude/skills/during/SKILL.md").await,
        "nothing was lost"
    );
    cluster.stop().await.unwrap();
    redis.kill().unwrap();
    redis.wait().unwrap();
}

async fn split_with_repo() -> (Cluster, String) {
    let cluster = Cluster::start(Mode::Split, NODE).await.unwrap();
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", Some("a1"), P);
    let dir = tempfile::tempdir().unwrap();
    fixture::write_tree(dir.path(), REPO).unwrap();
    register(&cluster, &admin, P, "repo", dir.path(), read_policy(vec![]))
        .await
        .unwrap();
    assert!(
        !visible(&cluster, &member, scope(P, "a1", ""))
            .await
            .unwrap()
            .is_empty()
    );
    (cluster, member)
}

async fn list(
    cluster: &Cluster,
    member: &str,
) -> Result<discovery::ListPackagesResponse, DiscoveryError> {
    let caller = CallerToken::new(Some(member.to_owned()));
    cluster
        .discovery
        .list_packages(
            caller,
            discovery::ListPackagesRequest {
                scope: scope(P, "a1", ""),
                ..Default::default()
            },
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_unreachable_is_unavailable_never_an_unfiltered_answer() {
    let (mut cluster, member) = split_with_repo().await;
    cluster.kill("policy").unwrap();
    assert!(matches!(
        list(&cluster, &member).await,
        Err(DiscoveryError::Unavailable(_))
    ));
    cluster.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_sync_down_warm_listings_answer_and_reads_of_bytes_are_unavailable() {
    let (mut cluster, member) = split_with_repo().await;
    let before = list(&cluster, &member).await.unwrap();
    cluster.kill("sync").unwrap();
    // Nothing writes without sync: the warm project's listing is exactly current.
    assert_eq!(list(&cluster, &member).await.unwrap(), before);
    // File bytes live on sync's hosts: UNAVAILABLE (retryable), never a guess.
    let caller = CallerToken::new(Some(member.clone()));
    let read = cluster
        .discovery
        .read_file(
            caller.clone(),
            discovery::ReadFileRequest {
                scope: scope(P, "a1", ""),
                source_slug: "repo".into(),
                path: first_file(&before),
                ..Default::default()
            },
        )
        .await;
    assert!(
        matches!(read, Err(DiscoveryError::Unavailable(_))),
        "{read:?}"
    );
    // A project discovery never read needs a fill from sync: UNAVAILABLE for it alone.
    let cold = cluster
        .discovery
        .list_packages(
            caller,
            discovery::ListPackagesRequest {
                scope: scope("other", "a1", ""),
                ..Default::default()
            },
        )
        .await;
    assert!(!matches!(cold, Ok(ref answer) if !answer.packages.is_empty()));
    // Discovery stays ready: its answers still hold.
    assert!(
        discovery_serving(&cluster).await,
        "discovery turned NOT_SERVING"
    );
    cluster.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_source_changed_before_sync_went_down_is_unavailable_never_the_old_answer() {
    let (mut cluster, member) = split_with_repo().await;
    let admin = cluster.token("ops", "owner", None, P);
    list(&cluster, &member).await.unwrap();
    // The change is announced before it commits: the remembered sources are stale.
    let mut spec = cluster
        .sources
        .get_source(
            &Cluster::bearer(&admin),
            neuralis_proto::sync::v1::GetSourceRequest {
                project: P.into(),
                slug: "repo".into(),
            },
        )
        .await
        .unwrap()
        .source
        .and_then(|source| source.spec)
        .unwrap();
    spec.privacy_patterns = vec!["private/{agent}/**".into()];
    cluster
        .sources
        .update_source(
            &Cluster::bearer(&admin),
            neuralis_proto::sync::v1::UpdateSourceRequest { source: Some(spec) },
        )
        .await
        .unwrap();
    cluster.kill("sync").unwrap();
    assert!(matches!(
        list(&cluster, &member).await,
        Err(DiscoveryError::Unavailable(_))
    ));
    cluster.stop().await.unwrap();
}

/// A file the caller saw listed (so a read of it is decided visible).
fn first_file(answer: &discovery::ListPackagesResponse) -> String {
    let file = answer.packages.iter().flat_map(|p| &p.files).next();
    file.map(|f| f.path.clone()).expect("a visible file")
}

async fn discovery_serving(cluster: &Cluster) -> bool {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;
    let channel = neuralis_tests::cluster::channel(cluster.addrs["discovery"], None).unwrap();
    let answer = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: neuralis_discovery::grpc::SERVICE_NAME.into(),
        })
        .await;
    matches!(answer, Ok(a) if a.get_ref().status() == ServingStatus::Serving)
}
