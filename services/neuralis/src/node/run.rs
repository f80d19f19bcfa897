//! The `neuralis serve` entry point: run all three services in one process (embedded
//! stores, in-process bus, no other server needed) or a subset with `--target`.

use std::collections::HashMap;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use crate::node::{self, ServeArgs};
use neuralis_host::Shutdown;

/// Exit code for bad configuration (sysexits EX_CONFIG would be 78; 64 is usage).
pub const BAD_CONFIGURATION: u8 = 64;

/// Runs `neuralis serve` with these flags until SIGTERM; the process environment
/// supplies `NEURALIS__*` overrides.
pub fn serve_main(args: ServeArgs) -> ExitCode {
    let env: HashMap<String, String> = std::env::vars().collect();
    let (settings, targets) = match args.settings(&env).and_then(|(settings, targets)| {
        node::check(&settings, &targets)?;
        Ok((settings, targets))
    }) {
        Ok(found) => found,
        Err(error) => {
            eprintln!("neuralis serve: {error:#}");
            return ExitCode::from(BAD_CONFIGURATION);
        }
    };
    neuralis_host::tls::install_crypto_provider();
    if let Err(problem) = node::checks::check(&settings, &targets) {
        eprintln!("neuralis serve: configuration: {problem}");
        return ExitCode::from(BAD_CONFIGURATION);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("neuralis serve: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let name = service_name(&targets);
        let _telemetry = match neuralis_host::telemetry::init(&name, &settings.telemetry) {
            Ok(guard) => guard,
            Err(error) => {
                eprintln!("neuralis serve: {error}");
                return ExitCode::from(BAD_CONFIGURATION);
            }
        };
        match serve(settings, targets, args.announce).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                tracing::error!(error = %format!("{error:#}"), "neuralis serve failed");
                eprintln!("neuralis serve: {error:#}");
                ExitCode::FAILURE
            }
        }
    })
}

async fn serve(
    settings: node::NodeSettings,
    targets: node::Targets,
    announce: bool,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(&settings.listen)
        .await
        .map_err(|e| anyhow::anyhow!("listen {}: {e}", settings.listen))?;
    let shutdown = Shutdown::new();
    shutdown.listen_for_signals(
        Duration::from_millis(settings.drain_delay_ms),
        Duration::from_millis(settings.drain_deadline_ms),
    );
    // The admin port first: live (and not ready) while the stores are awaited.
    let readiness = neuralis_host::admin::Readiness::new(shutdown.clone());
    let admin = admin(&settings.admin_listen, readiness.clone(), shutdown.clone()).await;
    let node =
        node::startup::start_patiently(settings, targets, listener, shutdown, readiness).await?;
    if announce {
        // Written, never printed: a script that read the line it wanted may have
        // closed the pipe, and a failed write must not stop the server. The admin
        // line comes last, so readers of the first lines see what they always saw.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening {}", node.addr);
        if let Some(internal) = node.internal_addr {
            let _ = writeln!(out, "internal {internal}");
        }
        if let Some(admin) = admin {
            let _ = writeln!(out, "admin {admin}");
        }
        let _ = out.flush();
    }
    node.server.await??;
    Ok(())
}

/// The OpenTelemetry service name of a process running `targets`: `neuralis` for all
/// three, `neuralis-<target>` for one, the targets joined for another subset.
pub fn service_name(targets: &node::Targets) -> String {
    if targets.is_all_in_one() {
        return "neuralis".into();
    }
    let names: Vec<&str> = targets.iter().map(node::Target::as_str).collect();
    format!("neuralis-{}", names.join("-"))
}

/// Serves the admin port. A port that cannot be bound is logged and skipped rather
/// than fatal: gRPC health still answers, and several processes on one host (tests,
/// a developer's machine) would otherwise collide on the default port.
async fn admin(
    listen: &str,
    readiness: neuralis_host::admin::Readiness,
    shutdown: Shutdown,
) -> Option<std::net::SocketAddr> {
    if listen.trim().is_empty() {
        return None;
    }
    match tokio::net::TcpListener::bind(listen).await {
        Ok(listener) => {
            let addr = listener.local_addr().ok()?;
            tracing::info!(%addr, "serving admin http (/metrics, /livez, /readyz)");
            tokio::spawn(neuralis_host::admin::serve_admin(
                listener, readiness, shutdown,
            ));
            Some(addr)
        }
        Err(error) => {
            tracing::error!(listen, %error, "admin port not served");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::{Target, Targets};

    #[test]
    fn each_process_reports_its_own_service_name() {
        assert_eq!(service_name(&Targets::new([])), "neuralis");
        assert_eq!(
            service_name(&Targets::new([Target::Discovery])),
            "neuralis-discovery"
        );
        assert_eq!(
            service_name(&Targets::new([Target::Policy])),
            "neuralis-policy"
        );
    }
}
