//! `neuralis`: the one binary. It serves the three services (all-in-one or a subset)
//! and is the command-line client of their API; `inspect` and `validate` work offline
//! on a directory.
#![forbid(unsafe_code)]

mod cmd;

use clap::Parser;

/// mimalloc rather than the C library's allocator: the walk of a large tree allocates a
/// path per file on each of its threads and the passes after it lay out fresh vectors
/// of tens of megabytes on one thread, where glibc's arenas faulted in page after page
/// (15,000 faults per inspection of the bench tree, 500 with mimalloc) and `neuralis
/// inspect` ran 10-12 % faster with it (docs/decisions/sync.md, "inspect, fifth round").
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
