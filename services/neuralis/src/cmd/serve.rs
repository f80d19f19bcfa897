//! `neuralis serve`: run all three services in one process (the default: embedded
//! stores, in-process bus, no other server needed) or a subset with `--target`.

use std::process::ExitCode;

use neuralis::node::ServeArgs;

pub fn run(args: ServeArgs) -> ExitCode {
    neuralis::node::serve_main(args)
}
