//! `neuralis sync` against a running sync server: plain progress lines when stderr is
//! not a terminal, the final revision on stdout, a clear error for an unknown source.

use neuralis_bus::InProcessBus;
use neuralis_identity::{
    BearerToken, Claims, IdentityConfig, KeySource, Secret, ServiceIdentityConfig, ServiceVerifier,
    Verifier, mint,
};
use neuralis_index::SqlIndexStore;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::layout_rules::LayoutCore;
use neuralis_sync::{SyncConfig, SyncParts, SyncService};
use std::process::Command;
use std::sync::Arc;

const SECRET: &str = "cli-test-caller-secret-of-32-bytes!!";

fn verifiers() -> Arc<neuralis_authz::Verifiers> {
    let hs256 = |secret: &str| KeySource::Hs256 {
        secret: Secret::new(secret),
    };
    let callers = Verifier::from_config(&IdentityConfig {
        keys: hs256(SECRET),
        ..IdentityConfig::default()
    })
    .expect("verifier");
    let services = ServiceVerifier::from_config(&ServiceIdentityConfig {
        keys: hs256("cli-test-service-secret-of-32-bytes!"),
        ..ServiceIdentityConfig::default()
    })
    .expect("verifier");
    Arc::new(neuralis_authz::Verifiers::new(
        Arc::new(callers),
        Arc::new(services),
        &["owner".to_owned()],
    ))
}

/// An owner of project `demo`.
fn owner() -> String {
    let claims = Claims {
        sub: "ops".into(),
        role: "owner".into(),
        features: Vec::new(),
        agent: None,
        project: Some("demo".into()),
        conversation: None,
        platform: false,
        exp: u64::MAX / 2,
        nbf: None,
        aud: Some("neuralis".into()),
        iss: None,
    };
    mint(&Secret::new(SECRET), &claims)
        .expect("minted")
        .expose()
        .to_owned()
}

async fn serve(index: &std::path::Path) -> (String, SyncService) {
    let store = SqlIndexStore::open_embedded(&index.join("index.db"))
        .await
        .expect("store");
    let parts = SyncParts {
        store: Arc::new(store),
        bus: Arc::new(InProcessBus::default()),
        rules: Arc::new(LayoutCore),
        embedder: None,
        verifiers: verifiers(),
        forgetter: Arc::new(neuralis_sync::NoForget),
        kept_dirs: Vec::new(),
        require_allowed_roots: false,
        data_excludes: Vec::new(),
    };
    let service = SyncService::from_parts(&SyncConfig::default(), parts)
        .await
        .expect("service");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let router = tonic::transport::Server::builder().add_service(service.sources_server());
    tokio::spawn(router.serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener)));
    (format!("http://{address}"), service)
}

fn neuralis_sync(server: &str, source: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_neuralis"))
        .args(["sync", "demo", source, "--server", server])
        .env("NEURALIS_TOKEN", owner())
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
        .sources_api()
        .create_source(
            &BearerToken::new(Some(owner())),
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
