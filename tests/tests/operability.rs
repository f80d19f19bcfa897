//! What an SRE relies on: health that names the mounted services, reflection of
//! exactly those (v1 and v1alpha), and a clean stop on SIGTERM.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use futures::StreamExt;
use tonic::transport::Endpoint;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_reflection::pb::v1alpha::ServerReflectionRequest;
use tonic_reflection::pb::v1alpha::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1alpha::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1alpha::server_reflection_response::MessageResponse;

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const SECRET: &str = "0123456789abcdef0123456789abcdef0123456789abcdef";

/// A policy-only node on the test PostgreSQL, in a schema of its own (split mode
/// never opens an embedded store), dropped with the returned guard.
fn start_policy_node(data: &std::path::Path) -> (std::process::Child, String, Schema) {
    let schema = Schema::new();
    let mut child = Command::new(NODE)
        .args([
            "--target",
            "policy",
            "--listen",
            "127.0.0.1:0",
            "--announce",
        ])
        .arg("--data-dir")
        .arg(data)
        .env_clear()
        .env("NEURALIS__IDENTITY__KEYS__KIND", "hs256")
        .env("NEURALIS__IDENTITY__KEYS__SECRET", SECRET)
        .env("NEURALIS__TELEMETRY__LOG_FILTER", "warn")
        .env("NEURALIS__POLICY__STORE__BACKEND", "postgres")
        .env("NEURALIS__POLICY__STORE__URL", &schema.database)
        .env("NEURALIS__POLICY__STORE__SCHEMA", &schema.name)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening ")
        .expect("announced address")
        .to_owned();
    (child, format!("http://{addr}"), schema)
}

/// A schema on the test PostgreSQL, dropped when the test ends.
struct Schema {
    database: String,
    name: String,
}

impl Schema {
    fn new() -> Self {
        let database = std::env::var("NEURALIS_TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
        let mut bytes = [0u8; 6];
        getrandom::fill(&mut bytes).unwrap();
        let name = format!("operability_{}", hex::encode(bytes));
        Self { database, name }
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let _ = Command::new("psql")
            .arg(&self.database)
            .args([
                "-q",
                "-c",
                &format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

async fn status(url: &str, service: &str) -> Result<ServingStatus, tonic::Code> {
    let channel = Endpoint::from_shared(url.to_owned())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let request = HealthCheckRequest {
        service: service.into(),
    };
    match HealthClient::new(channel).check(request).await {
        Ok(response) => Ok(response.into_inner().status()),
        Err(status) => Err(status.code()),
    }
}

async fn listed_services(url: &str) -> Vec<String> {
    let channel = Endpoint::from_shared(url.to_owned())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut responses = ServerReflectionClient::new(channel)
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let Some(Ok(response)) = responses.next().await else {
        panic!("no reflection answer")
    };
    match response.message_response {
        Some(MessageResponse::ListServicesResponse(list)) => {
            list.service.into_iter().map(|s| s.name).collect()
        }
        other => panic!("unexpected reflection answer {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_node_reports_health_and_reflects_exactly_what_it_mounts() {
    let data = tempfile::tempdir().unwrap();
    let (mut child, url, _schema) = start_policy_node(data.path());
    assert_eq!(
        status(&url, "neuralis.policy.v1.PolicyService").await,
        Ok(ServingStatus::Serving)
    );
    assert_eq!(status(&url, "").await, Ok(ServingStatus::Serving));
    assert_eq!(
        status(&url, "neuralis.sync.v1.SyncService").await,
        Err(tonic::Code::NotFound),
        "not mounted here"
    );
    let services = listed_services(&url).await;
    assert!(
        services.contains(&"neuralis.policy.v1.PolicyService".to_owned()),
        "{services:?}"
    );
    assert!(
        services.contains(&"grpc.health.v1.Health".to_owned()),
        "{services:?}"
    );
    assert!(
        !services
            .iter()
            .any(|s| s.contains("SyncService") || s.contains("DiscoveryService")),
        "{services:?}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_and_exits_cleanly() {
    let data = tempfile::tempdir().unwrap();
    let (mut child, url, _schema) = start_policy_node(data.path());
    assert_eq!(status(&url, "").await, Ok(ServingStatus::Serving));
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still running after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(exit.success(), "a drained server exits 0, got {exit:?}");
}
