//! The chart boots: for the golden renders of `helm/ci/` (checked against Helm's own
//! render by `helm/ci/check.py` in `make test`), every Deployment's and StatefulSet's
//! container is started on this machine exactly as its pod would run it (its args,
//! its environment with Secrets and ConfigMaps resolved, its mounted files, its user,
//! a read-only working directory where the root filesystem is read-only), with service
//! hosts mapped to local ports and to the test PostgreSQL and Redis. Every process
//! must pass its readiness probe (SERVING), the `helm test` pod must pass, and every
//! process must exit 0 on SIGTERM.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use neuralis_tests::pki::Pki;
use neuralis_tests::pod::{Container, Probe, Render, set_mode};
use neuralis_tests::ports::free_port;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

const CI_DATABASE: &str = "postgres://neuralis:ci-password@postgresql.db:5432/neuralis";
const CI_REDIS: &str = "redis://redis.db:6379";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_in_one_boots() {
    boot("all-in-one", |_| HashMap::new()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn distributed_boots() {
    boot("distributed", |_| HashMap::new()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_autoscaling_boots() {
    boot("policy-autoscaling", |_| HashMap::new()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn distributed_with_existing_secrets_and_mutual_tls_boots() {
    boot("distributed-existing-secret", |dir| {
        let names = [
            "ci-neuralis-sync",
            "ci-neuralis-discovery",
            "ci-neuralis-policy",
        ];
        let pki = Pki::create(&dir.join("pki"), &names).unwrap();
        let read = |p: &Path| std::fs::read_to_string(p).unwrap();
        let jwks =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../libs/identity/tests/fixtures/jwks.json");
        HashMap::from([
            (
                "neuralis-settings".to_owned(),
                BTreeMap::from([
                    (
                        "NEURALIS__SYNC__INDEX__URL".to_owned(),
                        CI_DATABASE.to_owned(),
                    ),
                    (
                        "NEURALIS__POLICY__STORE__URL".to_owned(),
                        CI_DATABASE.to_owned(),
                    ),
                    ("NEURALIS__SYNC__BUS__URL".to_owned(), CI_REDIS.to_owned()),
                    (
                        "NEURALIS__SERVICE_IDENTITY__KEYS__SECRET".to_owned(),
                        "a-service-credential-key-of-at-least-32-bytes".to_owned(),
                    ),
                ]),
            ),
            (
                "neuralis-keys".to_owned(),
                BTreeMap::from([("jwks.json".to_owned(), read(&jwks))]),
            ),
            (
                "neuralis-tls".to_owned(),
                BTreeMap::from([
                    ("tls.crt".to_owned(), read(&pki.cert)),
                    ("tls.key".to_owned(), read(&pki.key)),
                    ("ca.crt".to_owned(), read(&pki.ca)),
                ]),
            ),
        ])
    })
    .await;
}

/// Boots the golden render `name`; `external` makes the Secrets the operator would.
async fn boot(name: &str, external: fn(&Path) -> HashMap<String, BTreeMap<String, String>>) {
    let golden = workspace().join(format!("helm/ci/golden/{name}.yaml"));
    let mut render = Render::parse(&std::fs::read_to_string(&golden).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    set_mode(dir.path(), 0o755).unwrap();
    render.external = external(dir.path());
    let database = Database::create();
    let redis = std::env::var("NEURALIS_TEST_REDIS_URL")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let ports: HashMap<String, u16> = ["sync", "discovery", "policy", "all-in-one"]
        .into_iter()
        .map(|c| (c.to_owned(), free_port()))
        .collect();
    // Sync's internal listener (the index feed), reached by discovery alone.
    let feed_port = free_port();
    // Each process's admin port (/readyz, the readiness probe).
    let admin_ports: HashMap<String, u16> =
        ports.keys().map(|c| (c.clone(), free_port())).collect();
    let binary = neuralis_binary();
    let rewrite = |component: &str, text: &str| {
        let mut text = text
            .replace(CI_DATABASE, &database.url)
            .replace(CI_REDIS, &redis);
        for (other, port) in &ports {
            // Callers reach policy through its headless Service (every replica).
            text = text.replace(
                &format!("ci-neuralis-{other}-headless:7400"),
                &format!("127.0.0.1:{port}"),
            );
            let host = if other == "all-in-one" {
                "ci-neuralis:7400".to_owned()
            } else {
                format!("ci-neuralis-{other}:7400")
            };
            text = text.replace(&host, &format!("127.0.0.1:{port}"));
        }
        for feed in ["ci-neuralis-sync-headless:7401", "ci-neuralis-sync:7401"] {
            text = text.replace(feed, &format!("127.0.0.1:{feed_port}"));
        }
        if component == "sync" {
            text = text.replace("0.0.0.0:7401", &format!("127.0.0.1:{feed_port}"));
        }
        if let Some(own) = ports.get(component) {
            for listen in ["0.0.0.0:7400", "127.0.0.1:7400"] {
                text = text.replace(listen, &format!("127.0.0.1:{own}"));
            }
        }
        if let Some(admin) = admin_ports.get(component) {
            text = text.replace("0.0.0.0:9464", &format!("127.0.0.1:{admin}"));
        }
        text.replace("/usr/local/bin/neuralis", &binary.display().to_string())
    };
    let containers = render.containers(dir.path(), true, &rewrite).unwrap();
    let cwd = dir.path().join("read-only-root");
    std::fs::create_dir_all(&cwd).unwrap();
    set_mode(&cwd, 0o555).unwrap();

    // Helm runs the pre-install hooks (the migration Job) to completion first.
    let (hooks, containers): (Vec<_>, Vec<_>) = containers.into_iter().partition(|c| c.pre_install);
    for hook in &hooks {
        let out = command(&binary, &hook.args, hook, &cwd).output().unwrap();
        assert!(
            out.status.success(),
            "{name}: pre-install hook {} failed: {}",
            hook.name,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (servers, tests): (Vec<_>, Vec<_>) =
        containers.into_iter().partition(|c| c.component != "test");
    assert!(!servers.is_empty(), "{name}: no workloads rendered");
    assert!(!tests.is_empty(), "{name}: no helm test pod rendered");
    let mut running: Vec<(Container, Child)> = Vec::new();
    for container in servers {
        assert!(
            container.read_only_root,
            "{}: the pod's root filesystem is read-only",
            container.name
        );
        let child = start(&binary, &container, &cwd, dir.path());
        running.push((container, child));
    }
    for (container, child) in &mut running {
        let port = ports[&container.component];
        let admin = admin_ports[&container.component];
        wait_ready(container, child, (port, admin), &cwd, dir.path()).await;
    }
    for test in &tests {
        let status = command(&binary, &test.args, test, &cwd).status().unwrap();
        assert!(
            status.success(),
            "{name}: helm test container {} failed",
            test.name
        );
    }
    for (container, child) in &mut running {
        stop(container, child, dir.path()).await;
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn neuralis_binary() -> PathBuf {
    neuralis_tests::process::neuralis_binary(env!("CARGO_BIN_EXE_neuralis-node"))
}

/// `program args` as the pod would run it: only the container's environment, the
/// pod's user (when this test runs as root), a read-only working directory.
fn command(program: &Path, args: &[String], container: &Container, cwd: &Path) -> Command {
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(container.env.iter().cloned())
        .current_dir(cwd);
    if let Some(uid) = container.run_as.filter(|_| is_root()) {
        use std::os::unix::process::CommandExt;
        command.uid(uid).gid(uid);
    }
    command
}

fn start(binary: &Path, container: &Container, cwd: &Path, dir: &Path) -> Child {
    let log = std::fs::File::create(log_path(dir, container)).unwrap();
    command(binary, &container.args, container, cwd)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", container.name))
}

async fn wait_ready(
    container: &Container,
    child: &mut Child,
    port: (u16, u16),
    cwd: &Path,
    dir: &Path,
) {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!(
                "{} exited with {status} before serving: {}",
                container.name,
                log(dir, container)
            );
        }
        if probe_passes(container, port, cwd).await {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{} never reported SERVING: {}",
            container.name,
            log(dir, container)
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn probe_passes(container: &Container, (port, admin): (u16, u16), cwd: &Path) -> bool {
    match &container.probe {
        Some(Probe::Http { path }) => http_ok(admin, path).await,
        Some(Probe::Grpc { service }) => {
            let Ok(endpoint) =
                tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{port}"))
            else {
                return false;
            };
            let Ok(channel) = endpoint.connect().await else {
                return false;
            };
            let answer = HealthClient::new(channel)
                .check(HealthCheckRequest {
                    service: service.clone(),
                })
                .await;
            answer.is_ok_and(|a| a.into_inner().status() == ServingStatus::Serving)
        }
        Some(Probe::Exec { command: argv }) => {
            let (program, args) = argv.split_first().expect("a probe command");
            command(Path::new(program), args, container, cwd)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        }
        None => panic!("{} has no readiness probe", container.name),
    }
}

async fn stop(container: &Container, child: &mut Child, dir: &Path) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(
                status.success(),
                "{} exited with {status} on SIGTERM: {}",
                container.name,
                log(dir, container)
            );
            return;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{} did not stop after SIGTERM", container.name);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether `GET path` on 127.0.0.1:`port` answers 200 (what the kubelet's httpGet
/// probe checks).
async fn http_ok(port: u16, path: &str) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Ok(mut stream) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await else {
        return false;
    };
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    if stream.write_all(request.as_bytes()).await.is_err() {
        return false;
    }
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer).await;
    answer.starts_with("HTTP/1.1 200")
}

fn log_path(dir: &Path, container: &Container) -> PathBuf {
    dir.join(format!("{}.log", container.name.replace('/', "_")))
}

fn log(dir: &Path, container: &Container) -> String {
    std::fs::read_to_string(log_path(dir, container)).unwrap_or_default()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.starts_with(b"0\n"))
}

/// A database of this test's own on the test PostgreSQL, dropped afterwards.
struct Database {
    admin: String,
    name: String,
    url: String,
}

impl Database {
    fn create() -> Self {
        let admin = std::env::var("NEURALIS_TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
        let mut bytes = [0u8; 6];
        getrandom::fill(&mut bytes).unwrap();
        let name = format!("neuralis_boot_{}", hex::encode(bytes));
        psql(&admin, &format!("CREATE DATABASE {name}"));
        let base = admin
            .rsplit_once('/')
            .map(|(base, _)| base)
            .unwrap_or(&admin);
        let url = format!("{base}/{name}");
        Self { admin, name, url }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        psql(
            &self.admin,
            &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
        );
    }
}

fn psql(url: &str, sql: &str) {
    let status = Command::new("psql")
        .arg(url)
        .args(["-q", "-v", "ON_ERROR_STOP=1", "-c", sql])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "psql: {sql}");
}
