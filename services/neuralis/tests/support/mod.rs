//! What the command-line tests share: the all-in-one node on an ephemeral port with the
//! example source beside it, tokens minted with its key, and the built binary run
//! against it.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use neuralis::node::{self, Node, NodeSettings, Targets, keys};
use neuralis_host::Shutdown;

/// The project every command-line scenario works in.
pub const PROJECT: &str = "demo";

/// A running all-in-one node on an empty data directory.
pub struct ExampleNode {
    pub node: Node,
    /// `http://host:port` of the node.
    pub server: String,
    /// The node's data directory (its keys live here).
    pub data: tempfile::TempDir,
    /// A scratch directory for the scenario's own files.
    pub files: tempfile::TempDir,
    /// `tests/fixtures/example-source`, canonical.
    pub fixture: PathBuf,
}

impl ExampleNode {
    pub async fn start() -> Self {
        let data = tempfile::tempdir().unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/example-source")
            .canonicalize()
            .unwrap();
        let settings = NodeSettings {
            listen: "127.0.0.1:0".into(),
            data_dir: data.path().to_path_buf(),
            ..NodeSettings::default()
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let node = node::start(settings, Targets::new([]), listener, Shutdown::new())
            .await
            .unwrap();
        let server = format!("http://{}", node.addr);
        Self {
            node,
            server,
            data,
            files: tempfile::tempdir().unwrap(),
            fixture,
        }
    }

    /// A token of `subject` with `role` bound to [`PROJECT`] (or platform-wide), acting
    /// as `agent` when given.
    pub fn mint(&self, subject: &str, role: &str, agent: Option<&str>, platform: bool) -> String {
        let who = keys::TokenFor {
            subject: subject.into(),
            role: role.into(),
            agent: agent.map(str::to_owned),
            project: (!platform).then(|| PROJECT.into()),
            platform,
            ttl_seconds: 3600,
            ..keys::TokenFor::default()
        };
        keys::mint_token(&keys::existing_key(self.data.path()).unwrap(), who).unwrap()
    }
}

/// Runs the binary against `server` with `token` (or none), off the runtime; the
/// token never shows in what it prints.
pub async fn cli(server: &str, token: Option<&str>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_neuralis"));
    command
        .args(args)
        .args(["--server", server])
        .env_remove("NEURALIS_TOKEN");
    if let Some(token) = token {
        command.env("NEURALIS_TOKEN", token);
    }
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    if let Some(token) = token {
        let printed = [text(&output.stdout), text(&output.stderr)].concat();
        assert!(!printed.contains(token), "the token was printed");
    }
    output
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Succeeds, and says what went wrong otherwise.
pub fn ok(output: &Output) -> String {
    assert!(
        output.status.success(),
        "exit {:?}: {}",
        output.status.code(),
        text(&output.stderr)
    );
    text(&output.stdout)
}
