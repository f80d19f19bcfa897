//! Traces that name things: one `ListPackages` in split mode is one trace, with server
//! spans named by method in the three services (each under its own service name),
//! client spans between them, parent links, and the status set on a failed call. The
//! collector is an OTLP/gRPC trace service in this test. And logs that name them: one
//! line per finished call, with its trace and span ids and no token.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use neuralis_proto::discovery::v1 as discovery;
use neuralis_tests::cluster::eventually;
use neuralis_tests::fixture::{self, REPO, read_policy, register, scope};
use neuralis_tests::process::{SECRET, SERVICE_SECRET, code_name};
use neuralis_tests::{Cluster, Mode};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, Stdio};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";

/// One exported span, flattened.
#[derive(Clone)]
struct Seen {
    service: String,
    name: String,
    trace_id: Vec<u8>,
    span_id: Vec<u8>,
    parent: Vec<u8>,
    kind: i32,
    /// 2 is ERROR.
    status: i32,
}

impl std::fmt::Debug for Seen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} kind={} status={} span={} parent={}",
            self.service,
            self.name,
            self.kind,
            self.status,
            hex::encode(&self.span_id),
            hex::encode(&self.parent)
        )
    }
}

#[derive(Clone, Default)]
struct Collector {
    spans: Arc<Mutex<Vec<Seen>>>,
}

