//! Every setting checked before a port is bound, so bad configuration stops the
//! process at start (exit 64) with a message naming the key, and `neuralis config
//! check` says the same thing without starting anything.
//!
//! Split mode never guesses: a process that does not run all three services needs
//! the shared stores, the Redis bus, configured caller and service keys and the
//! addresses of the services it calls. It never falls back to a per-pod embedded file
//! or a generated key.

use std::path::Path;
use std::str::FromStr;

use neuralis_access_store::StoreConfig;
use neuralis_host::telemetry::TelemetryError;
use neuralis_host::tls::{ClientTls, TlsError};
use neuralis_identity::{
    IdentityConfig, IdentityError, KeySource, ServiceSigner, ServiceVerifier, Verifier,
};
use neuralis_sync::config::{BusConfig, IndexStoreConfig};
use tonic::transport::ServerTlsConfig;

use super::keys;
use super::settings::NodeSettings;
use super::target::{Target, Targets};

/// A setting that cannot be used; the process exits 64.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ConfigProblem {
    /// The configuration key at fault, e.g. `sync.index`.
    pub key: String,
    /// What is wrong and what would do.
    pub message: String,
}

impl ConfigProblem {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            message: message.into(),
        }
    }
}

impl From<TlsError> for ConfigProblem {
    fn from(error: TlsError) -> Self {
        Self::new(error.key, error.message)
    }
}

/// What checking produced and serving uses: the files are read once.
#[derive(Debug, Clone)]
pub struct Checked {
    /// TLS of the served port(s), when configured.
    pub server_tls: Option<ServerTlsConfig>,
    /// TLS of calls to peers.
    pub peers: ClientTls,
}

/// Checks `settings` for a process running `targets`.
pub fn check(settings: &NodeSettings, targets: &Targets) -> Result<Checked, ConfigProblem> {
    check_address(&settings.listen, "listen")?;
    if !settings.admin_listen.trim().is_empty() {
        check_address(&settings.admin_listen, "admin_listen")?;
    }
    if targets.runs(Target::Sync) && !targets.runs(Target::Discovery) {
        check_address(&settings.internal_listen, "internal_listen")?;
    }
    check_telemetry(settings)?;
    let server_tls = settings.tls.load("tls")?;
    let peers = settings.peers.tls()?;
    check_sync_limits(settings)?;
    if targets.is_all_in_one() {
        check_writable(&settings.data_dir)?;
    } else {
        check_split(settings, targets)?;
    }
    check_identity(&settings.identity, targets)?;
    check_service_identity(settings, targets)?;
    check_peers(settings, targets, &peers)?;
    check_stores(settings, targets)?;
    Ok(Checked { server_tls, peers })
}

/// `host:port`, the port a number.
fn check_address(address: &str, key: &str) -> Result<(), ConfigProblem> {
    let valid = address
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
    if valid {
        Ok(())
    } else {
        Err(ConfigProblem::new(
            key,
            format!("{address:?} is not host:port (e.g. 0.0.0.0:7400)"),
        ))
    }
}

fn check_telemetry(settings: &NodeSettings) -> Result<(), ConfigProblem> {
    settings.telemetry.check().map_err(|error| match error {
        TelemetryError::Filter(message) => ConfigProblem::new("telemetry.log_filter", message),
        TelemetryError::Exporter(message) => ConfigProblem::new("telemetry.otlp_endpoint", message),
        TelemetryError::Tls(tls) => tls.into(),
        TelemetryError::AlreadyInstalled => ConfigProblem::new("telemetry", error.to_string()),
    })
}

fn check_sync_limits(settings: &NodeSettings) -> Result<(), ConfigProblem> {
    let sync = &settings.sync;
    let positive = [
        ("sync.max_file_size", sync.max_file_size),
        ("sync.batch_size", sync.batch_size as u64),
        ("sync.batch_max_bytes", sync.batch_max_bytes as u64),
        ("sync.read_ahead_bytes", sync.read_ahead_bytes),
        ("sync.read_ahead_files", sync.read_ahead_files as u64),
        ("sync.write_timeout_secs", sync.write_timeout_secs),
        ("sync.chunk_max_bytes", sync.chunk_max_bytes as u64),
        (
            "policy.max_message_bytes",
            settings.policy.max_message_bytes as u64,
        ),
        (
            "discovery.inventory.max_projects",
            settings.discovery.inventory.max_projects as u64,
        ),
    ];
    match positive.iter().find(|(_, value)| *value == 0) {
        Some((key, _)) => Err(ConfigProblem::new(*key, "must be at least 1")),
        None => Ok(()),
    }
}

