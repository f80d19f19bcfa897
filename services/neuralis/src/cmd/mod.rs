//! One module per subcommand.

use std::process::ExitCode;

mod inspect;
mod sync;
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
}

pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Inspect(args) => inspect::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Sync(args) => sync::run(args),
    }
}
