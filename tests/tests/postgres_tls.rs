//! PostgreSQL's `sslmode` is honoured: a throwaway PostgreSQL started for this test
//! with a certificate made at test time accepts `sslmode=require`, and
//! `sslmode=verify-full` connects with the right CA and fails, saying why, with
//! another. Both stores (the index and the access store) and a split policy node are
//! checked.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use neuralis::node::{self, NodeSettings, Targets};
use neuralis_access_store::PostgresStore;
use neuralis_host::Shutdown;
use neuralis_index::SqlIndexStore;
use neuralis_tests::pki::Pki;

/// A PostgreSQL server of this test's own, stopped on drop.
struct TlsPostgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
}

impl TlsPostgres {
    fn start(pki: &Pki) -> Self {
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
        let data = dir.path().join("data");
        run_as_postgres(
            &bin.join("initdb"),
            &[
                "-D",
                &data.display().to_string(),
                "-A",
                "trust",
                "-U",
                "postgres",
            ],
        );
        for (from, to) in [(&pki.cert, "server.crt"), (&pki.key, "server.key")] {
            let target = data.join(to);
            std::fs::copy(from, &target).unwrap();
            set_mode(&target, 0o600);
            chown_postgres(&target);
        }
        let port = free_port();
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=server.crt -c ssl_key_file=server.key",
            dir.path().display()
        );
        let log = dir.path().join("log").display().to_string();
        run_as_postgres(
            &bin.join("pg_ctl"),
            &[
                "-D",
                &data.display().to_string(),
                "-o",
                &options,
                "-l",
                &log,
                "-w",
                "start",
            ],
        );
        Self { dir, bin, port }
    }

    fn url(&self, query: &str) -> String {
        format!(
            "postgres://postgres@localhost:{}/postgres?{query}",
            self.port
        )
    }
}

impl Drop for TlsPostgres {
    fn drop(&mut self) {
        let data = self.dir.path().join("data").display().to_string();
        run_as_postgres(
            &self.bin.join("pg_ctl"),
            &["-D", &data, "-m", "immediate", "stop"],
        );
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.starts_with(b"0\n"))
}

/// PostgreSQL refuses to run as root: as root, run it as the `postgres` user.
fn run_as_postgres(program: &Path, args: &[&str]) {
    let mut command = if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    };
    let out = command.args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "{} failed: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn chown_postgres(path: &Path) {
    if is_root() {
        let status = Command::new("chown")
            .arg("postgres")
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success());
    }
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn postgres_sslmode_require_and_verify_full_connect() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::create(&dir.path().join("tls"), &[]).unwrap();
    let server = TlsPostgres::start(&pki);
    let ca = pki.ca.display();
    for query in [
        "sslmode=require".to_owned(),
        format!("sslmode=verify-full&sslrootcert={ca}"),
    ] {
        let url = server.url(&query);
        let store = PostgresStore::connect(&url, 2, Some("tls_policy")).await;
        assert!(
            store.is_ok(),
            "access store with {query}: {:?}",
            store.err()
        );
        let index = SqlIndexStore::connect_postgres(&url, "tls_index").await;
        assert!(index.is_ok(), "index with {query}: {:?}", index.err());
    }
}

#[tokio::test]
async fn postgres_verify_full_with_another_ca_fails_saying_tls() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::create(&dir.path().join("tls"), &[]).unwrap();
    let other = Pki::create(&dir.path().join("other"), &[]).unwrap();
    let server = TlsPostgres::start(&pki);
    let url = server.url(&format!(
        "sslmode=verify-full&sslrootcert={}",
        other.ca.display()
    ));
    let Err(error) = PostgresStore::connect(&url, 1, None).await else {
        panic!("a server certificate from another CA was accepted");
    };
    let error = error.to_string();
    assert!(
        error.to_lowercase().contains("tls"),
        "the error says TLS failed: {error}"
    );
}

#[tokio::test]
async fn a_split_policy_node_starts_on_postgres_with_sslmode_require() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::create(&dir.path().join("tls"), &[]).unwrap();
    let server = TlsPostgres::start(&pki);
    let env = HashMap::from([
        (
            "NEURALIS__IDENTITY__KEYS__KIND".to_owned(),
            "hs256".to_owned(),
        ),
        (
            "NEURALIS__IDENTITY__KEYS__SECRET".to_owned(),
            "0123456789".repeat(4),
        ),
        (
            "NEURALIS__POLICY__STORE__BACKEND".to_owned(),
            "postgres".to_owned(),
        ),
        (
            "NEURALIS__POLICY__STORE__URL".to_owned(),
            server.url("sslmode=require"),
        ),
    ]);
    let args = node::ServeArgs {
        targets: vec![node::Target::Policy],
        ..Default::default()
    };
    let (settings, targets): (NodeSettings, Targets) = args.settings(&env).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let started = node::start(settings, targets, listener, Shutdown::new())
        .await
        .unwrap();
    started.stop().await.unwrap();
}
