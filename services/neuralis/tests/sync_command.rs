//! `neuralis sync` against a running sync server: plain progress lines when stderr is
//! not a terminal, the final revision on stdout, a clear error for an unknown source.

use neuralis_bus::InProcessBus;
use neuralis_index::SqlIndexStore;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::auth::SharedToken;
use neuralis_sync::layout_rules::LayoutCore;
use neuralis_sync::{CallerToken, SyncConfig, SyncParts, SyncService};
use std::process::Command;
use std::sync::Arc;

const TOKEN: &str = "cli-test-token";

async fn serve(index: &std::path::Path) -> (String, SyncService) {
    let store = SqlIndexStore::open_embedded(&index.join("index.db"))
        .await
        .expect("store");
    let parts = SyncParts {
        store: Arc::new(store),
        bus: Arc::new(InProcessBus::default()),
        rules: Arc::new(LayoutCore),
        embedder: None,
        authorizer: Arc::new(SharedToken::new(TOKEN)),
    };
    let service = SyncService::from_parts(&SyncConfig::default(), parts)
        .await
        .expect("service");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let router = tonic::transport::Server::builder().add_service(service.grpc());
    tokio::spawn(router.serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener)));
    (format!("http://{address}"), service)
}

fn neuralis_sync(server: &str, source: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_neuralis"))
        .args(["sync", "demo", source, "--server", server])
        .env("NEURALIS_TOKEN", TOKEN)
        .output()
        .expect("runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sync_command_prints_plain_progress_and_the_revision() {
    let index = tempfile::tempdir().expect("tempdir");
    let repo = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(repo.path().join("skills/a")).expect("mkdir");
    std::fs::write(
        repo.path().join("skills/a/SKILL.md"),
        "---\nname: a\n---\nbody\n",
    )
    .expect("write");
    let (server, service) = serve(index.path()).await;
    let spec = pb::SourceSpec {
        project: "demo".into(),
        slug: "repo".into(),
        kind: pb::SourceKind::Local as i32,
        root: repo.path().to_str().expect("utf-8").into(),
        ..Default::default()
    };
    service
        .api()
        .create_source(
            &CallerToken::bearer(TOKEN),
            pb::CreateSourceRequest { source: Some(spec) },
        )
        .await
        .expect("created");

    let output = tokio::task::spawn_blocking({
        let server = server.clone();
        move || neuralis_sync(&server, "repo")
    })
    .await
    .expect("joined");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stdout.starts_with("synced at revision 1: seen 1 indexed 1"),
        "{stdout}"
    );
    assert!(
        stderr.lines().all(|line| line.starts_with("seen ")),
        "{stderr}"
    );

    let missing = tokio::task::spawn_blocking(move || neuralis_sync(&server, "nope"))
        .await
        .expect("joined");
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("not found"));
}
