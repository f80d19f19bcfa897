//! `neuralis`: the one binary. It serves the three services (all-in-one or a subset)
//! and is the command-line client of their API; `inspect` and `validate` work offline
//! on a directory.
#![forbid(unsafe_code)]

mod cmd;

use clap::Parser;

#[derive(Debug, Parser)]
#[command(name = "neuralis", version, about = "Neuralis package services")]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    cmd::run(cli.command)
}
