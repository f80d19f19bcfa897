//! A running deployment for one scenario, in either shape, reached over gRPC only.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use neuralis::node::{self, NodeSettings, Targets};
use neuralis_discovery::DiscoveryApi;
use neuralis_discovery::grpc::DiscoveryGrpcClient;
use neuralis_host::Shutdown;
use neuralis_host::tls::ClientTls;
use neuralis_identity::{BearerToken, KeySource, Secret, ServiceIdentityConfig, ServiceSigner};
use neuralis_policy::{PolicyApi, PolicyGrpcClient};
use neuralis_sync::SourceApi;
use neuralis_sync::grpc::SourceGrpcClient;
use tonic::transport::{Channel, Endpoint};

use crate::pki::Pki;

/// The two shapes every scenario runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One process, embedded stores, in-process bus.
    AllInOne,
    /// Three processes, PostgreSQL stores, Redis bus.
    Split,
    /// Split, with TLS on every port, mutual TLS between the services and towards
    /// the test's clients, from certificates made for the run.
    SplitTls,
}

/// A deployment plus clients of its three services.
pub struct Cluster {
    pub mode: Mode,
    /// The administration of sources (sync's public port).
    pub sources: Arc<dyn SourceApi>,
    pub policy: Arc<dyn PolicyApi>,
    pub discovery: Arc<dyn DiscoveryApi>,
    /// Where each service answers: `sync`, `policy`, `discovery`, and in split mode
    /// `sync-internal` (the index feed's listener).
    pub addrs: HashMap<&'static str, SocketAddr>,
    secret: Secret,
    service_secret: Secret,
    processes: HashMap<&'static str, Child>,
    node: Option<node::Node>,
    _data: tempfile::TempDir,
    cleanup: Option<String>,
}

impl Cluster {
    /// Starts a cluster of `mode`; split mode runs `node_bin` (an integration test
    /// passes `env!("CARGO_BIN_EXE_neuralis-node")`).
    pub async fn start(mode: Mode, node_bin: &str) -> Result<Self> {
        match mode {
            Mode::AllInOne => Self::all_in_one(HashMap::new()).await,
            Mode::Split => Self::split(node_bin, false).await,
            Mode::SplitTls => Self::split(node_bin, true).await,
        }
    }

    /// All three services in this process, on `127.0.0.1:0`, with `overrides` applied
    /// as `NEURALIS__*` variables (e.g. a Redis bus).
    pub async fn all_in_one(overrides: HashMap<String, String>) -> Result<Self> {
        let data = tempfile::tempdir()?;
        let (secret, service_secret) = (random_secret()?, random_secret()?);
        let mut env = identity_env(&secret, &service_secret);
        env.extend(overrides);
        let args = node::ServeArgs {
            data_dir: Some(data.path().to_owned()),
            ..Default::default()
        };
        let (mut settings, targets): (NodeSettings, Targets) = args.settings(&env)?;
        settings.listen = "127.0.0.1:0".into();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let node = node::start(settings, targets, listener, Shutdown::new()).await?;
        let addr = node.addr;
        let channel = channel(addr, None)?;
        let addrs = ["sync", "policy", "discovery"]
            .into_iter()
            .map(|name| (name, addr))
            .collect();
        Ok(Self {
            mode: Mode::AllInOne,
            sources: Arc::new(SourceGrpcClient::new(channel.clone())),
            policy: Arc::new(PolicyGrpcClient::new(channel.clone(), 32 << 20)),
            discovery: Arc::new(DiscoveryGrpcClient::new(channel)),
            addrs,
            secret,
            service_secret,
            processes: HashMap::new(),
            node: Some(node),
            _data: data,
            cleanup: None,
        })
    }

