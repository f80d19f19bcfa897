//! Clients of the API in other languages (`tests/python/`, `tests/typescript/`), run
//! against a real all-in-one server: each gets the server's address, a project, an
//! administrator's and a member's token and a directory to sync, and must print
//! `client_test: all checks passed`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test harness: a panic is a failing test

use std::path::PathBuf;
use std::process::Command;

use crate::Cluster;

const PROJECT: &str = "proj";

/// Runs `bash <args>` from the repository root against a fresh all-in-one server, with
/// the member acting as `agent`, and fails with the client's output unless every check
/// passed.
pub async fn run_client(language: &str, agent: &str, args: &[&str]) {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap();
    let cluster = Cluster::all_in_one(Default::default()).await.unwrap();
    let admin = cluster.token("ops", "owner", None, PROJECT);
    let member = cluster.token("ada", "member", Some(agent), PROJECT);
    let root = repo.join("tests/fixtures/example-source");
    let mut command = Command::new("bash");
    command
        .current_dir(&repo)
        .args(args)
        .env("NEURALIS_REPO", &repo)
        .env("NEURALIS_ADDR", cluster.addrs["sync"].to_string())
        .env("NEURALIS_PROJECT", PROJECT)
        .env("NEURALIS_AGENT", agent)
        .env("NEURALIS_ADMIN_TOKEN", &admin)
        .env("NEURALIS_MEMBER_TOKEN", &member)
        .env("NEURALIS_SOURCE_ROOT", root.display().to_string());
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .expect("bash runs");
    cluster.stop().await.unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(
        output.status.success(),
        "the {language} client failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    assert!(
        stdout.contains("client_test: all checks passed"),
        "{stdout}"
    );
}
