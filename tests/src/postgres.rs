//! A PostgreSQL server of one test's own, on a free port under a temporary directory,
//! that the test may stop and start again (never the shared one other tests use).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test harness: a panic is a failing test

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::process::free_port;

/// A throwaway PostgreSQL, stopped on drop.
pub struct LocalPostgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    pub port: u16,
}

impl LocalPostgres {
    /// Creates a cluster (trust authentication, user `postgres`) and starts it.
    pub fn start() -> Self {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .expect(
                "PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)",
            )
            .filter_map(|entry| entry.ok().map(|e| e.path().join("bin")))
            .filter(|bin| bin.join("initdb").is_file())
            .max()
            .expect("an initdb under /usr/lib/postgresql/*/bin");
        let dir = tempfile::tempdir().unwrap();
        set_mode(dir.path(), 0o777);
        let data = dir.path().join("data").display().to_string();
        run_as_postgres(
            &bin.join("initdb"),
            &["-D", &data, "-A", "trust", "-U", "postgres"],
        );
        let server = Self {
            dir,
            bin,
            port: free_port(),
        };
        server.resume();
        server
    }

    /// `postgres://` URL of its `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Stops the server at once (connections are cut, as in a crash).
    pub fn halt(&self) {
        run_as_postgres(
            &self.bin.join("pg_ctl"),
            &["-D", &self.data(), "-m", "immediate", "-w", "stop"],
        );
    }

    /// Starts it again on the same port and waits until it accepts connections.
    pub fn resume(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("log").display().to_string();
        run_as_postgres(
            &self.bin.join("pg_ctl"),
            &[
                "-D",
                &self.data(),
                "-o",
                &options,
                "-l",
                &log,
                "-w",
                "start",
            ],
        );
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }
}

impl Drop for LocalPostgres {
    fn drop(&mut self) {
        let _ = as_postgres(&self.bin.join("pg_ctl"))
            .args(["-D", &self.data(), "-m", "immediate", "stop"])
            .output();
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.starts_with(b"0\n"))
}

/// PostgreSQL refuses to run as root: as root, run it as the `postgres` user.
fn as_postgres(program: &Path) -> Command {
    if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn run_as_postgres(program: &Path, args: &[&str]) {
    let out = as_postgres(program).args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "{} failed: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}
