//! The API from TypeScript (issue 28 item 5), beside the Python client:
//! `tests/typescript/client_test.ts` loads `proto/` as published with
//! `@grpc/proto-loader`, calls through `@grpc/grpc-js`, and drives a real all-in-one
//! server on an ephemeral port: health, a source created and synced, packages listed
//! with a minted member token, and the `ErrorInfo` reason of an unauthenticated call.
//! The packages come from `tests/support/node-tools.sh` (pinned, installed once into
//! `target/tools/node`); without the npm registry the test fails and says so. It is
//! never skipped.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::path::PathBuf;
use std::process::Command;

use neuralis_tests::Cluster;

const PROJECT: &str = "proj";
const AGENT: &str = "ts-agent";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typescript_grpc_js_client_from_proto_syncs_lists_and_reads_error_reasons() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let repo = repo.canonicalize().unwrap();
    let cluster = Cluster::all_in_one(Default::default()).await.unwrap();
    let admin = cluster.token("ops", "owner", None, PROJECT);
    let member = cluster.token("ada", "member", Some(AGENT), PROJECT);
    let root = repo.join("tests/fixtures/example-source");
    let mut command = Command::new("bash");
    command
        .current_dir(&repo)
        .args([
            "tests/support/node-tools.sh",
            "node",
            "target/tools/node/out/client_test.js",
        ])
        .env("NEURALIS_REPO", &repo)
        .env("NEURALIS_ADDR", cluster.addrs["sync"].to_string())
        .env("NEURALIS_PROJECT", PROJECT)
        .env("NEURALIS_AGENT", AGENT)
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
        "the TypeScript client failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    assert!(
        stdout.contains("client_test: all checks passed"),
        "{stdout}"
    );
}