    /// Three `neuralis-node` processes on PostgreSQL and Redis, each its own schema and
    /// channel so scenarios run side by side; with `tls`, every port serves TLS and
    /// requires a client certificate, and every call between them presents one.
    pub async fn split(node_bin: &str, tls: bool) -> Result<Self> {
        let data = tempfile::tempdir()?;
        let (secret, service_secret) = (random_secret()?, random_secret()?);
        let tag = format!("e2e_{}", hex::encode(random_bytes::<6>()?));
        let database = std::env::var("NEURALIS_TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
        let redis = std::env::var("NEURALIS_TEST_REDIS_URL")
            .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
        let mut env = identity_env(&secret, &service_secret);
        env.extend(split_env(&database, &redis, &tag));
        let client_tls = if tls {
            let pki = Pki::create(&data.path().join("tls"), &[])?;
            env.extend(tls_env(&pki));
            Some(ClientTls::load(
                "peers",
                Some(&pki.ca),
                Some(&pki.cert),
                Some(&pki.key),
            )?)
        } else {
            None
        };
        let scheme = if tls { "https" } else { "http" };
        let mut processes = HashMap::new();
        let mut addrs = HashMap::new();
        for target in ["policy", "sync"] {
            let (child, addr, internal) = spawn_node(node_bin, target, &env, data.path())?;
            processes.insert(target, child);
            addrs.insert(target, addr);
            if let Some(internal) = internal {
                addrs.insert("sync-internal", internal);
            }
            if target == "policy" {
                // Sync asks policy to forget a source before deleting it.
                env.insert(
                    "NEURALIS__PEERS__POLICY_URL".into(),
                    format!("{scheme}://{addr}"),
                );
            }
        }
        let feed = addrs
            .get("sync-internal")
            .ok_or_else(|| anyhow!("sync announced no internal listener"))?;
        env.insert(
            "NEURALIS__PEERS__SYNC_FEED_URL".into(),
            format!("{scheme}://{feed}"),
        );
        let (child, addr, _) = spawn_node(node_bin, "discovery", &env, data.path())?;
        processes.insert("discovery", child);
        addrs.insert("discovery", addr);
        let tls = client_tls.as_ref();
        Ok(Self {
            mode: if tls.is_some() {
                Mode::SplitTls
            } else {
                Mode::Split
            },
            sources: Arc::new(SourceGrpcClient::new(channel(addrs["sync"], tls)?)),
            policy: Arc::new(PolicyGrpcClient::new(
                channel(addrs["policy"], tls)?,
                32 << 20,
            )),
            discovery: Arc::new(DiscoveryGrpcClient::new(channel(addrs["discovery"], tls)?)),
            addrs,
            secret,
            service_secret,
            processes,
            node: None,
            _data: data,
            cleanup: Some(format!("{database}|{tag}")),
        })
    }

    /// The data directory of the process running `service` (`sync`, `policy`,
    /// `discovery`): one directory in all-in-one mode, one per process in split mode.
    pub fn data_dir(&self, service: &str) -> std::path::PathBuf {
        match self.mode {
            Mode::AllInOne => self._data.path().to_owned(),
            Mode::Split | Mode::SplitTls => self._data.path().join(service),
        }
    }

    /// A signed caller token, bound to `project`.
    pub fn token(&self, subject: &str, role: &str, agent: Option<&str>, project: &str) -> String {
        self.mint(node::keys::TokenFor {
            subject: subject.into(),
            role: role.into(),
            agent: agent.map(str::to_owned),
            project: Some(project.into()),
            ttl_seconds: 600,
            ..node::keys::TokenFor::default()
        })
    }

    /// A signed platform-wide caller token (acts in every project).
    pub fn platform_token(&self, subject: &str, role: &str) -> String {
        self.mint(node::keys::TokenFor {
            subject: subject.into(),
            role: role.into(),
            platform: true,
            ttl_seconds: 600,
            ..node::keys::TokenFor::default()
        })
    }

    /// A signed caller token with these claims.
    pub fn mint(&self, who: node::keys::TokenFor) -> String {
        node::keys::mint_token(&self.secret, who).unwrap_or_default()
    }

    /// A caller token of `project` that expired an hour ago (signed with the real key).
    pub fn expired_token(&self, project: &str) -> String {
        claims_token(&self.secret, project, -3600)
    }

    /// An owner token of `project` signed with a key the deployment does not know.
    pub fn forged_token(&self, project: &str) -> String {
        random_secret()
            .map(|forger| claims_token(&forger, project, 600))
            .unwrap_or_default()
    }

    /// A service credential signed with the deployment's service key.
    pub fn service_credential(&self, service: &str) -> String {
        let config = ServiceIdentityConfig {
            keys: KeySource::Hs256 {
                secret: self.service_secret.clone(),
            },
            ..ServiceIdentityConfig::default()
        };
        ServiceSigner::from_config(&config, service)
            .and_then(|signer| signer.credential())
            .ok()
            .and_then(|token| token.expose().map(str::to_owned))
            .unwrap_or_default()
    }

    /// The caller token `token` as a bearer credential.
    pub fn bearer(token: &str) -> BearerToken {
        BearerToken::new(Some(token.to_owned()))
    }

    /// Stops one process of a split cluster (fault tests).
    pub fn kill(&mut self, target: &str) -> Result<()> {
        let child = self
            .processes
            .get_mut(target)
            .ok_or_else(|| anyhow!("no process {target}"))?;
        child.kill()?;
        child.wait()?;
        Ok(())
    }

    /// Stops everything and drops the scenario's PostgreSQL schemas.
    pub async fn stop(mut self) -> Result<()> {
        if let Some(node) = self.node.take() {
            node.stop().await?;
        }
        for child in self.processes.values_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(cleanup) = self.cleanup.take() {
            drop_schemas(&cleanup);
        }
        Ok(())
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for child in self.processes.values_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A lazy channel to `addr`, over TLS with the test CA and client certificate when
/// `tls` is given.
pub fn channel(addr: SocketAddr, tls: Option<&ClientTls>) -> Result<Channel> {
    match tls {
        Some(tls) => Ok(tls
            .endpoint(&format!("https://{addr}"), "test")?
            .connect_lazy()),
        None => Ok(Endpoint::from_shared(format!("http://{addr}"))?.connect_lazy()),
    }
}

/// TLS on every port (a client certificate required) and on every call to a peer.
fn tls_env(pki: &Pki) -> HashMap<String, String> {
    let path = |p: &Path| p.display().to_string();
    HashMap::from([
        ("NEURALIS__TLS__CERT_FILE".into(), path(&pki.cert)),
        ("NEURALIS__TLS__KEY_FILE".into(), path(&pki.key)),
        ("NEURALIS__TLS__CLIENT_CA_FILE".into(), path(&pki.ca)),
        ("NEURALIS__PEERS__CA_FILE".into(), path(&pki.ca)),
        ("NEURALIS__PEERS__CERT_FILE".into(), path(&pki.cert)),
        ("NEURALIS__PEERS__KEY_FILE".into(), path(&pki.key)),
    ])
}

fn random_bytes<const N: usize>() -> Result<[u8; N]> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| anyhow!("randomness: {e}"))?;
    Ok(bytes)
}

fn random_secret() -> Result<Secret> {
    Ok(Secret::new(hex::encode(random_bytes::<32>()?)))
}

/// An owner token of `project` expiring `ttl` seconds from now (negative: in the past).
fn claims_token(secret: &Secret, project: &str, ttl: i64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let claims = neuralis_identity::Claims {
        sub: "mallory".into(),
        role: "owner".into(),
        features: Vec::new(),
        agent: None,
        project: Some(project.into()),
        conversation: None,
        platform: false,
        exp: now.saturating_add_signed(ttl),
        nbf: None,
        aud: Some("neuralis".into()),
        iss: None,
    };
    neuralis_identity::mint(secret, &claims)
        .map(|token| token.expose().to_owned())
        .unwrap_or_default()
}

fn identity_env(secret: &Secret, service_secret: &Secret) -> HashMap<String, String> {
    HashMap::from([
        ("NEURALIS__IDENTITY__KEYS__KIND".into(), "hs256".into()),
        (
            "NEURALIS__IDENTITY__KEYS__SECRET".into(),
            secret.expose().to_owned(),
        ),
        (
            "NEURALIS__SERVICE_IDENTITY__KEYS__KIND".into(),
            "hs256".into(),
        ),
        (
            "NEURALIS__SERVICE_IDENTITY__KEYS__SECRET".into(),
            service_secret.expose().to_owned(),
        ),
    ])
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
        ("NEURALIS__TELEMETRY__LOG_FILTER".into(), "warn".into()),
        // Split sync accepts roots only under its base directories: the tests' source
        // trees are temporary directories.
        (
            "NEURALIS__SYNC__ALLOWED_ROOTS".into(),
            std::env::temp_dir().display().to_string(),
        ),
    ])
}

