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
    let (settings, targets) = match args.settings(&env) {
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
        let _telemetry = match neuralis_host::telemetry::init("neuralis", &settings.telemetry) {
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
    shutdown.listen_for_signals(Duration::from_millis(settings.drain_deadline_ms));
    let node = node::start(settings, targets, listener, shutdown).await?;
    if announce {
        println!("listening {}", node.addr);
        let _ = std::io::stdout().flush();
    }
    node.server.await??;
    Ok(())
}
