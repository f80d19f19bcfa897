//! A command's answer on standard output, written one way by every command.
//!
//! `println!` panics when the reader has gone: `neuralis inspect DIR | head` closes the
//! pipe once `head` has its lines, and the command died with a stack trace for a reader
//! that got what it asked for. Here a closed pipe ends the output, not the command:
//! later writes are dropped, and the command ends with the code its own outcome gives
//! (`validate`'s 1 for a package that would be rejected stays 1, so a pipeline under
//! `pipefail` still sees it). Any other failed write (a full disk behind `> file`) has
//! lost part of the answer: it is reported once on stderr, naming standard output, and
//! the command exits 1 whatever it would have said.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU8, Ordering};

/// `println!` for a command's answer, under this module's rule.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cmd::stdout::line(format_args!($($arg)*))
    };
}
pub(crate) use outln;

const OPEN: u8 = 0;
/// The reader went away: nothing more is written, the exit code is the command's.
const CLOSED: u8 = 1;
/// A write failed otherwise: nothing more is written, and the command fails.
const FAILED: u8 = 2;

/// Standard output's state for this process.
static STDOUT: AtomicU8 = AtomicU8::new(OPEN);

/// Writes `text` and a newline (through [`outln!`]).
pub(crate) fn line(text: fmt::Arguments<'_>) {
    write_to(&mut io::stdout().lock(), &STDOUT, |out| {
        out.write_fmt(text)?;
        out.write_all(b"\n")?;
        out.flush()
    });
}

/// Writes `content` as it is (a file's bytes, `> file` copies it).
pub(crate) fn bytes(content: &[u8]) {
    write_to(&mut io::stdout().lock(), &STDOUT, |out| {
        out.write_all(content)?;
        out.flush()
    });
}

/// The exit code of a command that ended with `code`: `code`, unless writing its
/// answer failed for another reason than a closed pipe.
pub(crate) fn exit_code(code: ExitCode) -> ExitCode {
    outcome(&STDOUT, code)
}

fn write_to<W: Write>(out: &mut W, state: &AtomicU8, write: impl FnOnce(&mut W) -> io::Result<()>) {
    if state.load(Ordering::Acquire) != OPEN {
        return;
    }
    match write(out) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => {
            state.store(CLOSED, Ordering::Release);
        }
        Err(error) => {
            // Only the first failure is told: every later write is skipped.
            if state.swap(FAILED, Ordering::AcqRel) == OPEN {
                let _ = writeln!(
                    io::stderr(),
                    "neuralis: writing to standard output: {error}"
                );
            }
        }
    }
}

fn outcome(state: &AtomicU8, code: ExitCode) -> ExitCode {
    if state.load(Ordering::Acquire) == FAILED {
        ExitCode::FAILURE
    } else {
        code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails every write with `kind`, counting the writes it was asked.
    struct Failing {
        kind: io::ErrorKind,
        asked: usize,
    }

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            self.asked += 1;
            Err(io::Error::from(self.kind))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn written(out: &mut Failing, state: &AtomicU8) {
        write_to(out, state, |out| out.write_all(b"a line\n"));
    }

    #[test]
    fn a_closed_pipe_stops_the_writes_and_keeps_the_commands_exit_code() {
        let state = AtomicU8::new(OPEN);
        let mut out = Failing {
            kind: io::ErrorKind::BrokenPipe,
            asked: 0,
        };
        written(&mut out, &state);
        written(&mut out, &state);
        assert_eq!(
            out.asked, 1,
            "nothing is written after the reader went away"
        );
        assert_eq!(outcome(&state, ExitCode::SUCCESS), ExitCode::SUCCESS);
        assert_eq!(outcome(&state, ExitCode::from(2)), ExitCode::from(2));
    }

    #[test]
    fn another_failed_write_stops_the_writes_and_fails_the_command() {
        let state = AtomicU8::new(OPEN);
        let mut out = Failing {
            kind: io::ErrorKind::StorageFull,
            asked: 0,
        };
        written(&mut out, &state);
        written(&mut out, &state);
        assert_eq!(out.asked, 1, "nothing is written after a failed write");
        assert_eq!(outcome(&state, ExitCode::SUCCESS), ExitCode::FAILURE);
    }

    #[test]
    fn writes_that_succeed_leave_the_commands_exit_code() {
        let state = AtomicU8::new(OPEN);
        let mut out = Vec::new();
        write_to(&mut out, &state, |out| out.write_all(b"one\n"));
        write_to(&mut out, &state, |out| out.write_all(b"two\n"));
        assert_eq!(out, b"one\ntwo\n");
        assert_eq!(outcome(&state, ExitCode::from(1)), ExitCode::from(1));
    }
}
