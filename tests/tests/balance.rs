//! Calls to a peer are spread over every replica its name resolves to, follow the
//! replicas as they come and go, end by their deadline, and retry idempotent reads
//! within a budget. The resolver is injected (two local servers stand for a headless
//! Service's pods); the channel, the deadline and the retries are the ones the
//! `neuralis` binary builds for `peers.policy_url`. The last test runs two real
//! policy processes and counts each one's `Evaluate` calls on its `/metrics`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use neuralis_host::peer::{PeerOptions, peer_channel};
use neuralis_host::rpc::{TracedChannel, traced};
use neuralis_host::tls::ClientTls;
use neuralis_identity::{KeySource, Secret, ServiceIdentityConfig, ServiceSigner};
use neuralis_proto::policy::v1 as pb;
use neuralis_tests::pki::Pki;
use neuralis_tests::process::{SERVICE_SECRET, http_get, spawn};
use neuralis_tests::replica::{ANSWER, Answer, FLAKY, HANG, UNAVAILABLE, replica};
use pb::policy_service_client::PolicyServiceClient;

const REFRESH: Duration = Duration::from_millis(50);
const DEADLINE: Duration = Duration::from_millis(400);

fn client(answer: &Answer) -> PolicyServiceClient<TracedChannel> {
    let options = PeerOptions {
        timeout: DEADLINE,
        resolve_interval: REFRESH,
        ..PeerOptions::default()
    };
    let channel = peer_channel(
        &ClientTls::default(),
        "http://policy-headless.test:7400",
        "peers.policy_url",
        options,
        Arc::new(answer.clone()),
    )
    .unwrap();
    PolicyServiceClient::new(traced(channel))
}

async fn evaluate(client: &PolicyServiceClient<TracedChannel>) -> Result<(), tonic::Status> {
    client
        .clone()
        .evaluate(pb::EvaluateRequest::default())
        .await
        .map(|_| ())
}

#[tokio::test]
async fn calls_spread_over_every_replica_and_follow_a_removal() {
    let (a_addr, a) = replica(ANSWER).await.unwrap();
    let (b_addr, b) = replica(ANSWER).await.unwrap();
    let answer = Answer::default();
    *answer.0.lock().unwrap() = vec![a_addr, b_addr];
    let client = client(&answer);

    const CALLS: usize = 300;
    for _ in 0..CALLS {
        evaluate(&client)
            .await
            .expect("a call to two healthy replicas");
    }
    let (to_a, to_b) = (a.calls(), b.calls());
    println!("calls per replica out of {CALLS}: {to_a} and {to_b}");
    assert_eq!(to_a + to_b, CALLS);
    assert!(to_a >= CALLS / 3 && to_b >= CALLS / 3, "{to_a} / {to_b}");

    // The Service stops naming a: after a refresh every call goes to b, none fails.
    *answer.0.lock().unwrap() = vec![b_addr];
    tokio::time::sleep(REFRESH * 4).await;
    let before = (a.calls(), b.calls());
    for _ in 0..100 {
        evaluate(&client)
            .await
            .expect("a call after a replica left");
    }
    assert_eq!(a.calls(), before.0, "a removed replica received calls");
    assert_eq!(b.calls(), before.1 + 100);

    // An empty answer (a DNS hiccup) keeps the replicas known.
    answer.0.lock().unwrap().clear();
    tokio::time::sleep(REFRESH * 4).await;
    evaluate(&client)
        .await
        .expect("a call through an empty answer");
}

#[tokio::test]
async fn a_hung_replica_ends_calls_at_the_deadline() {
    let (a_addr, _a) = replica(HANG).await.unwrap();
    let (b_addr, _b) = replica(ANSWER).await.unwrap();
    let answer = Answer::default();
    *answer.0.lock().unwrap() = vec![a_addr, b_addr];
    let client = client(&answer);

    let mut exceeded = 0;
    for _ in 0..20 {
        let started = Instant::now();
        match evaluate(&client).await {
            Ok(()) => {}
            Err(status) => {
                assert_eq!(status.code(), tonic::Code::DeadlineExceeded, "{status:?}");
                exceeded += 1;
            }
        }
        assert!(
            started.elapsed() < DEADLINE + Duration::from_millis(300),
            "a call waited {:?}",
            started.elapsed()
        );
    }
    assert!(exceeded > 0, "no call reached the hung replica");

    // No replica at all (the Service has no ready pod yet): the deadline, not a hang.
    let nobody = client_without_replicas();
    let started = Instant::now();
    let status = evaluate(&nobody).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::DeadlineExceeded);
    assert!(started.elapsed() < DEADLINE + Duration::from_millis(300));
}

