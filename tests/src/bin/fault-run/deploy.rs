//! A split deployment on fixed ports, so any process can be killed and started again
//! where its clients expect it: policy replicas on `127.0.0.1:P` and `127.0.0.2:P`
//! behind one host name that resolves to both (a headless Service's stand-in), sync,
//! and discovery.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use neuralis_tests::process::{SECRET, SERVICE_SECRET, free_port};

/// The replica addresses the policy host name must resolve to.
pub const POLICY_IPS: [&str; 2] = ["127.0.0.1", "127.0.0.2"];

/// Where the processes find their stores and each other.
pub struct Plan {
    /// What every process runs at start: this package's `neuralis-node`, or a
    /// `neuralis` binary (run as `neuralis serve`, e.g. the previous release's).
    pub node_bin: PathBuf,
    pub database: String,
    pub redis: String,
    /// A host name resolving to both [`POLICY_IPS`].
    pub policy_host: String,
    pub policy_replicas: usize,
    /// Schema and channel prefix of this deployment.
    pub tag: String,
    pub dir: PathBuf,
}

/// The running processes and their fixed addresses.
pub struct Deployment {
    plan: Plan,
    env: HashMap<String, String>,
    pub policy_port: u16,
    pub sync: SocketAddr,
    pub internal: SocketAddr,
    pub discovery: SocketAddr,
    processes: HashMap<String, Child>,
    /// Each process's admin port (`/metrics`), as last announced.
    pub admin: HashMap<String, SocketAddr>,
    /// What a process started from now on runs (a rolling update changes it).
    bin: PathBuf,
}

impl Deployment {
    pub fn start(plan: Plan) -> Result<Self> {
        let policy_port = port_free_on_every_replica_address()?;
        let (sync_port, internal_port, discovery_port) = (free_port(), free_port(), free_port());
        let tag = &plan.tag;
        let env = HashMap::from([
            ("NEURALIS__IDENTITY__KEYS__KIND".into(), "hs256".into()),
            ("NEURALIS__IDENTITY__KEYS__SECRET".into(), SECRET.into()),
            (
                "NEURALIS__SERVICE_IDENTITY__KEYS__KIND".into(),
                "hs256".into(),
            ),
            (
                "NEURALIS__SERVICE_IDENTITY__KEYS__SECRET".into(),
                SERVICE_SECRET.into(),
            ),
            ("NEURALIS__SYNC__INDEX__KIND".into(), "postgres".into()),
            ("NEURALIS__SYNC__INDEX__URL".into(), plan.database.clone()),
            (
                "NEURALIS__SYNC__INDEX__SCHEMA".into(),
                format!("{tag}_index"),
            ),
            ("NEURALIS__SYNC__BUS__KIND".into(), "redis".into()),
            ("NEURALIS__SYNC__BUS__URL".into(), plan.redis.clone()),
            (
                "NEURALIS__SYNC__BUS__CHANNEL".into(),
                format!("neuralis:{tag}"),
            ),
            ("NEURALIS__POLICY__STORE__BACKEND".into(), "postgres".into()),
            ("NEURALIS__POLICY__STORE__URL".into(), plan.database.clone()),
            (
                "NEURALIS__POLICY__STORE__SCHEMA".into(),
                format!("{tag}_policy"),
            ),
            (
                "NEURALIS__PEERS__POLICY_URL".into(),
                format!("http://{}:{policy_port}", plan.policy_host),
            ),
            (
                "NEURALIS__PEERS__SYNC_FEED_URL".into(),
                format!("http://127.0.0.1:{internal_port}"),
            ),
            ("NEURALIS__PEERS__RESOLVE_INTERVAL_MS".into(), "1000".into()),
            ("NEURALIS__HEALTH_PROBE_INTERVAL_MS".into(), "500".into()),
            ("NEURALIS__TELEMETRY__LOG_FILTER".into(), "warn".into()),
            (
                "NEURALIS__SYNC__ALLOWED_ROOTS".into(),
                plan.dir.display().to_string(),
            ),
            // One member runs `--concurrency` calls, reads among them: the run checks
            // answers under faults, not the read share (`fair_share.rs` does).
            (
                "NEURALIS__DISCOVERY__READ_SHARE__PER_CALLER".into(),
                "4096".into(),
            ),
            (
                "NEURALIS__DISCOVERY__READ_SHARE__PER_PROJECT".into(),
                "4096".into(),
            ),
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
        ]);
        let mut deployment = Self {
            plan,
            env,
            policy_port,
            sync: format!("127.0.0.1:{sync_port}").parse()?,
            internal: format!("127.0.0.1:{internal_port}").parse()?,
            discovery: format!("127.0.0.1:{discovery_port}").parse()?,
            processes: HashMap::new(),
            admin: HashMap::new(),
            bin: PathBuf::new(),
        };
        deployment.bin = deployment.plan.node_bin.clone();
        for replica in 0..deployment.plan.policy_replicas {
            deployment.up(&format!("policy-{replica}"))?;
        }
        deployment.up("sync")?;
        deployment.up("discovery")?;
        Ok(deployment)
    }

