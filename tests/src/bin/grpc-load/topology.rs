//! The deployments under load, each process started as the chart runs it: all-in-one
//! (one process, embedded stores, in-process bus), or split (sync, discovery and one or
//! two policy replicas as separate processes on PostgreSQL and Redis). Every process is
//! this binary re-executed as `grpc-load node ...`, which runs `neuralis serve`'s code.
//!
//! Two policy replicas are reached as a headless Service's pods are: both listen on
//! the same port, on 127.0.0.1 and 127.0.0.2, and discovery is given a host name that
//! resolves to both (an `/etc/hosts` entry stands for the cluster DNS), so its own
//! resolver and balancer spread the calls.

use std::collections::HashMap;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::Path;

use anyhow::{Context, Result, bail};
use neuralis_tests::process::{Process, free_port, spawn};

/// One deployment's processes and where its clients call.
pub struct Deployment {
    /// Discovery's gRPC address (ListPackages, ActivateSkill).
    pub discovery: SocketAddr,
    /// Sync's public address (source administration).
    pub sync: SocketAddr,
    /// Every policy replica's address (Evaluate).
    pub policy: Vec<SocketAddr>,
    /// Every policy replica's admin port (its `/metrics`).
    pub policy_admin: Vec<SocketAddr>,
    processes: Vec<Process>,
    cleanup: Option<(String, String)>,
}

impl Deployment {
    /// Stops every process and drops the run's PostgreSQL schemas.
    pub fn stop(mut self) {
        self.processes.clear();
        if let Some((database, tag)) = self.cleanup.take() {
            let sql = format!(
                "DROP SCHEMA IF EXISTS {tag}_index CASCADE; DROP SCHEMA IF EXISTS {tag}_policy CASCADE;"
            );
            let _ = std::process::Command::new("psql")
                .arg(&database)
                .args(["-q", "-c", &sql])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        }
    }
}

fn this_binary() -> Result<String> {
    Ok(std::env::current_exe()
        .context("locating this binary")?
        .display()
        .to_string())
}

fn args<'a>(target: Option<&'a str>, listen: &'a str) -> Vec<&'a str> {
    let mut args = vec!["node", "--listen", listen];
    if let Some(target) = target {
        args.extend(["--target", target]);
    }
    if target == Some("sync") {
        args.extend(["--internal-listen", "127.0.0.1:0"]);
    }
    args
}

/// The all-in-one process: embedded stores, in-process bus, nothing else to run.
pub fn all_in_one(data: &Path) -> Result<Deployment> {
    let node = this_binary()?;
    let env: HashMap<String, String> = [(
        "NEURALIS__SYNC__ALLOWED_ROOTS".to_owned(),
        std::env::temp_dir().display().to_string(),
    )]
    .into_iter()
    .chain(unshared_reads())
    .collect();
    let process = spawn(
        &node,
        &args(None, "127.0.0.1:0"),
        &env,
        &data.join("all-in-one"),
    );
    Ok(Deployment {
        discovery: process.grpc,
        sync: process.grpc,
        policy: vec![process.grpc],
        policy_admin: process.admin.into_iter().collect(),
        processes: vec![process],
        cleanup: None,
    })
}