fn client_without_replicas() -> PolicyServiceClient<TracedChannel> {
    client(&Answer::default())
}

#[tokio::test]
async fn an_unavailable_read_is_retried_and_a_write_is_not() {
    let (addr, flaky) = replica(FLAKY).await.unwrap();
    let answer = Answer::default();
    *answer.0.lock().unwrap() = vec![addr];
    let client = client(&answer);

    // Evaluate is idempotent: its first UNAVAILABLE is retried and answered.
    for _ in 0..5 {
        evaluate(&client).await.expect("a retried read");
    }
    assert_eq!(flaky.calls(), 10);

    // ForgetSource is not: UNAVAILABLE reaches the caller, the replica saw one call.
    let before = flaky.calls();
    let status = client
        .clone()
        .forget_source(pb::ForgetSourceRequest::default())
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unavailable);
    assert_eq!(flaky.calls(), before + 1);
}

#[tokio::test]
async fn retries_are_bounded_by_the_budget() {
    let (addr, down) = replica(UNAVAILABLE).await.unwrap();
    let answer = Answer::default();
    *answer.0.lock().unwrap() = vec![addr];
    let client = client(&answer);

    const CALLS: usize = 200;
    for _ in 0..CALLS {
        let status = evaluate(&client).await.unwrap_err();
        assert_eq!(status.code(), tonic::Code::Unavailable);
    }
    // A reserve of ten retries, then one per five calls.
    let attempts = down.calls();
    println!("{attempts} attempts for {CALLS} calls to a replica always UNAVAILABLE");
    assert!(attempts <= CALLS + 10 + CALLS / 5, "{attempts}");
    assert!(attempts > CALLS, "no retry at all");
}

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");

/// `Evaluate` calls `admin`'s process answered OK, from its latency histogram.
async fn evaluations(admin: SocketAddr) -> usize {
    let (_, text) = http_get(admin, "/metrics").await;
    text.lines()
        .filter(|line| {
            line.starts_with("neuralis_rpc_server_duration_seconds_count")
                && line.contains("method=\"Evaluate\"")
                && line.contains("code=\"OK\"")
        })
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .map(|count| count as usize)
        .sum()
}

fn discovery_credential() -> String {
    let config = ServiceIdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(SERVICE_SECRET.to_owned()),
        },
        ..ServiceIdentityConfig::default()
    };
    let signer = ServiceSigner::from_config(&config, "discovery").unwrap();
    signer.credential().unwrap().expose().unwrap().to_owned()
}