/// Starts `neuralis-node --target <target>` and waits for its `listening` line (and,
/// for sync, its `internal` line: the index feed's listener).
fn spawn_node(
    node_bin: &str,
    target: &str,
    env: &HashMap<String, String>,
    data: &Path,
) -> Result<(Child, SocketAddr, Option<SocketAddr>)> {
    let mut child = Command::new(node_bin)
        .args(["--target", target, "--listen", "127.0.0.1:0", "--announce"])
        .args(["--internal-listen", "127.0.0.1:0"])
        .arg("--data-dir")
        .arg(data.join(target))
        .env_clear()
        .envs(env)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("starting {target}"))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| anyhow!("{target}: no stdout"))?;
    let mut stdout = BufReader::new(stdout);
    let mut line = String::new();
    stdout.read_line(&mut line)?;
    let Some(addr) = line.trim().strip_prefix("listening ") else {
        let _ = child.kill();
        bail!("{target} did not start: {line:?}");
    };
    let addr = addr.parse()?;
    let mut internal = None;
    if target == "sync" {
        let mut line = String::new();
        stdout.read_line(&mut line)?;
        let Some(feed) = line.trim().strip_prefix("internal ") else {
            let _ = child.kill();
            bail!("sync announced no internal listener: {line:?}");
        };
        internal = Some(feed.parse()?);
    }
    Ok((child, addr, internal))
}

fn drop_schemas(cleanup: &str) {
    let Some((database, tag)) = cleanup.split_once('|') else {
        return;
    };
    let sql = format!(
        "DROP SCHEMA IF EXISTS {tag}_index CASCADE; DROP SCHEMA IF EXISTS {tag}_policy CASCADE;"
    );
    let _ = Command::new("psql")
        .arg(database)
        .args(["-q", "-c", &sql])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Waits until `check` passes or `limit` elapses (for eventually-consistent paths only).
pub async fn eventually<F, Fut>(limit: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if check().await {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
