//! `neuralis`: the one binary. It serves the three services (all-in-one or a subset)
//! and is the command-line client of their API; `inspect` and `validate` work offline
//! on a directory.
#![forbid(unsafe_code)]

mod cmd;

use clap::Parser;

/// mimalloc rather than the C library's allocator: the walk of a large tree allocates a
/// path per file on each of its threads, and the passes after it lay out vectors of
/// tens of megabytes; `neuralis inspect` of the bench tree ran 4-5 % faster with it.
/// Built without transparent huge pages: on a virtual machine a fresh huge page can be
/// zeroed through faults on the host, which made runs slower and bimodal
/// (docs/decisions/sync.md, "`neuralis inspect`, fifth round").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