    /// Starts process `name` (`policy-<n>`, `sync`, `discovery`) on its address and
    /// waits for its announcement.
    pub fn up(&mut self, name: &str) -> Result<()> {
        let (target, listen, internal) = match name {
            "sync" => ("sync", self.sync, Some(self.internal)),
            "discovery" => ("discovery", self.discovery, None),
            replica => {
                let n: usize = replica
                    .strip_prefix("policy-")
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(|| anyhow!("no process {replica}"))?;
                let ip = POLICY_IPS
                    .get(n)
                    .ok_or_else(|| anyhow!("at most {} policy replicas", POLICY_IPS.len()))?;
                let addr = format!("{ip}:{}", self.policy_port).parse()?;
                ("policy", addr, None)
            }
        };
        let data = self.plan.dir.join("data").join(name);
        let log = File::options()
            .create(true)
            .append(true)
            .open(self.plan.dir.join(format!("{name}.log")))?;
        let mut command = Command::new(&self.bin);
        if self.bin.file_name().is_some_and(|name| name == "neuralis") {
            command.arg("serve");
        }
        command
            .args(["--target", target, "--announce"])
            .args(["--listen", &listen.to_string()])
            .args(["--admin-listen", "127.0.0.1:0"])
            .arg("--data-dir")
            .arg(&data);
        if let Some(internal) = internal {
            command.args(["--internal-listen", &internal.to_string()]);
        }
        let mut child = command
            .env_clear()
            .envs(&self.env)
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {name}"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("{name}: no stdout"))?;
        let mut lines = BufReader::new(stdout);
        let mut line = String::new();
        loop {
            line.clear();
            if lines.read_line(&mut line)? == 0 {
                let _ = child.kill();
                let _ = child.wait();
                bail!("{name} exited before announcing (see {name}.log)");
            }
            if let Some(admin) = line.trim().strip_prefix("admin ") {
                self.admin.insert(name.to_owned(), admin.parse()?);
                break;
            }
        }
        // Keeps the pipe drained (and open) for the process's lifetime.
        std::thread::spawn(move || {
            let mut sink = String::new();
            while lines.read_line(&mut sink).is_ok_and(|n| n > 0) {
                sink.clear();
            }
        });
        self.processes.insert(name.to_owned(), child);
        Ok(())
    }

    /// A rolling update to `bin`: each process drained, then started again on it, one
    /// at a time (the policy replicas first, as a Deployment with maxUnavailable 1).
    pub fn roll_to(&mut self, bin: &Path) -> Result<()> {
        self.bin = bin.to_path_buf();
        let mut names: Vec<String> = self.processes.keys().cloned().collect();
        names.sort_by_key(|name| (!name.starts_with("policy"), name.clone()));
        for name in names {
            self.terminate(&name, Duration::from_secs(15))?;
            self.up(&name)?;
        }
        Ok(())
    }

    /// `neuralis migrate up` on the deployment's stores (the chart's hook Job).
    pub fn migrate_up(&self, neuralis: &Path) -> Result<()> {
        let out = Command::new(neuralis)
            .args(["migrate", "up", "--target", "sync", "--target", "policy"])
            .env_clear()
            .envs(&self.env)
            .output()
            .context("neuralis migrate up")?;
        if !out.status.success() {
            bail!("migrate up: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(())
    }

    /// SIGKILL: a crashed pod.
    pub fn kill(&mut self, name: &str) -> Result<()> {
        let mut child = self
            .processes
            .remove(name)
            .ok_or_else(|| anyhow!("no process {name}"))?;
        child.kill()?;
        child.wait()?;
        Ok(())
    }

    /// SIGTERM, then wait for the drain (SIGKILL after `limit`): a rolled pod.
    pub fn terminate(&mut self, name: &str, limit: Duration) -> Result<()> {
        let mut child = self
            .processes
            .remove(name)
            .ok_or_else(|| anyhow!("no process {name}"))?;
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()?;
        let deadline = Instant::now() + limit;
        while child.try_wait()?.is_none() {
            if Instant::now() > deadline {
                child.kill()?;
                child.wait()?;
                bail!("{name} was still draining after {limit:?}: killed");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// Processes that exited by themselves (a crash the run did not cause).
    pub fn exited(&mut self) -> Vec<String> {
        let mut gone = Vec::new();
        for (name, child) in &mut self.processes {
            if let Ok(Some(status)) = child.try_wait() {
                gone.push(format!("{name} ({status})"));
            }
        }
        gone
    }

    pub fn dir(&self) -> &Path {
        &self.plan.dir
    }

    /// Stops every process and drops the deployment's schemas.
    pub fn stop(mut self) {
        for child in self.processes.values_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.processes.clear();
        let tag = &self.plan.tag;
        let sql = format!(
            "DROP SCHEMA IF EXISTS {tag}_index CASCADE; DROP SCHEMA IF EXISTS {tag}_policy CASCADE;"
        );
        let _ = Command::new("psql")
            .arg(&self.plan.database)
            .args(["-q", "-c", &sql])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

impl Drop for Deployment {
    fn drop(&mut self) {
        for child in self.processes.values_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A port free on every policy replica address.
fn port_free_on_every_replica_address() -> Result<u16> {
    for _ in 0..50 {
        let port = free_port();
        let free = POLICY_IPS
            .iter()
            .all(|ip| std::net::TcpListener::bind((*ip, port)).is_ok());
        if free {
            return Ok(port);
        }
    }
    bail!("no port free on {POLICY_IPS:?}")
}

/// Whether `host` resolves to every policy replica address.
pub fn resolves_to_replicas(host: &str) -> bool {
    use std::net::ToSocketAddrs;
    let Ok(found) = (host, 1).to_socket_addrs() else {
        return false;
    };
    let found: Vec<String> = found.map(|a| a.ip().to_string()).collect();
    POLICY_IPS.iter().all(|ip| found.iter().any(|f| f == ip))
}
