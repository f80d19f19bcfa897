//! Operating it: metrics that move with the calls and never carry caller text, health
//! that follows what discovery needs, and a drain that ends open streams and exits 0.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures::StreamExt;
use neuralis_host::Shutdown;
use neuralis_host::admin::{Readiness, serve_admin};
use neuralis_tests::Cluster;
use neuralis_tests::cluster::{channel, eventually};
use neuralis_tests::fixture::{self, REPO, read_policy, register, scope, visible};
use neuralis_tests::raw;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonic::transport::Endpoint;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const SECRET: &str = "0123456789abcdef0123456789abcdef0123456789abcdef";
const SERVICE_SECRET: &str = "fedcba9876543210fedcba9876543210fedcba9876543210";

async fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(format!("GET {path} HTTP/1.1\r\nHost: admin\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).await.unwrap();
    let code = text[9..12].parse().unwrap();
    (code, text.split_once("\r\n\r\n").unwrap().1.to_owned())
}

/// `name{labels} value` lines of a scrape, as (series, value).
fn series(text: &str) -> HashMap<String, f64> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .filter_map(|line| {
            let (name, value) = line.rsplit_once(' ')?;
            Some((name.to_owned(), value.parse().ok()?))
        })
        .collect()
}

/// The sum of every series of `family` whose labels contain all of `with`.
fn total(scrape: &HashMap<String, f64>, family: &str, with: &[&str]) -> f64 {
    scrape
        .iter()
        .filter(|(name, _)| {
            (name.as_str() == family || name.starts_with(&format!("{family}{{")))
                && with.iter().all(|w| name.contains(w))
        })
        .map(|(_, v)| v)
        .sum()
}

/// Every label value of a scrape.
fn label_values(text: &str) -> BTreeSet<String> {
    let mut values = BTreeSet::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((_, rest)) = line.split_once('{') else {
            continue;
        };
        let Some((labels, _)) = rest.rsplit_once('}') else {
            continue;
        };
        for pair in labels.split("\",") {
            if let Some((_, value)) = pair.split_once("=\"") {
                values.insert(value.trim_end_matches('"').to_owned());
            }
        }
    }
    values
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_move_with_calls_and_no_label_value_carries_caller_text() {
    // The metrics are the process's: an all-in-one node in this process, scraped over
    // a real admin port.
    let cluster = Cluster::all_in_one(HashMap::new()).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let admin_addr = listener.local_addr().unwrap();
    let shutdown = Shutdown::new();
    tokio::spawn(serve_admin(
        listener,
        Readiness::new(shutdown.clone()),
        shutdown.clone(),
    ));
    let before = series(&http_get(admin_addr, "/metrics").await.1);

    let (project, slug, subject) = ("zebraproj77", "quokkaslug", "narwhalsubject");
    let admin = cluster.token("opsnarwhal", "owner", None, project);
    let member = cluster.token(subject, "member", Some("agentwombat"), project);
    let dir = tempfile::tempdir().unwrap();
    fixture::write_tree(dir.path(), REPO).unwrap();
    register(
        &cluster,
        &admin,
        project,
        slug,
        dir.path(),
        read_policy(vec![]),
    )
    .await
    .unwrap();
    for _ in 0..3 {
        visible(&cluster, &member, scope(project, "agentwombat", ""))
            .await
            .unwrap();
    }
    // Calls an attacker chooses: a path that is a token, and a forged credential.
    let grpc = channel(cluster.addrs["discovery"], None).unwrap();
    let forged = cluster.forged_token(project);
    let odd = raw::Rpc {
        path: format!("/neuralis.discovery.v1.DiscoveryService/{member}"),
        streaming: false,
    };
    assert_ne!(
        raw::call(&grpc, &odd, Vec::new(), Some(&forged)).await.code,
        tonic::Code::Ok
    );
    let list = raw::Rpc {
        path: "/neuralis.discovery.v1.DiscoveryService/ListPackages".into(),
        streaming: false,
    };
    let request =
        prost::Message::encode_to_vec(&neuralis_proto::discovery::v1::ListPackagesRequest {
            scope: scope(project, "agentwombat", ""),
        });
    raw::call(&grpc, &list, request, Some(&forged)).await;
    let sources = raw::Rpc {
        path: "/neuralis.sync.v1.SourceService/ListSources".into(),
        streaming: false,
    };
    let refused = raw::call(&grpc, &sources, Vec::new(), None).await.code;
    assert_ne!(refused, tonic::Code::Ok);
    let refused = format!("code=\"{}\"", upper_snake(&format!("{refused:?}")));

    let text = http_get(admin_addr, "/metrics").await.1;
    let after = series(&text);
    let moved =
        |family: &str, with: &[&str]| total(&after, family, with) > total(&before, family, with);
    let list_packages = "method=\"ListPackages\"";
    for (family, with) in [
        (
            "neuralis_rpc_server_duration_seconds_count",
            vec![list_packages, "code=\"OK\""],
        ),
        (
            "neuralis_rpc_server_duration_seconds_count",
            vec!["method=\"ListSources\"", refused.as_str()],
        ),
        (
            "neuralis_rpc_server_duration_seconds_count",
            vec!["method=\"unknown\""],
        ),
        (
            "neuralis_rpc_server_duration_seconds_count",
            vec!["method=\"SyncSource\""],
        ),
        ("neuralis_inventory_lookups_total", vec![]),
        ("neuralis_inventory_refills_total", vec!["kind=\"full\""]),
        (
            "neuralis_invalidation_events_total",
            vec!["phase=\"finish\""],
        ),
        ("neuralis_sync_runs_total", vec!["outcome=\"succeeded\""]),
        ("neuralis_sync_files_total", vec!["result=\"indexed\""]),
        ("neuralis_sync_read_bytes_total", vec![]),
        ("neuralis_policy_decisions_total", vec!["kind=\"file\""]),
    ] {
        assert!(
            moved(family, &with),
            "{family} {with:?} did not move:\n{text}"
        );
    }
    for family in [
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_open_fds",
    ] {
        assert!(after.contains_key(family), "{family} missing");
    }

    let values = label_values(&text);
    let dir_text = dir.path().display().to_string();
    for secret in [
        project,
        slug,
        subject,
        "opsnarwhal",
        "agentwombat",
        &member,
        &admin,
        &forged,
        dir_text.as_str(),
        "SKILL.md",
        ".claude",
    ] {
        assert!(
            !values
                .iter()
                .any(|v| v.contains(secret) || secret.contains(v.as_str()) && v.len() > 12),
            "a label value carries {secret:?}: {values:?}"
        );
    }
    shutdown.trigger();
    cluster.stop().await.unwrap();
}

