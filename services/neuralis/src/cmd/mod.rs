//! One module per subcommand.

use std::process::ExitCode;

mod inspect;

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Print the packages a sync of DIR would yield, before access checks.
    Inspect(inspect::InspectArgs),
}

pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Inspect(args) => inspect::run(args),
    }
}
