//! One module per subcommand.

use std::process::ExitCode;

mod agreement;
mod client;
mod config;
mod demo;
mod health;
mod inspect;
mod migrate;
mod packages;
mod policy;
mod serve;
mod sources;
pub(crate) mod stdout;
mod sync;
mod token;
mod validate;

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Print the packages a sync of DIR would yield, before access checks.
    Inspect(inspect::InspectArgs),
    /// Check one installed package directory: exit 0 when it would load, 1 when it
    /// would be rejected, 2 for a usage error.
    Validate(validate::Args),
    /// Sync one source now through the sync service, showing progress.
    Sync(sync::SyncArgs),
    /// Run the services: all three in one process by default, or `--target` a subset.
    Serve(neuralis::node::ServeArgs),
    /// The main job in one step: the all-in-one server with a synced sample source.
    Demo(demo::DemoArgs),
    /// Apply (`up`) or list (`status`) the stores' schema migrations, once per release.
    Migrate(migrate::MigrateArgs),
    /// Check or print the configuration `serve` would run with.
    Config(config::ConfigArgs),
    /// Ask a server's health service: exit 0 only when it answers SERVING.
    Health(health::HealthArgs),
    /// Mint a caller token from the all-in-one server's local signing key.
    Token(token::TokenArgs),
    /// Register, show, change and delete sources (the sync service).
    Sources(sources::SourcesArgs),
    /// URI policies, source switches, role grants, package states, overrides and
    /// conversations (the policy service).
    Policy(policy::PolicyArgs),
    /// Packages, the overview, skill activation, hydration and tools as one caller sees
    /// them (the discovery service).
    Packages(packages::PackagesArgs),
}

/// Runs `command`; its exit code, unless its answer could not be written
/// (`stdout.rs`).
pub fn run(command: Command) -> ExitCode {
    let code = match command {
        Command::Inspect(args) => inspect::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Sync(args) => sync::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Config(args) => config::run(args),
        Command::Migrate(args) => migrate::run(args),
        Command::Health(args) => health::run(args),
        Command::Token(args) => token::run(args),
        Command::Sources(args) => sources::run(args),
        Command::Policy(args) => policy::run(args),
        Command::Packages(args) => packages::run(args),
    };
    stdout::exit_code(code)
}