/// `Unauthenticated` as `UNAUTHENTICATED`, `InvalidArgument` as `INVALID_ARGUMENT`.
fn upper_snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// One `neuralis-node` process, and the addresses it announced.
struct Process {
    child: Child,
    grpc: SocketAddr,
    internal: Option<SocketAddr>,
    admin: Option<SocketAddr>,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn(args: &[&str], env: &HashMap<String, String>, data: &std::path::Path) -> Process {
    let mut child = Command::new(NODE)
        .args(args)
        .args(["--announce", "--admin-listen", "127.0.0.1:0"])
        .arg("--data-dir")
        .arg(data)
        .env_clear()
        .envs(env)
        .env("NEURALIS__IDENTITY__KEYS__KIND", "hs256")
        .env("NEURALIS__IDENTITY__KEYS__SECRET", SECRET)
        .env("NEURALIS__SERVICE_IDENTITY__KEYS__KIND", "hs256")
        .env("NEURALIS__SERVICE_IDENTITY__KEYS__SECRET", SERVICE_SECRET)
        .env("NEURALIS__TELEMETRY__LOG_FILTER", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (mut grpc, mut internal, mut admin) = (None, None, None);
    let expect_internal = args.contains(&"sync");
    while grpc.is_none() || admin.is_none() || (expect_internal && internal.is_none()) {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap() == 0 {
            panic!("{args:?} exited before announcing");
        }
        let line = line.trim();
        if let Some(addr) = line.strip_prefix("listening ") {
            grpc = Some(addr.parse().unwrap());
        } else if let Some(addr) = line.strip_prefix("internal ") {
            internal = Some(addr.parse().unwrap());
        } else if let Some(addr) = line.strip_prefix("admin ") {
            admin = Some(addr.parse().unwrap());
        }
    }
    Process {
        child,
        grpc: grpc.unwrap(),
        internal,
        admin,
    }
}

async fn health(addr: SocketAddr, service: &str) -> Option<ServingStatus> {
    let channel = Endpoint::from_shared(format!("http://{addr}"))
        .ok()?
        .connect()
        .await
        .ok()?;
    let answer = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: service.into(),
        })
        .await
        .ok()?;
    Some(answer.into_inner().status())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

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
    let env: HashMap<String, String> = HashMap::from([
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
    let policy = spawn(&policy_args, &env, &data.path().join("policy"));
    let sync = spawn(
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

    let _policy = spawn(&policy_args, &env, &data.path().join("policy"));
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
    let mut node = spawn(&["--listen", "127.0.0.1:0"], &env, data.path());
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
    let channel = channel(addr, None).unwrap();
    let trace = "0af7651916cd43dd8448eb211c80319c";
    let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.c2VjcmV0dG9rZW4";
    let mut client =
        neuralis_proto::discovery::v1::discovery_service_client::DiscoveryServiceClient::new(
            channel,
        );
    let mut request = tonic::Request::new(neuralis_proto::discovery::v1::ListPackagesRequest {
        scope: scope("projx", "a1", ""),
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
        Err(status) => upper_snake(&format!("{:?}", status.code())),
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_a_sync_source_stream_ends_it_and_exits_zero_within_the_grace_period() {
    use neuralis_proto::sync::v1 as sync;
    use neuralis_sync::SourceApi;
    use neuralis_sync::grpc::SourceGrpcClient;
    let data = tempfile::tempdir().unwrap();
    let env = HashMap::from([("NEURALIS__DRAIN_DEADLINE_MS".to_owned(), "5000".to_owned())]);
    let mut node = spawn(
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
                    scope: sync::SourceScope::Project as i32,
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
