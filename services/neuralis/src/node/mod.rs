//! Starting a node: the services one process runs, wired in-process where they share
//! the process and over gRPC where they do not, behind one port with health,
//! reflection, trace propagation and a graceful drain; plus, in a process that runs
//! sync without discovery, the index feed on a second, internal listener.

pub mod checks;
mod forget;
mod kept;
pub mod keys;
mod peers;
mod readiness;
pub mod redact;
pub mod run;
mod services;
pub mod settings;
mod startup;
mod subscription;
pub mod target;
mod wiring;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result};
use futures::TryFutureExt;
use neuralis_host::Shutdown;
use neuralis_host::admin::Readiness;
use neuralis_host::grpc::{Health, add_reflection, serve_tls};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub use checks::check;
pub use run::serve_main;
pub use settings::NodeSettings;
pub use target::{Target, Targets};
pub use wiring::Clients;

/// `neuralis serve` flags (the rest comes from the configuration).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ServeArgs {
    /// A configuration file (TOML, YAML or JSON); `NEURALIS__*` variables override it.
    #[arg(long, env = "NEURALIS_CONFIG")]
    pub config: Option<PathBuf>,
    /// Run only these services (repeatable); none means all three in one process.
    #[arg(long = "target", value_name = "sync|discovery|policy")]
    pub targets: Vec<Target>,
    /// Where to listen, e.g. 127.0.0.1:7400 (port 0 picks a free one).
    #[arg(long)]
    pub listen: Option<String>,
    /// Where a process running sync without discovery serves the index feed, e.g.
    /// 10.0.0.5:7401 (port 0 picks a free one).
    #[arg(long)]
    pub internal_listen: Option<String>,
    /// Where the admin HTTP port serves /metrics, /livez and /readyz, e.g.
    /// 0.0.0.0:9464 (port 0 picks a free one).
    #[arg(long)]
    pub admin_listen: Option<String>,
    /// The data directory (embedded stores, local signing key).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Print `listening <addr>` (and `internal <addr>` for the feed's listener) on
    /// stdout once serving (for scripts and tests).
    #[arg(long)]
    pub announce: bool,
}

impl ServeArgs {
    /// The settings these flags select, from `env` (a map, so tests never touch the
    /// process environment).
    pub fn settings(&self, env: &HashMap<String, String>) -> Result<(NodeSettings, Targets)> {
        let mut settings: NodeSettings = neuralis_host::load_settings(self.config.as_deref(), env)?;
        settings.config_file.clone_from(&self.config);
        if let Some(listen) = &self.listen {
            settings.listen = listen.clone();
        }
        if let Some(listen) = &self.internal_listen {
            settings.internal_listen = listen.clone();
        }
        if let Some(listen) = &self.admin_listen {
            settings.admin_listen = listen.clone();
        }
        if let Some(dir) = &self.data_dir {
            settings.data_dir = dir.clone();
        }
        let mut targets = self.targets.clone();
        if targets.is_empty() {
            for name in &settings.targets {
                targets.push(
                    name.parse()
                        .map_err(|e: String| anyhow::anyhow!("targets: {e}"))?,
                );
            }
        }
        Ok((settings, Targets::new(targets)))
    }
}

/// A running node.
pub struct Node {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Where it serves the index feed, when it runs sync without discovery.
    pub internal_addr: Option<SocketAddr>,
    /// In-process clients of the services it runs (the demo and tests use them).
    pub clients: Clients,
    /// Health of the mounted services.
    pub health: Health,
    /// What `/readyz` answers (the admin port serves it).
    pub readiness: Readiness,
    /// Ends when the server stops.
    pub server: JoinHandle<Result<()>>,
    shutdown: Shutdown,
}

impl Node {
    /// Starts draining and waits for the server to stop.
    pub async fn stop(self) -> Result<()> {
        self.shutdown.trigger();
        self.server.await.context("server task")?
    }
}

/// Starts the services `targets` on an already-bound `listener` (and binds
/// `internal_listen` when the index feed is served).
pub async fn start(
    settings: NodeSettings,
    targets: Targets,
    listener: TcpListener,
    shutdown: Shutdown,
) -> Result<Node> {
    let readiness = Readiness::new(shutdown.clone());
    start_with(settings, targets, listener, shutdown, readiness).await
}

/// [`start`], reporting on `readiness` (which the admin port may already serve while
/// the process waits for its stores: `run::serve`).
pub async fn start_with(
    settings: NodeSettings,
    targets: Targets,
    listener: TcpListener,
    shutdown: Shutdown,
    readiness: Readiness,
) -> Result<Node> {
    let addr = listener.local_addr()?;
    let checked = checks::check(&settings, &targets)?;
    let wired = wiring::wire(&settings, &targets, &checked.peers).await?;
    let names: Vec<&str> = wired.service_names.clone();
    let (health, health_service) = Health::new(&names).await;
    let routes = add_reflection(wired.routes.add_service(health_service), &names)?;
    let server_tls = checked.server_tls;
    let internal = match wired.internal {
        Some(feed) => Some(
            internal(
                &settings.internal_listen,
                feed,
                &shutdown,
                server_tls.clone(),
            )
            .await?,
        ),
        None => None,
    };
    let internal_addr = internal.as_ref().map(|(addr, _)| *addr);
    let server = tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            let public =
                serve_tls(listener, routes, shutdown, server_tls).map_err(anyhow::Error::from);
            match internal {
                Some((_, feed)) => {
                    let feed = async { feed.await.context("internal server task")? };
                    tokio::try_join!(public, feed).map(drop)
                }
                None => public.await,
            }
        }
    });
    // Every store was reached while wiring; from now on each service's health follows
    // what it needs (peers in split mode, the index store where sync runs).
    readiness::follow(
        names.clone(),
        wired.dependencies,
        health.clone(),
        readiness.clone(),
        shutdown.clone(),
        std::time::Duration::from_millis(settings.health_probe_interval_ms.max(100)),
    )
    .await;
    tracing::info!(%addr, ?internal_addr, targets = ?targets.iter().map(Target::as_str).collect::<Vec<_>>(), "node started");
    Ok(Node {
        addr,
        internal_addr,
        clients: wired.clients,
        health,
        readiness,
        server,
        shutdown,
    })
}

/// Serves the index feed on its own listener (with the same TLS as the public one),
/// with health and reflection of the feed.
async fn internal(
    listen: &str,
    feed: tonic::service::Routes,
    shutdown: &Shutdown,
    tls: Option<tonic::transport::ServerTlsConfig>,
) -> Result<(SocketAddr, JoinHandle<Result<()>>)> {
    let listener = TcpListener::bind(listen)
        .await
        .with_context(|| format!("internal_listen {listen}"))?;
    let addr = listener.local_addr()?;
    let names = [neuralis_sync::grpc::FEED_SERVICE_NAME];
    let (health, health_service) = Health::new(&names).await;
    let routes = add_reflection(feed.add_service(health_service), &names)?;
    health.serving(names[0]).await;
    health.serving("").await;
    tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            shutdown.stopping().await;
            health
                .set_all(&names, tonic_health::ServingStatus::NotServing)
                .await;
        }
    });
    let shutdown = shutdown.clone();
    let task = tokio::spawn(async move {
        serve_tls(listener, routes, shutdown, tls)
            .await
            .map_err(anyhow::Error::from)
    });
    Ok((addr, task))
}
