//! Issue 25, "bounded work per call": a member's two `ValidatePackage` calls full of
//! YAML bombs (a thousand billion-laughs `SKILL.md` each) leave another project's
//! listing answered and health SERVING, in both shapes; each bomb is named in the
//! answer. Before the fix, split mode left the victim waiting 77 s.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::time::{Duration, Instant};

use neuralis_proto::discovery::v1 as discovery;
use neuralis_tests::fixture::{self, REPO, read_policy, register, scope};
use neuralis_tests::refusal::{channel, request};
use neuralis_tests::{Cluster, Mode};
use tonic::Code;
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use discovery::discovery_service_client::DiscoveryServiceClient;

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const MB: usize = 1024 * 1024;

macro_rules! in_both_modes {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn all_in_one() {
                super::$scenario(super::Mode::AllInOne).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn split() {
                super::$scenario(super::Mode::Split).await;
            }
        }
    )*};
}

in_both_modes!(two_validate_package_floods_of_yaml_bombs_leave_another_project_answered);

/// A `SKILL.md` whose frontmatter is a billion-laughs document (about 600 bytes).
fn bomb() -> Vec<u8> {
    let mut text = String::from(
        "---\nname: bomb\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    text.push_str("---\nbody\n");
    text.into_bytes()
}

/// A package of a thousand bomb skills (within the file bound: the parse must be what
/// is bounded, not only the request).
fn bomb_package() -> discovery::ValidatePackageRequest {
    let mut files = vec![discovery::PackageFileContent {
        path: "package.json".into(),
        content: br#"{"name": "bomb", "version": "1.0.0", "neuralis": {}}"#.to_vec(),
    }];
    let content = bomb();
    files.extend((0..1000).map(|i| discovery::PackageFileContent {
        path: format!("skills/s{i}/SKILL.md"),
        content: content.clone(),
    }));
    discovery::ValidatePackageRequest {
        files,
        trust: discovery::Trust::Untrusted as i32,
    }
}

async fn health(channel: Channel) -> Result<ServingStatus, Code> {
    let check = HealthCheckRequest {
        service: String::new(),
    };
    match HealthClient::new(channel).check(check).await {
        Ok(response) => Ok(response.into_inner().status()),
        Err(status) => Err(status.code()),
    }
}

/// The issue's figure is "answered in under 1 s"; on two loaded CI cores running debug
/// builds the bound is 5 s (the measured figure is printed).
const VICTIM_BOUND: Duration = Duration::from_secs(5);

async fn two_validate_package_floods_of_yaml_bombs_leave_another_project_answered(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let victim_admin = cluster.token("ops", "owner", None, "victim");
    let dir = tempfile::tempdir().unwrap();
    fixture::write_tree(dir.path(), REPO).unwrap();
    register(
        &cluster,
        &victim_admin,
        "victim",
        "repo",
        dir.path(),
        read_policy(vec![]),
    )
    .await
    .expect("register");
    let victim = cluster.token("vic", "member", None, "victim");
    let attacker = cluster.token("mallory", "member", None, "attacker");
    let floods: Vec<_> = (0..2)
        .map(|_| {
            let mut client = DiscoveryServiceClient::new(channel(cluster.addrs["discovery"]))
                .max_decoding_message_size(64 * MB);
            let call = request(bomb_package(), &attacker);
            tokio::spawn(async move {
                let started = Instant::now();
                let answer = client.validate_package(call).await;
                (answer, started.elapsed())
            })
        })
        .collect();
    // Let both floods reach the server before the victim calls.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut slowest = Duration::ZERO;
    for _ in 0..3 {
        let started = Instant::now();
        let list = discovery::ListPackagesRequest {
            scope: scope("victim", "", ""),
            ..Default::default()
        };
        let listed = DiscoveryServiceClient::new(channel(cluster.addrs["discovery"]))
            .list_packages(request(list, &victim))
            .await
            .expect("the victim's listing");
        assert!(!listed.into_inner().packages.is_empty());
        assert_eq!(
            health(channel(cluster.addrs["discovery"])).await,
            Ok(ServingStatus::Serving)
        );
        slowest = slowest.max(started.elapsed());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut answers = Vec::new();
    let mut flood_times = Vec::new();
    for flood in floods {
        let (answer, took) = flood.await.unwrap();
        flood_times.push(took);
        answers.push(answer);
    }
    eprintln!(
        "{mode:?}: victim listing + health, slowest {slowest:?}; floods took {flood_times:?}"
    );
    assert!(slowest < VICTIM_BOUND, "the victim waited {slowest:?}");
    for answer in answers {
        match answer {
            // Shed when every validation slot was taken: the answer the issue asks for.
            Err(status) => assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}"),
            Ok(answer) => {
                let answer = answer.into_inner();
                let named = answer.warnings.iter().chain(&answer.errors).any(|issue| {
                    issue.location.starts_with("skills/s")
                        && issue.location.contains("/SKILL.md")
                        && issue.message.contains("alias replay limit")
                });
                assert!(
                    named,
                    "no issue names a bomb file: {:?}",
                    answer.warnings.first()
                );
            }
        }
    }
    cluster.stop().await.unwrap();
}
