//! The very serving code of `neuralis serve`, as a binary of this package so the
//! split-mode scenarios can start real processes (`CARGO_BIN_EXE_neuralis-node`).
#![forbid(unsafe_code)]

use clap::Parser;

#[derive(Parser)]
struct NodeCli {
    #[command(flatten)]
    serve: neuralis::node::ServeArgs,
}

fn main() -> std::process::ExitCode {
    neuralis::node::serve_main(NodeCli::parse().serve)
}