#[tonic::async_trait]
impl TraceService for Collector {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let mut spans = self.spans.lock().unwrap();
        for resource in request.into_inner().resource_spans {
            let service = resource
                .resource
                .iter()
                .flat_map(|r| r.attributes.iter())
                .find(|a| a.key == "service.name")
                .and_then(|a| a.value.as_ref())
                .and_then(|v| match &v.value {
                    Some(
                        opentelemetry_proto::tonic::common::v1::any_value::Value::StringValue(s),
                    ) => Some(s.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            for scope in resource.scope_spans {
                for span in scope.spans {
                    spans.push(Seen {
                        service: service.clone(),
                        name: span.name,
                        trace_id: span.trace_id,
                        span_id: span.span_id,
                        parent: span.parent_span_id,
                        kind: span.kind,
                        status: span.status.map_or(0, |s| s.code),
                    });
                }
            }
        }
        Ok(tonic::Response::new(ExportTraceServiceResponse {
            partial_success: None,
        }))
    }
}

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

/// `ListPackages` over gRPC as one trace, `TRACE`, whose root the test holds.
async fn list_packages(
    addr: std::net::SocketAddr,
    token: &str,
    request: discovery::ListPackagesRequest,
    span: &str,
) -> Result<(), tonic::Status> {
    let channel = neuralis_tests::cluster::channel(addr, None).unwrap();
    let mut client = discovery::discovery_service_client::DiscoveryServiceClient::new(channel);
    let mut request = tonic::Request::new(request);
    request.metadata_mut().insert(
        "traceparent",
        format!("00-{TRACE}-{span}-01").parse().unwrap(),
    );
    request
        .metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    client.list_packages(request).await.map(drop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_list_packages_in_split_mode_is_one_trace_across_the_three_services() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let collector_addr = listener.local_addr().unwrap();
    let collector = Collector::default();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(collector.clone()))
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );
    let otel = HashMap::from([
        (
            "OTEL_EXPORTER_OTLP_ENDPOINT".to_owned(),
            format!("http://{collector_addr}"),
        ),
        ("OTEL_BSP_SCHEDULE_DELAY".to_owned(), "100".to_owned()),
    ]);
    let cluster = Cluster::split_with(NODE, false, otel).await.unwrap();
    assert_eq!(cluster.mode, Mode::Split);
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", Some("a1"), P);
    let dir = tempfile::tempdir().unwrap();
    fixture::write_tree(dir.path(), REPO).unwrap();
    register(&cluster, &admin, P, "repo", dir.path(), read_policy(vec![]))
        .await
        .unwrap();

    let discovery_addr = cluster.addrs["discovery"];
    list_packages(
        discovery_addr,
        &member,
        discovery::ListPackagesRequest {
            scope: scope(P, "a1", ""),
            ..Default::default()
        },
        "00f067aa0ba902b7",
    )
    .await
    .unwrap();
    // A failed call in the same trace: no scope.
    let failed = list_packages(
        discovery_addr,
        &member,
        discovery::ListPackagesRequest {
            scope: None,
            ..Default::default()
        },
        "00f067aa0ba902b8",
    )
    .await;
    assert!(failed.is_err());

    let trace = hex::decode(TRACE).unwrap();
    let spans_of = || {
        collector
            .spans
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.trace_id == trace)
            .cloned()
            .collect::<Vec<_>>()
    };
    let services = || {
        spans_of()
            .into_iter()
            .map(|s| s.service)
            .collect::<BTreeSet<_>>()
    };
    let want: BTreeSet<String> = ["neuralis-discovery", "neuralis-policy", "neuralis-sync"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    // Each process exports in its own batches: wait for the last spans to end (the
    // two discovery server spans) as well as for every service and for policy's
    // `Evaluate` (policy may export an earlier span of the trace first: the first
    // answer of a source moves its legacy package keys with `RekeyPackages`).
    let roots = [
        hex::decode("00f067aa0ba902b7").unwrap(),
        hex::decode("00f067aa0ba902b8").unwrap(),
    ];
    let complete = eventually(Duration::from_secs(20), || {
        let found = services();
        let want = want.clone();
        let ended = roots
            .iter()
            .all(|root| spans_of().iter().any(|s| &s.parent == root));
        let evaluated = spans_of().iter().any(|s| {
            s.service == "neuralis-policy" && s.name == "neuralis.policy.v1.PolicyService/Evaluate"
        });
        async move { want.is_subset(&found) && ended && evaluated }
    })
    .await;
    let spans = spans_of();
    assert!(complete, "spans of three services in one trace: {spans:#?}");

    const SERVER: i32 = 2;
    const CLIENT: i32 = 3;
    let list = spans
        .iter()
        .find(|s| {
            s.name == "neuralis.discovery.v1.DiscoveryService/ListPackages"
                && s.kind == SERVER
                && s.parent == hex::decode("00f067aa0ba902b7").unwrap()
        })
        .unwrap_or_else(|| panic!("the ListPackages server span: {spans:#?}"));
    assert_eq!(list.service, "neuralis-discovery");
    assert_ne!(list.status, 2, "the successful call is not an error");
    let evaluate_client = spans
        .iter()
        .find(|s| s.name == "neuralis.policy.v1.PolicyService/Evaluate" && s.kind == CLIENT)
        .unwrap_or_else(|| panic!("discovery's client span of Evaluate: {spans:#?}"));
    assert_eq!(evaluate_client.service, "neuralis-discovery");
    let evaluate_server = spans
        .iter()
        .find(|s| s.name == "neuralis.policy.v1.PolicyService/Evaluate" && s.kind == SERVER)
        .unwrap_or_else(|| panic!("policy's server span of Evaluate: {spans:#?}"));
    assert_eq!(evaluate_server.service, "neuralis-policy");
    assert_eq!(
        evaluate_server.parent, evaluate_client.span_id,
        "policy's span is a child of discovery's client span"
    );
    let sync_server = spans
        .iter()
        .find(|s| s.service == "neuralis-sync" && s.kind == SERVER)
        .unwrap_or_else(|| panic!("a sync server span: {spans:#?}"));
    assert!(
        sync_server
            .name
            .starts_with("neuralis.sync.internal.v1.IndexFeedService/"),
        "{sync_server:?}"
    );
    assert!(
        spans
            .iter()
            .filter(|s| s.kind == CLIENT)
            .any(|s| s.span_id == sync_server.parent),
        "sync's span is a child of a discovery client span"
    );
    let failed_span = spans
        .iter()
        .find(|s| s.parent == hex::decode("00f067aa0ba902b8").unwrap())
        .unwrap_or_else(|| panic!("the failed call's span: {spans:#?}"));
    assert_eq!(failed_span.status, 2, "an error call sets the span status");
    cluster.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_finished_call_logs_one_line_with_its_trace_and_span_ids_and_no_token() {
    let data = tempfile::tempdir().unwrap();
    let mut child = Command::new(NODE)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--admin-listen",
            "",
            "--announce",
        ])
        .arg("--data-dir")
        .arg(data.path())
        .env_clear()
        .env("NEURALIS__IDENTITY__KEYS__KIND", "hs256")
        .env("NEURALIS__IDENTITY__KEYS__SECRET", SECRET)
        .env("NEURALIS__SERVICE_IDENTITY__KEYS__KIND", "hs256")
        .env("NEURALIS__SERVICE_IDENTITY__KEYS__SECRET", SERVICE_SECRET)
        .env("NEURALIS__TELEMETRY__LOG_FILTER", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr: SocketAddr = line
        .trim()
        .strip_prefix("listening ")
        .unwrap()
        .parse()
        .unwrap();
    let channel = neuralis_tests::cluster::channel(addr, None).unwrap();
    let trace = "0af7651916cd43dd8448eb211c80319c";
    let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.c2VjcmV0dG9rZW4";
    let mut client =
        neuralis_proto::discovery::v1::discovery_service_client::DiscoveryServiceClient::new(
            channel,
        );
    let mut request = tonic::Request::new(neuralis_proto::discovery::v1::ListPackagesRequest {
        scope: scope("projx", "a1", ""),
        ..Default::default()
    });
    request.metadata_mut().insert(
        "traceparent",
        format!("00-{trace}-b7ad6b7169203331-01").parse().unwrap(),
    );
    request
        .metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    // A token this deployment never signed: whatever the answer, the log shows its
    // code and never the token.
    let code = match client.list_packages(request).await {
        Ok(_) => "OK".to_owned(),
        Err(status) => code_name(status.code()),
    };
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let mut log = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut log).unwrap();
    child.wait().unwrap();
    let finished: Vec<serde_json::Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["fields"]["message"] == "rpc finished")
        .filter(|v| v["fields"]["method"] == "neuralis.discovery.v1.DiscoveryService/ListPackages")
        .collect();
    assert_eq!(finished.len(), 1, "one line per finished call: {log}");
    let entry = &finished[0];
    assert_eq!(entry["fields"]["code"], code.as_str());
    assert!(entry["fields"]["duration_ms"].is_number());
    assert_eq!(entry["trace_id"], trace, "{entry}");
    assert_eq!(entry["span_id"].as_str().map(str::len), Some(16), "{entry}");
    assert!(
        !log.contains(token) && !log.contains("projx"),
        "no token or project in the log: {log}"
    );
}
