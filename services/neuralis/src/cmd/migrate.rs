//! `neuralis migrate up` and `neuralis migrate status`: the schema of the stores the
//! configured services use (the index for sync, the access store for policy), changed
//! once per release by one process (the chart's pre-install/pre-upgrade Job) while the
//! services run with `migrations = "check"` (docs/upgrading.md).

use std::collections::HashMap;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use neuralis::node::{ServeArgs, Target, Targets};
use neuralis_schema::{Mode, State};
use neuralis_sync::config::IndexStoreConfig;

use super::stdout::outln;

/// Apply or show the stores' migrations (the same flags and `NEURALIS__*` variables as
/// `serve`; `--target` limits it to the stores of those services).
#[derive(Debug, clap::Args)]
pub struct MigrateArgs {
    #[command(subcommand)]
    command: MigrateCommand,
}

#[derive(Debug, clap::Subcommand)]
enum MigrateCommand {
    /// Apply every migration this release has and the stores lack; exit 1 when a store
    /// holds a later release's migration this release cannot run with.
    Up(ServeArgs),
    /// List each store's migrations: applied, pending, or applied by a later release
    /// (compatible or not). Changes nothing.
    Status(ServeArgs),
}

pub fn run(args: MigrateArgs) -> ExitCode {
    let env: HashMap<String, String> = std::env::vars().collect();
    let (serve, up) = match &args.command {
        MigrateCommand::Up(serve) => (serve, true),
        MigrateCommand::Status(serve) => (serve, false),
    };
    let outcome = serve.settings(&env).and_then(|(settings, targets)| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting the runtime")?;
        runtime.block_on(async {
            if up {
                apply(&settings, &targets).await
            } else {
                status(&settings, &targets).await
            }
        })
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("neuralis migrate: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn apply(settings: &neuralis::node::NodeSettings, targets: &Targets) -> Result<()> {
    neuralis_host::tls::install_crypto_provider();
    if targets.runs(Target::Sync) {
        let index = settings.index_store();
        neuralis_sync::service::open_store(&index, &settings.sync.search, Mode::Apply)
            .await
            .context("index")?;
        outln!("index: up to date ({})", describe_index(&index));
    }
    if targets.runs(Target::Policy) {
        let store = settings.policy_store();
        let opened = neuralis_access_store::open_with(&store, Mode::Apply)
            .await
            .context("access store")?;
        drop(opened);
        outln!("access store: up to date");
    }
    Ok(())
}

async fn status(settings: &neuralis::node::NodeSettings, targets: &Targets) -> Result<()> {
    neuralis_host::tls::install_crypto_provider();
    if targets.runs(Target::Sync) {
        let lines = match settings.index_store() {
            IndexStoreConfig::Embedded { path, .. } => {
                neuralis_index::SqlIndexStore::embedded_schema_status(&path).await
            }
            IndexStoreConfig::Postgres { url, schema } => {
                neuralis_index::SqlIndexStore::postgres_schema_status(&url, &schema).await
            }
        }
        .context("index")?;
        print_status("index", &lines);
    }
    if targets.runs(Target::Policy) {
        let lines = neuralis_access_store::schema_status(&settings.policy_store())
            .await
            .context("access store")?;
        print_status("access store", &lines);
    }
    Ok(())
}

fn print_status(store: &str, lines: &[(i64, State)]) {
    for (version, state) in lines {
        let state = match state {
            State::Applied => "applied",
            State::Pending => "pending",
            State::Unknown { compatible: true } => "applied by a later release (compatible)",
            State::Unknown { compatible: false } => {
                "applied by a later release (NOT compatible with this one)"
            }
        };
        outln!("{store}\t{version}\t{state}");
    }
}

/// Where the index is, without its URL (which may carry a password).
fn describe_index(index: &IndexStoreConfig) -> String {
    match index {
        IndexStoreConfig::Embedded { path, .. } => path.display().to_string(),
        IndexStoreConfig::Postgres { schema, .. } => format!("postgres schema {schema}"),
    }
}
