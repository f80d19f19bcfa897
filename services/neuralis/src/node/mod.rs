//! Starting a node: the services one process runs, wired in-process where they share
//! the process and over gRPC where they do not, behind one port with health,
//! reflection, trace propagation and a graceful drain.

mod authorize;
pub mod checks;
pub mod keys;
pub mod redact;
pub mod run;
pub mod settings;
pub mod target;
mod wiring;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result};
use neuralis_host::Shutdown;
use neuralis_host::grpc::{Health, add_reflection, serve_tls};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

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
    /// The data directory (embedded stores, local signing key).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Print `listening <addr>` on stdout once serving (for scripts and tests).
    #[arg(long)]
    pub announce: bool,
}

impl ServeArgs {
    /// The settings these flags select, from `env` (a map, so tests never touch the
    /// process environment).
    pub fn settings(&self, env: &HashMap<String, String>) -> Result<(NodeSettings, Targets)> {
        let mut settings: NodeSettings = neuralis_host::load_settings(self.config.as_deref(), env)?;
        if let Some(listen) = &self.listen {
            settings.listen = listen.clone();
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
    /// In-process clients of the services it runs (the demo and tests use them).
    pub clients: Clients,
    /// Health of the mounted services.
    pub health: Health,
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

/// Starts the services `targets` on an already-bound `listener`.
pub async fn start(
    settings: NodeSettings,
    targets: Targets,
    listener: TcpListener,
    shutdown: Shutdown,
) -> Result<Node> {
    let addr = listener.local_addr()?;
    let checked = checks::check(&settings, &targets)?;
    let wired = wiring::wire(&settings, &targets, &checked.peers).await?;
    let names: Vec<&str> = wired.service_names.clone();
    let (health, health_service) = Health::new(&names).await;
    let routes = add_reflection(wired.routes.add_service(health_service), &names)?;
    let server = tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            serve_tls(listener, routes, shutdown, checked.server_tls)
                .await
                .map_err(anyhow::Error::from)
        }
    });
    // Every store and peer was reached while wiring: the services are ready.
    for name in &names {
        health.serving(name).await;
    }
    health.serving("").await;
    tracing::info!(%addr, targets = ?targets.iter().map(Target::as_str).collect::<Vec<_>>(), "node started");
    Ok(Node {
        addr,
        clients: wired.clients,
        health,
        server,
        shutdown,
    })
}