/// A policy process's environment for a store its replicas share, as a Deployment's
/// pods do, and what drops that store after the test.
fn shared_policy_store() -> (HashMap<String, String>, impl FnOnce()) {
    let database = std::env::var("NEURALIS_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes).unwrap();
    let schema = format!("balance_{}_policy", hex::encode(bytes));
    let env = HashMap::from([
        (
            "NEURALIS__POLICY__STORE__BACKEND".to_owned(),
            "postgres".to_owned(),
        ),
        ("NEURALIS__POLICY__STORE__URL".to_owned(), database.clone()),
        ("NEURALIS__POLICY__STORE__SCHEMA".to_owned(), schema.clone()),
    ]);
    let cleanup = move || {
        let _ = std::process::Command::new("psql")
            .arg(&database)
            .args([
                "-q",
                "-c",
                &format!("DROP SCHEMA IF EXISTS {schema} CASCADE;"),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    };
    (env, cleanup)
}

/// An `Evaluate` as discovery sends it, with discovery's service credential.
fn evaluate_request() -> tonic::Request<pb::EvaluateRequest> {
    let mut request = tonic::Request::new(pb::EvaluateRequest {
        project_id: "p".into(),
        caller: Some(pb::CallerScope {
            subject: "ada".into(),
            role: "member".into(),
            project_id: "p".into(),
            ..Default::default()
        }),
        ..Default::default()
    });
    let bearer = format!("Bearer {}", discovery_credential())
        .parse()
        .unwrap();
    request.metadata_mut().insert("authorization", bearer);
    request
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_policy_processes_share_the_calls_and_one_killed_then_removed_fails_none_after() {
    let data = tempfile::tempdir().unwrap();
    let (env, cleanup) = shared_policy_store();
    let args = ["--target", "policy", "--listen", "127.0.0.1:0"];
    let one = spawn(NODE, &args, &env, &data.path().join("one"));
    let two = spawn(NODE, &args, &env, &data.path().join("two"));
    let answer = Answer::default();
    *answer.0.lock().unwrap() = vec![one.grpc, two.grpc];
    let client = client(&answer);
    let request = evaluate_request;

    const CALLS: usize = 200;
    for _ in 0..CALLS {
        client.clone().evaluate(request()).await.expect("Evaluate");
    }
    let (to_one, to_two) = (
        evaluations(one.admin.unwrap()).await,
        evaluations(two.admin.unwrap()).await,
    );
    println!("Evaluate calls per policy process out of {CALLS}: {to_one} and {to_two}");
    assert_eq!(to_one + to_two, CALLS);
    assert!(
        to_one >= CALLS / 3 && to_two >= CALLS / 3,
        "{to_one} / {to_two}"
    );

    // One pod is killed while the Service still names it: a read the dead replica
    // refused is retried on the other, and every call ends by its deadline.
    drop(one);
    let mut failed = 0;
    for _ in 0..100 {
        let started = Instant::now();
        if client.clone().evaluate(request()).await.is_err() {
            failed += 1;
        }
        assert!(started.elapsed() < DEADLINE + Duration::from_millis(300));
    }
    println!("with one of two processes killed and still named: {failed} of 100 calls failed");
    // A refused connection never reached a server: retried for free (0 in runs so far).
    assert!(
        failed <= 5,
        "{failed} of 100 calls failed with one replica refusing"
    );

    // It leaves the Service's answer: no call fails after the refresh.
    *answer.0.lock().unwrap() = vec![two.grpc];
    tokio::time::sleep(REFRESH * 4).await;
    let before = evaluations(two.admin.unwrap()).await;
    for _ in 0..100 {
        client
            .clone()
            .evaluate(request())
            .await
            .expect("Evaluate after one replica left");
    }
    assert_eq!(evaluations(two.admin.unwrap()).await, before + 100);

    drop(two);
    cleanup();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_behind_a_name_are_reached_by_address_over_tls_checked_against_the_name() {
    let data = tempfile::tempdir().unwrap();
    let pki = Pki::create(&data.path().join("tls"), &["policy-headless.test"]).unwrap();
    let (mut env, cleanup) = shared_policy_store();
    let path = |p: &std::path::Path| p.display().to_string();
    env.insert("NEURALIS__TLS__CERT_FILE".into(), path(&pki.cert));
    env.insert("NEURALIS__TLS__KEY_FILE".into(), path(&pki.key));
    env.insert("NEURALIS__TLS__CLIENT_CA_FILE".into(), path(&pki.ca));
    let args = ["--target", "policy", "--listen", "127.0.0.1:0"];
    let one = spawn(NODE, &args, &env, &data.path().join("one"));
    let two = spawn(NODE, &args, &env, &data.path().join("two"));
    let answer = Answer::default();
    *answer.0.lock().unwrap() = vec![one.grpc, two.grpc];
    let tls = ClientTls::load("peers", Some(&pki.ca), Some(&pki.cert), Some(&pki.key)).unwrap();
    let options = PeerOptions {
        timeout: DEADLINE,
        resolve_interval: REFRESH,
        ..PeerOptions::default()
    };
    let over_tls = |host: &str| {
        let url = format!("https://{host}:7400");
        let channel = peer_channel(
            &tls,
            &url,
            "peers.policy_url",
            options,
            Arc::new(answer.clone()),
        );
        PolicyServiceClient::new(traced(channel.unwrap()))
    };

    // The certificate names policy-headless.test: each replica is checked against it.
    let named = over_tls("policy-headless.test");
    for _ in 0..40 {
        named
            .clone()
            .evaluate(evaluate_request())
            .await
            .expect("Evaluate over TLS");
    }
    let (to_one, to_two) = (
        evaluations(one.admin.unwrap()).await,
        evaluations(two.admin.unwrap()).await,
    );
    assert!(
        to_one > 0 && to_two > 0 && to_one + to_two == 40,
        "{to_one} / {to_two}"
    );

    // A name the certificate does not carry: refused, whatever address it resolves to.
    let status = over_tls("elsewhere.test")
        .evaluate(evaluate_request())
        .await
        .unwrap_err();
    assert!(
        matches!(
            status.code(),
            tonic::Code::Unavailable | tonic::Code::DeadlineExceeded
        ),
        "{status:?}"
    );
    drop((one, two));
    cleanup();
}
