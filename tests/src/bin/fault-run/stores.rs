//! The runner's own Redis and PostgreSQL, on free ports under a temporary directory,
//! so a fault run may stop and start them (the machine's shared servers are never
//! touched).

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};

/// A `redis-server` of the runner's own, without persistence.
pub struct OwnRedis {
    pub port: u16,
    dir: PathBuf,
    child: Option<Child>,
}

impl OwnRedis {
    pub fn start(dir: &Path, port: u16) -> Result<Self> {
        std::fs::create_dir_all(dir)?;
        let mut redis = Self {
            port,
            dir: dir.to_owned(),
            child: None,
        };
        redis.up()?;
        Ok(redis)
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Starts the server again on the same port (an empty one: nothing is saved).
    pub fn up(&mut self) -> Result<()> {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting redis-server (is it installed?)")?;
        self.child = Some(child);
        wait_for_port(self.port, Duration::from_secs(10))
    }

    /// Kills the server (SIGKILL: a crash, not a shutdown).
    pub fn down(&mut self) -> Result<()> {
        if let Some(mut child) = self.child.take() {
            child.kill()?;
            child.wait()?;
        }
        Ok(())
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.down();
    }
}

/// A PostgreSQL cluster of the runner's own (initdb under a temporary directory, trust
/// authentication, run as the `postgres` user since initdb refuses root).
pub struct OwnPostgres {
    pub port: u16,
    bin: PathBuf,
    dir: PathBuf,
    running: bool,
}

impl OwnPostgres {
    pub fn start(dir: &Path, port: u16) -> Result<Self> {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .context("PostgreSQL server binaries under /usr/lib/postgresql")?
            .filter_map(|entry| entry.ok().map(|e| e.path().join("bin")))
            .filter(|bin| bin.join("initdb").is_file())
            .max()
            .ok_or_else(|| anyhow!("no initdb under /usr/lib/postgresql/*/bin"))?;
        std::fs::create_dir_all(dir)?;
        open_to_all(dir)?;
        let mut postgres = Self {
            port,
            bin,
            dir: dir.to_owned(),
            running: false,
        };
        let data = postgres.data();
        postgres.run("initdb", &["-D", &data, "-A", "trust", "-U", "postgres"])?;
        postgres.up()?;
        Ok(postgres)
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    fn data(&self) -> String {
        self.dir.join("data").display().to_string()
    }

    pub fn up(&mut self) -> Result<()> {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c max_connections=200",
            self.port,
            self.dir.display()
        );
        let log = self.dir.join("log").display().to_string();
        let data = self.data();
        self.run(
            "pg_ctl",
            &["-D", &data, "-o", &options, "-l", &log, "-w", "start"],
        )?;
        self.running = true;
        Ok(())
    }

    /// Stops the server: `immediate` (every backend killed, recovery at the next start:
    /// what a crash looks like to a client).
    pub fn down(&mut self) -> Result<()> {
        let data = self.data();
        self.run("pg_ctl", &["-D", &data, "-m", "immediate", "-w", "stop"])?;
        self.running = false;
        Ok(())
    }

    fn run(&self, tool: &str, args: &[&str]) -> Result<()> {
        let status = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(self.bin.join(tool))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .with_context(|| format!("running {tool}"))?;
        if !status.success() {
            bail!("{tool} {args:?} failed: {status}");
        }
        Ok(())
    }
}

impl Drop for OwnPostgres {
    fn drop(&mut self) {
        if self.running {
            let _ = self.down();
        }
    }
}

fn open_to_all(dir: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777))?;
    Ok(())
}

/// Waits until something accepts connections on `port`.
pub fn wait_for_port(port: u16, limit: Duration) -> Result<()> {
    let deadline = Instant::now() + limit;
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            bail!("nothing listens on {port} after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}
