//! One module per subcommand.

use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub enum Command {}

pub fn run(command: Command) -> ExitCode {
    match command {}
}
