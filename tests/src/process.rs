//! A `neuralis-node` process started as an operator would, with the addresses it
//! announced, and the admin port's HTTP: what the operability tests share.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test harness: a panic is a failing test

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonic::transport::Endpoint;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

/// The caller-token key of every process [`spawn`] starts.
pub const SECRET: &str = "0123456789abcdef0123456789abcdef0123456789abcdef";
/// The service-credential key of every process [`spawn`] starts.
pub const SERVICE_SECRET: &str = "fedcba9876543210fedcba9876543210fedcba9876543210";

/// The `neuralis` binary (the product's CLI and server), built beside `node`, this
/// package's `neuralis-node` binary: an integration test passes
/// `env!("CARGO_BIN_EXE_neuralis-node")`, since cargo names only a package's own binaries.
pub fn neuralis_binary(node: &str) -> std::path::PathBuf {
    let binary = std::path::Path::new(node).with_file_name("neuralis");
    if !binary.is_file() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "-p", "neuralis", "--bin", "neuralis"])
            .current_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
            .status()
            .unwrap();
        assert!(status.success(), "building the neuralis binary");
    }
    binary
}

/// `GET path` on the admin port: the status code and the body.
pub async fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(format!("GET {path} HTTP/1.1\r\nHost: admin\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).await.unwrap();
    let code = text[9..12].parse().unwrap();
    (code, text.split_once("\r\n\r\n").unwrap().1.to_owned())
}

/// A gRPC code's canonical name: `Unauthenticated` as `UNAUTHENTICATED`.
pub fn code_name(code: tonic::Code) -> String {
    let name = format!("{code:?}");
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// One `neuralis-node` process, and the addresses it announced.
pub struct Process {
    pub child: Child,
    pub grpc: SocketAddr,
    pub internal: Option<SocketAddr>,
    pub admin: Option<SocketAddr>,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `node_bin` with `args`, the admin port on a free port, the two keys above
/// and `env`, and waits for every address it announces.
pub fn spawn(
    node_bin: &str,
    args: &[&str],
    env: &HashMap<String, String>,
    data: &std::path::Path,
) -> Process {
    let mut child = Command::new(node_bin)
        .args(args)
        .args(["--announce", "--admin-listen", "127.0.0.1:0"])
        .arg("--data-dir")
        .arg(data)
        .env_clear()
        .envs(env)
        .env("NEURALIS__IDENTITY__KEYS__KIND", "hs256")
        .env("NEURALIS__IDENTITY__KEYS__SECRET", SECRET)
        .env("NEURALIS__SERVICE_IDENTITY__KEYS__KIND", "hs256")
        .env("NEURALIS__SERVICE_IDENTITY__KEYS__SECRET", SERVICE_SECRET)
        .env("NEURALIS__TELEMETRY__LOG_FILTER", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (mut grpc, mut internal, mut admin) = (None, None, None);
    let expect_internal = args.contains(&"sync");
    while grpc.is_none() || admin.is_none() || (expect_internal && internal.is_none()) {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap() == 0 {
            panic!("{args:?} exited before announcing");
        }
        let line = line.trim();
        if let Some(addr) = line.strip_prefix("listening ") {
            grpc = Some(addr.parse().unwrap());
        } else if let Some(addr) = line.strip_prefix("internal ") {
            internal = Some(addr.parse().unwrap());
        } else if let Some(addr) = line.strip_prefix("admin ") {
            admin = Some(addr.parse().unwrap());
        }
    }
    Process {
        child,
        grpc: grpc.unwrap(),
        internal,
        admin,
    }
}

/// The health status of `service` at `addr`; none when it cannot be asked.
pub async fn health(addr: SocketAddr, service: &str) -> Option<ServingStatus> {
    let channel = Endpoint::from_shared(format!("http://{addr}"))
        .ok()?
        .connect()
        .await
        .ok()?;
    let answer = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: service.into(),
        })
        .await
        .ok()?;
    Some(answer.into_inner().status())
}

pub use crate::ports::free_port;
