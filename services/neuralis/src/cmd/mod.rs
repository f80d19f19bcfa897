//! One module per subcommand.

use std::process::ExitCode;

mod inspect;
mod sync;

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Print the packages a sync of DIR would yield, before access checks.
    Inspect(inspect::InspectArgs),
    /// Sync one source now through the sync service, showing progress.
    Sync(sync::SyncArgs),
}

pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Inspect(args) => inspect::run(args),
        Command::Sync(args) => sync::run(args),
    }
}