/// The embedded stores and the local key live in `data_dir`: it must be writable
/// (on Kubernetes, a volume; the root filesystem is read-only).
fn check_writable(data_dir: &Path) -> Result<(), ConfigProblem> {
    let problem = |error: std::io::Error| {
        ConfigProblem::new(
            "data_dir",
            format!(
                "{} is not a writable directory: {error}",
                data_dir.display()
            ),
        )
    };
    std::fs::create_dir_all(data_dir).map_err(problem)?;
    let probe = data_dir.join(format!(".neuralis-write-check-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(problem)?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// A process running only some services shares its stores and bus with the others and
/// with its own replicas: every one of them must be configured, never defaulted.
fn check_split(settings: &NodeSettings, targets: &Targets) -> Result<(), ConfigProblem> {
    if targets.runs(Target::Sync)
        && !matches!(settings.sync.index, IndexStoreConfig::Postgres { .. })
    {
        return Err(ConfigProblem::new(
            "sync.index",
            "split mode needs the shared index (kind: postgres with a url); it never opens a \
             per-process embedded file",
        ));
    }
    if targets.runs(Target::Policy)
        && !matches!(settings.policy.store, StoreConfig::Postgres { .. })
    {
        return Err(ConfigProblem::new(
            "policy.store",
            "split mode needs the shared access store (backend: postgres with a url); it never \
             opens a per-process embedded file",
        ));
    }
    let bus_needed = targets.runs(Target::Sync) || targets.runs(Target::Discovery);
    if bus_needed && settings.sync.bus == BusConfig::InProcess {
        return Err(ConfigProblem::new(
            "sync.bus",
            "split mode needs the Redis bus (kind: redis with a url): sync and discovery run in \
             different processes",
        ));
    }
    if !keys::has_configured_keys(&settings.identity) {
        return Err(ConfigProblem::new(
            "identity.keys",
            "split mode needs configured verification keys (an hs256 secret, public keys or a \
             JWKS file); it never generates one",
        ));
    }
    if !settings.service_identity.has_keys() {
        return Err(ConfigProblem::new(
            "service_identity.keys",
            "split mode needs configured service keys (an hs256 secret other than the caller \
             secret, or public keys with a signing_key); it never generates one",
        ));
    }
    Ok(())
}

/// The keys load (files read, secrets long enough), unless all-in-one will create its
/// local key on first start.
fn check_identity(identity: &IdentityConfig, targets: &Targets) -> Result<(), ConfigProblem> {
    if targets.is_all_in_one() && !keys::has_configured_keys(identity) {
        return Ok(());
    }
    Verifier::from_config(identity)
        .map(drop)
        .map_err(|error| match error {
            IdentityError::Config { field, message } => {
                ConfigProblem::new(format!("identity.{field}"), message)
            }
            other => ConfigProblem::new("identity", other.to_string()),
        })
}

/// Service credentials: keys that load, never the caller secret, and a key to sign with
/// where this process signs (discovery calls the feed and `Evaluate`; sync calls
/// policy). All-in-one without keys creates its local one on first start.
fn check_service_identity(settings: &NodeSettings, targets: &Targets) -> Result<(), ConfigProblem> {
    let service = &settings.service_identity;
    if let (KeySource::Hs256 { secret: caller }, KeySource::Hs256 { secret: ours }) =
        (&settings.identity.keys, &service.keys)
        && !caller.expose().is_empty()
        && caller == ours
    {
        return Err(ConfigProblem::new(
            "service_identity.keys.secret",
            "must differ from identity.keys.secret: a caller token must never open a call \
             between services",
        ));
    }
    if targets.is_all_in_one() && !service.has_keys() {
        return Ok(());
    }
    ServiceVerifier::from_config(service).map_err(service_problem)?;
    if targets.runs(Target::Discovery) || targets.runs(Target::Sync) {
        ServiceSigner::from_config(service, "check").map_err(service_problem)?;
    }
    Ok(())
}

fn service_problem(error: IdentityError) -> ConfigProblem {
    match error {
        IdentityError::Config { field, message } => ConfigProblem::new(field, message),
        other => ConfigProblem::new("service_identity", other.to_string()),
    }
}

/// The address of every service this process calls but does not run.
fn check_peers(
    settings: &NodeSettings,
    targets: &Targets,
    tls: &ClientTls,
) -> Result<(), ConfigProblem> {
    // A zero deadline fails every call; a zero interval would resolve in a busy loop.
    for (key, value) in [
        ("peers.timeout_ms", settings.peers.timeout_ms),
        (
            "peers.resolve_interval_ms",
            settings.peers.resolve_interval_ms,
        ),
    ] {
        if value == 0 {
            return Err(ConfigProblem::new(key, "must be at least 1"));
        }
    }
    // (caller, callee, the callee's address): discovery reads sync's feed and asks
    // policy; sync asks policy to forget a source before deleting it.
    let needed = [
        (
            Target::Discovery,
            Target::Sync,
            "peers.sync_feed_url",
            &settings.peers.sync_feed_url,
        ),
        (
            Target::Discovery,
            Target::Policy,
            "peers.policy_url",
            &settings.peers.policy_url,
        ),
        (
            Target::Sync,
            Target::Policy,
            "peers.policy_url",
            &settings.peers.policy_url,
        ),
    ];
    for (caller, target, key, url) in needed {
        if !targets.runs(caller) || targets.runs(target) {
            continue;
        }
        let Some(url) = url else {
            return Err(ConfigProblem::new(
                key,
                format!("required: {caller} calls {target}, which this process does not run"),
            ));
        };
        tls.endpoint(url, key)?;
    }
    Ok(())
}

/// Store and bus URLs parse (PostgreSQL `sslmode` and `sslrootcert` included) before
/// anything connects.
fn check_stores(settings: &NodeSettings, targets: &Targets) -> Result<(), ConfigProblem> {
    if targets.runs(Target::Sync)
        && let IndexStoreConfig::Postgres { url, .. } = &settings.sync.index
    {
        check_postgres_url(url, "sync.index.url")?;
    }
    if targets.runs(Target::Policy)
        && let StoreConfig::Postgres { url, .. } = &settings.policy.store
    {
        check_postgres_url(url, "policy.store.url")?;
    }
    let bus_used = targets.runs(Target::Sync) || targets.runs(Target::Discovery);
    if bus_used && let BusConfig::Redis { url, .. } = &settings.sync.bus {
        redis::Client::open(url.as_str())
            .map_err(|e| ConfigProblem::new("sync.bus.url", format!("not a Redis URL: {e}")))?;
    }
    Ok(())
}

fn check_postgres_url(url: &str, key: &str) -> Result<(), ConfigProblem> {
    // The URL may carry a password: messages never quote it.
    sqlx::postgres::PgConnectOptions::from_str(url).map_err(|e| {
        ConfigProblem::new(
            key,
            format!("not a usable PostgreSQL URL: {}", redact_error(&e)),
        )
    })?;
    let parsed =
        url::Url::parse(url).map_err(|e| ConfigProblem::new(key, format!("not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "postgres" | "postgresql") {
        return Err(ConfigProblem::new(
            key,
            format!("expected postgres://, got {}://", parsed.scheme()),
        ));
    }
    for (name, value) in parsed.query_pairs() {
        if matches!(name.as_ref(), "sslrootcert" | "sslcert" | "sslkey")
            && !Path::new(value.as_ref()).is_file()
        {
            return Err(ConfigProblem::new(
                key,
                format!("{name}={value}: no such file"),
            ));
        }
    }
    Ok(())
}

/// sqlx's URL errors name the part that failed, never the password; kept to its kind
/// anyway in case a future version quotes the URL.
fn redact_error(error: &sqlx::Error) -> String {
    let text = error.to_string();
    if text.contains('@') {
        "the URL does not parse".into()
    } else {
        text
    }
}
