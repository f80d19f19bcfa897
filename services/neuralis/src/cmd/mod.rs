//! One module per subcommand.

mod validate;

use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Check one installed package directory: exit 0 when it would load, 1 when it
    /// would be rejected, 2 for a usage error.
    Validate(validate::Args),
}

pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Validate(args) => validate::run(args),
    }
}
