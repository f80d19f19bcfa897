//! `neuralis health`: ask a server's `grpc.health.v1` service how one service (or the
//! whole server) is doing; exit 0 only on SERVING. The image has no shell and no
//! grpc client, so probes and `helm test` use the binary itself.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use neuralis_host::tls::ClientTls;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use super::stdout::outln;

/// Check a server's health; exit 0 when SERVING, 1 otherwise.
#[derive(Debug, clap::Args)]
pub struct HealthArgs {
    /// The server, `http://host:port` or `https://host:port`.
    #[arg(long, default_value = "http://127.0.0.1:7400")]
    server: String,
    /// The service to ask about, e.g. `neuralis.policy.v1.PolicyService`; none means
    /// the whole server.
    #[arg(long, default_value = "")]
    service: String,
    /// The CA that signed the server's certificate (PEM); the system roots when unset.
    #[arg(long)]
    ca_file: Option<PathBuf>,
    /// A client certificate for a server that requires mutual TLS (PEM).
    #[arg(long, requires = "key_file")]
    cert_file: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    #[arg(long, requires = "cert_file")]
    key_file: Option<PathBuf>,
    /// The name the server's certificate must carry, when it differs from the host in
    /// `--server` (a probe dialing 127.0.0.1).
    #[arg(long)]
    server_name: Option<String>,
    /// Give up after this many milliseconds.
    #[arg(long, default_value_t = 5000)]
    timeout_ms: u64,
}

pub fn run(args: HealthArgs) -> ExitCode {
    neuralis_host::tls::install_crypto_provider();
    super::client::run("health", async move {
        let status = check(&args).await?;
        outln!("{}", status.as_str_name());
        if status != ServingStatus::Serving {
            bail!("{} is {}", label(&args.service), status.as_str_name());
        }
        Ok(())
    })
}

async fn check(args: &HealthArgs) -> Result<ServingStatus> {
    let tls = ClientTls::load(
        "",
        args.ca_file.as_deref(),
        args.cert_file.as_deref(),
        args.key_file.as_deref(),
    )
    .map_err(|e| anyhow::anyhow!("{}", e.message))?;
    let timeout = Duration::from_millis(args.timeout_ms.max(1));
    let endpoint = tls
        .endpoint_for(&args.server, "--server", args.server_name.as_deref())
        .map_err(|e| anyhow::anyhow!("{}", e.message))?
        .connect_timeout(timeout)
        .timeout(timeout);
    let channel = endpoint
        .connect()
        .await
        .with_context(|| format!("cannot reach {}", args.server))?;
    let answer = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: args.service.clone(),
        })
        .await
        .map_err(|status| anyhow::anyhow!("{}: {}", label(&args.service), status.message()))?;
    Ok(answer.into_inner().status())
}

fn label(service: &str) -> &str {
    if service.is_empty() {
        "the server"
    } else {
        service
    }
}
