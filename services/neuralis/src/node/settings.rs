//! The whole configuration of one process (defaults < file < `NEURALIS__*`).

use std::path::PathBuf;
use std::time::Duration;

use neuralis_discovery::DiscoverySettings;
use neuralis_host::peer::PeerOptions;
use neuralis_host::telemetry::TelemetrySettings;
use neuralis_host::tls::{ClientTls, ServerTlsSettings, TlsError};
use neuralis_identity::{IdentityConfig, ServiceIdentityConfig};
use neuralis_policy::PolicyConfig;
use neuralis_sync::SyncConfig;
use serde::{Deserialize, Serialize};

/// Every setting of a `neuralis serve` process.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NodeSettings {
    /// Where gRPC listens (every mounted service, health and reflection).
    pub listen: String,
    /// Where a process that runs sync without discovery serves the index feed (services
    /// only; never the public port). Keep it reachable by discovery alone.
    pub internal_listen: String,
    /// Where the admin HTTP port serves `/metrics`, `/livez` and `/readyz` (plain
    /// HTTP: keep it off the public network).
    pub admin_listen: String,
    /// Where the embedded stores and the local signing key live.
    pub data_dir: PathBuf,
    /// Services to run when no `--target` is given; empty means all three.
    pub targets: Vec<String>,
    /// After SIGTERM, how long every call is still served while health reports
    /// NOT_SERVING (so load balancers move away) before the drain starts.
    pub drain_delay_ms: u64,
    /// The grace period: how long the drain may take (in-flight calls finishing, open
    /// streams ending) before the process exits anyway, with status 1.
    pub drain_deadline_ms: u64,
    /// How often discovery probes the health of the peers it calls (split mode).
    pub health_probe_interval_ms: u64,
    /// TLS on every gRPC port this process serves (off unless a certificate is named).
    pub tls: ServerTlsSettings,
    pub telemetry: TelemetrySettings,
    /// How callers' tokens are verified (shared by every service).
    pub identity: IdentityConfig,
    /// How service credentials are verified and minted (calls between the services).
    pub service_identity: ServiceIdentityConfig,
    /// Where the services this process does not run are reached (split mode).
    pub peers: Peers,
    pub sync: SyncConfig,
    pub policy: PolicyConfig,
    pub discovery: DiscoverySettings,
    /// The configuration file these settings were read from (set by `neuralis serve`'s
    /// `--config`, never configured): its folder is kept like a key file's, since the
    /// file may hold secrets inline (an HS256 key, a store URL with its password).
    #[serde(skip)]
    pub config_file: Option<PathBuf>,
}

impl Default for NodeSettings {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:7400".into(),
            internal_listen: "127.0.0.1:7401".into(),
            admin_listen: "127.0.0.1:9464".into(),
            data_dir: PathBuf::from(".neuralis"),
            targets: Vec::new(),
            drain_delay_ms: 0,
            drain_deadline_ms: 10_000,
            health_probe_interval_ms: 2_000,
            tls: ServerTlsSettings::default(),
            telemetry: TelemetrySettings::default(),
            identity: IdentityConfig::default(),
            service_identity: ServiceIdentityConfig::default(),
            peers: Peers::default(),
            sync: SyncConfig::default(),
            policy: PolicyConfig::default(),
            discovery: DiscoverySettings::default(),
            config_file: None,
        }
    }
}

/// `peers.*`: gRPC endpoints of services running elsewhere, and the TLS of the calls.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Peers {
    /// Sync's index feed on its internal listener, e.g. `http://neuralis-sync:7401`, or
    /// `https://...` for TLS (discovery reads the index there).
    pub sync_feed_url: Option<String>,
    /// e.g. `http://neuralis-policy:7400` (discovery asks `Evaluate`).
    pub policy_url: Option<String>,
    /// The CA that signed the peers' certificates (PEM); the system roots when unset.
    pub ca_file: Option<PathBuf>,
    /// This process's client certificate, for peers that require mutual TLS (PEM).
    pub cert_file: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    pub key_file: Option<PathBuf>,
    /// Every call to a peer ends by this deadline (`DEADLINE_EXCEEDED`), connecting
    /// included.
    pub timeout_ms: u64,
    /// How often a peer URL's host is resolved again: a headless Service's name gives
    /// every ready replica, and calls are balanced over them.
    pub resolve_interval_ms: u64,
}

impl Default for Peers {
    fn default() -> Self {
        let options = PeerOptions::default();
        Self {
            sync_feed_url: None,
            policy_url: None,
            ca_file: None,
            cert_file: None,
            key_file: None,
            timeout_ms: millis(options.timeout),
            resolve_interval_ms: millis(options.resolve_interval),
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl Peers {
    /// How peer channels are built: the deadline and the resolve interval from these
    /// settings, keepalive as [`PeerOptions::default`].
    pub fn options(&self) -> PeerOptions {
        PeerOptions {
            timeout: Duration::from_millis(self.timeout_ms),
            resolve_interval: Duration::from_millis(self.resolve_interval_ms),
            ..PeerOptions::default()
        }
    }

    /// The client TLS of calls to peers, files read and checked.
    pub fn tls(&self) -> Result<ClientTls, TlsError> {
        ClientTls::load(
            "peers",
            self.ca_file.as_deref(),
            self.cert_file.as_deref(),
            self.key_file.as_deref(),
        )
    }
}

impl NodeSettings {
    /// The access store policy opens, its default embedded file under `data_dir`.
    pub fn policy_store(&self) -> neuralis_access_store::StoreConfig {
        let mut store = self.policy.store.clone();
        if let neuralis_access_store::StoreConfig::Embedded { path } = &mut store {
            *path = under_data_dir(path, &self.data_dir, "policy.db");
        }
        store
    }

    /// The index sync opens, its default embedded file under `data_dir`.
    pub fn index_store(&self) -> neuralis_sync::config::IndexStoreConfig {
        let mut index = self.sync.index.clone();
        if let neuralis_sync::config::IndexStoreConfig::Embedded { path, .. } = &mut index {
            *path = under_data_dir(path, &self.data_dir, "index.db");
        }
        index
    }
}

/// The default embedded store path follows `data_dir`.
pub(crate) fn under_data_dir(
    path: &std::path::Path,
    data_dir: &std::path::Path,
    file: &str,
) -> PathBuf {
    if path == std::path::Path::new(".neuralis").join(file) {
        data_dir.join(file)
    } else {
        path.to_owned()
    }
}
