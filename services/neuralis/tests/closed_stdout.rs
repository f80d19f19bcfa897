//! A command's answer when standard output cannot take it: a reader that stopped early
//! (`neuralis inspect DIR | head` closes the pipe) ends the output, not the command,
//! which keeps the exit code its own outcome gives; any other failed write (a full disk
//! behind `> file`) is an error naming standard output, exit 1. Never a panic.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const EXAMPLE: &str = "tests/fixtures/example-source";
const LOADS: &str = "tests/fixtures/installed/_packages/helper";
const REJECTED: &str = "tests/fixtures/installed/_packages/bad";

/// Runs the binary with `stdout` as its standard output.
fn neuralis_into(stdout: impl Into<Stdio>, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_neuralis"))
        .current_dir(workspace())
        .args(args)
        .stdout(stdout)
        .output()
        .expect("the binary runs")
}

/// A pipe whose reader is gone before the command writes a byte: every write fails
/// with a closed pipe, whenever it comes.
fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    writer
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_closed_pipe_ends_the_output_and_the_command_keeps_its_exit_code() {
    for (args, code) in [
        (&["inspect", EXAMPLE][..], 0),
        (&["inspect", EXAMPLE, "--json"][..], 0),
        (&["validate", LOADS][..], 0),
        (&["validate", REJECTED][..], 1),
        (&["validate", REJECTED, "--json"][..], 1),
    ] {
        let out = neuralis_into(closed_pipe(), args);
        let stderr = stderr(&out);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_failed_write_that_is_not_a_closed_pipe_names_standard_output_and_exits_1() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full, which refuses every write with 'no space left'");
    for args in [&["inspect", EXAMPLE][..], &["validate", LOADS][..]] {
        let out = neuralis_into(full.try_clone().expect("a second handle"), args);
        let stderr = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("standard output"), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