/// A split deployment with `replicas` policy processes (1 or 2) reached as
/// `http://<policy_host>:<port>` when there are two.
pub fn split(data: &Path, replicas: usize, policy_host: &str) -> Result<Deployment> {
    let node = this_binary()?;
    let database = std::env::var("NEURALIS_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let redis = std::env::var("NEURALIS_TEST_REDIS_URL")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("randomness: {e}"))?;
    let tag = format!("load_{}", hex::encode(bytes));
    let mut env = split_env(&database, &redis, &tag);

    let port = free_port();
    let hosts = ["127.0.0.1", "127.0.0.2"];
    let mut processes = Vec::new();
    let mut policy = Vec::new();
    let mut policy_admin = Vec::new();
    for (i, host) in hosts.iter().take(replicas.clamp(1, 2)).enumerate() {
        let listen = format!("{host}:{port}");
        let process = spawn(
            &node,
            &args(Some("policy"), &listen),
            &env,
            &data.join(format!("policy-{i}")),
        );
        policy.push(process.grpc);
        policy_admin.extend(process.admin);
        processes.push(process);
    }
    let policy_url = if policy.len() > 1 {
        check_resolves_to_both(policy_host, port, &policy)?;
        format!("http://{policy_host}:{port}")
    } else {
        format!("http://127.0.0.1:{port}")
    };
    env.insert("NEURALIS__PEERS__POLICY_URL".into(), policy_url);
    let sync = spawn(
        &node,
        &args(Some("sync"), "127.0.0.1:0"),
        &env,
        &data.join("sync"),
    );
    let feed = sync
        .internal
        .context("sync announced no internal listener")?;
    env.insert(
        "NEURALIS__PEERS__SYNC_FEED_URL".into(),
        format!("http://{feed}"),
    );
    let discovery = spawn(
        &node,
        &args(Some("discovery"), "127.0.0.1:0"),
        &env,
        &data.join("discovery"),
    );
    let deployment = Deployment {
        discovery: discovery.grpc,
        sync: sync.grpc,
        policy,
        policy_admin,
        processes: {
            processes.push(sync);
            processes.push(discovery);
            processes
        },
        cleanup: Some((database, tag)),
    };
    Ok(deployment)
}

/// Two replicas need a name naming both, as a headless Service's DNS answer does.
fn check_resolves_to_both(host: &str, port: u16, replicas: &[SocketAddr]) -> Result<()> {
    let found: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map(Iterator::collect)
        .unwrap_or_default();
    if replicas.iter().all(|r| found.contains(r)) {
        return Ok(());
    }
    bail!(
        "{host} must resolve to 127.0.0.1 and 127.0.0.2 (it stands for policy's headless \
         Service); add to /etc/hosts:\n  127.0.0.1 {host}\n  127.0.0.2 {host}\n\
         or pass --policy-host with such a name (found {found:?})"
    )
}

fn split_env(database: &str, redis: &str, tag: &str) -> HashMap<String, String> {
    HashMap::from([
        ("NEURALIS__SYNC__INDEX__KIND".into(), "postgres".into()),
        ("NEURALIS__SYNC__INDEX__URL".into(), database.into()),
        (
            "NEURALIS__SYNC__INDEX__SCHEMA".into(),
            format!("{tag}_index"),
        ),
        ("NEURALIS__SYNC__BUS__KIND".into(), "redis".into()),
        ("NEURALIS__SYNC__BUS__URL".into(), redis.into()),
        (
            "NEURALIS__SYNC__BUS__CHANNEL".into(),
            format!("neuralis:{tag}"),
        ),
        ("NEURALIS__POLICY__STORE__BACKEND".into(), "postgres".into()),
        ("NEURALIS__POLICY__STORE__URL".into(), database.into()),
        (
            "NEURALIS__POLICY__STORE__SCHEMA".into(),
            format!("{tag}_policy"),
        ),
        (
            "NEURALIS__SYNC__ALLOWED_ROOTS".into(),
            std::env::temp_dir().display().to_string(),
        ),
    ])
    .into_iter()
    .chain(unshared_reads())
    .collect()
}

/// The load's one member opens `--concurrency` reads at once (`ActivateSkill`,
/// `ReadFile`): the bench measures throughput, so its server's read share is wider
/// than any concurrency it runs (the share's own test is `fair_share.rs`).
fn unshared_reads() -> [(String, String); 2] {
    [
        (
            "NEURALIS__DISCOVERY__READ_SHARE__PER_CALLER".into(),
            "4096".into(),
        ),
        (
            "NEURALIS__DISCOVERY__READ_SHARE__PER_PROJECT".into(),
            "4096".into(),
        ),
    ]
}

/// `Evaluate` calls each replica answered OK so far, from its latency histogram.
pub async fn evaluations(deployment: &Deployment) -> Vec<u64> {
    let mut counts = Vec::new();
    for admin in &deployment.policy_admin {
        let (_, text) = neuralis_tests::process::http_get(*admin, "/metrics").await;
        let count: f64 = text
            .lines()
            .filter(|line| {
                line.starts_with("neuralis_rpc_server_duration_seconds_count")
                    && line.contains("method=\"Evaluate\"")
                    && line.contains("code=\"OK\"")
            })
            .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
            .sum();
        counts.push(count as u64);
    }
    counts
}
