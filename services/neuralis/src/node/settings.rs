//! The whole configuration of one process (defaults < file < `NEURALIS__*`).

use std::path::PathBuf;

use neuralis_discovery::DiscoverySettings;
use neuralis_host::telemetry::TelemetrySettings;
use neuralis_host::tls::{ClientTls, ServerTlsSettings, TlsError};
use neuralis_identity::IdentityConfig;
use neuralis_policy::PolicyConfig;
use neuralis_sync::SyncConfig;
use serde::{Deserialize, Serialize};

/// Every setting of a `neuralis serve` process.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NodeSettings {
    /// Where gRPC listens (every mounted service, health and reflection).
    pub listen: String,
    /// Where the embedded stores and the local signing key live.
    pub data_dir: PathBuf,
    /// Services to run when no `--target` is given; empty means all three.
    pub targets: Vec<String>,
    /// How long a draining server may take after SIGTERM before it exits anyway.
    pub drain_deadline_ms: u64,
    /// TLS on every gRPC port this process serves (off unless a certificate is named).
    pub tls: ServerTlsSettings,
    pub telemetry: TelemetrySettings,
    /// How callers' tokens are verified (shared by every service).
    pub identity: IdentityConfig,
    /// Where the services this process does not run are reached (split mode).
    pub peers: Peers,
    pub sync: SyncConfig,
    pub policy: PolicyConfig,
    pub discovery: DiscoverySettings,
}

impl Default for NodeSettings {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:7400".into(),
            data_dir: PathBuf::from(".neuralis"),
            targets: Vec::new(),
            drain_deadline_ms: 10_000,
            tls: ServerTlsSettings::default(),
            telemetry: TelemetrySettings::default(),
            identity: IdentityConfig::default(),
            peers: Peers::default(),
            sync: SyncConfig::default(),
            policy: PolicyConfig::default(),
            discovery: DiscoverySettings::default(),
        }
    }
}

/// `peers.*`: gRPC endpoints of services running elsewhere, and the TLS of the calls.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Peers {
    /// e.g. `http://neuralis-sync:7400`, or `https://...` for TLS.
    pub sync_url: Option<String>,
    /// e.g. `http://neuralis-policy:7400`
    pub policy_url: Option<String>,
    /// The CA that signed the peers' certificates (PEM); the system roots when unset.
    pub ca_file: Option<PathBuf>,
    /// This process's client certificate, for peers that require mutual TLS (PEM).
    pub cert_file: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    pub key_file: Option<PathBuf>,
}

impl Peers {
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
