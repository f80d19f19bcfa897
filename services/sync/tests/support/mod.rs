//! What the integration tests share: a real gRPC server on a free loopback port, a
//! store wrapper that counts and fails writes on demand, and source trees on disk.
#![allow(dead_code)]

pub mod client;
pub mod forget;
pub mod store;
pub mod tree;

pub use client::Client;
pub use forget::RecordingForgetter;
use futures::StreamExt;
use neuralis_bus::{BusNotice, InvalidationBus, InvalidationEvent, Phase, RedisBus, Subscription};
use neuralis_identity::BearerToken;
use neuralis_index::SqlIndexStore;
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::grpc::{IndexFeedGrpcClient, SourceGrpcClient};
use neuralis_sync::layout_rules::{LayoutCore, LayoutRules};
use neuralis_sync::{SyncConfig, SyncError, SyncParts, SyncService};
use std::sync::Arc;
pub use store::CountingStore;

/// A running server and a client talking to it.
pub struct Harness {
    pub client: Client,
    pub service: SyncService,
    pub store: Arc<CountingStore>,
    pub forgetter: Arc<RecordingForgetter>,
    pub server: tokio::task::JoinHandle<()>,
    pub _index_dir: tempfile::TempDir,
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.server.abort();
    }
}

pub fn redis_url() -> String {
    std::env::var("NEURALIS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// One channel per test, so tests run in parallel.
pub fn unique_channel(test: &str) -> String {
    format!(
        "neuralis-sync-test-{test}-{}-{}",
        std::process::id(),
        neuralis_bus::now_millis()
    )
}

pub fn test_config() -> SyncConfig {
    SyncConfig {
        max_file_size: 4096,
        auto_debounce_ms: 200,
        // Intervals of a second, for tests that wait for one to fire.
        schedule: neuralis_sync::config::ScheduleLimits {
            min_interval_ms: 1_000,
            ..Default::default()
        },
        ..SyncConfig::default()
    }
}

/// Options of one harness.
pub struct Setup {
    pub config: SyncConfig,
    pub bus: Arc<dyn InvalidationBus>,
    pub rules: Arc<dyn LayoutRules>,
    pub embedder: Option<Arc<dyn neuralis_sync::embedder::Embedder>>,
    pub store: Option<Arc<CountingStore>>,
    /// What `DeleteSource` forgets through (records every id it is asked to forget).
    pub forgetter: Arc<RecordingForgetter>,
    /// The directories the server keeps.
    pub kept_dirs: Vec<std::path::PathBuf>,
    /// Split mode: roots must lie under `allowed_roots`.
    pub require_allowed_roots: bool,
    /// What a new data source's exclude globs start as.
    pub data_excludes: Vec<String>,
}

impl Setup {
    pub fn with_bus(bus: Arc<dyn InvalidationBus>) -> Self {
        Self {
            config: test_config(),
            bus,
            rules: Arc::new(LayoutCore),
            embedder: None,
            store: None,
            forgetter: Arc::new(RecordingForgetter::default()),
            kept_dirs: Vec::new(),
            require_allowed_roots: false,
            data_excludes: Vec::new(),
        }
    }

    pub async fn redis(channel: &str) -> Self {
        let bus = RedisBus::connect(&redis_url(), channel)
            .await
            .expect("redis reachable");
        Self::with_bus(Arc::new(bus))
    }
}

/// Starts the server on `127.0.0.1:0` (bound first, then handed over) and connects.
pub async fn start(setup: Setup) -> Harness {
    let index_dir = tempfile::tempdir().expect("tempdir");
    let store = match setup.store {
        Some(store) => store,
        None => {
            let sql = SqlIndexStore::open_embedded(&index_dir.path().join("index.db"))
                .await
                .expect("store");
            Arc::new(CountingStore::new(Arc::new(sql)))
        }
    };
    let parts = SyncParts {
        store: store.clone(),
        bus: setup.bus,
        rules: setup.rules,
        embedder: setup.embedder,
        verifiers: client::verifiers(),
        forgetter: setup.forgetter.clone(),
        kept_dirs: setup.kept_dirs,
        require_allowed_roots: setup.require_allowed_roots,
        data_excludes: setup.data_excludes,
    };
    let service = SyncService::from_parts(&setup.config, parts)
        .await
        .expect("service");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let incoming = tonic::transport::server::TcpIncoming::from(listener);
    // One listener holds both services here; a node never serves the feed publicly.
    let router = tonic::transport::Server::builder()
        .add_service(service.sources_server())
        .add_service(service.feed_server());
    let server = tokio::spawn(async move {
        let _ = router.serve_with_incoming(incoming).await;
    });
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{address}"))
        .expect("endpoint")
        .connect()
        .await
        .expect("connects");
    Harness {
        client: Client {
            sources: SourceGrpcClient::new(channel.clone()),
            feed: IndexFeedGrpcClient::new(channel),
        },
        service,
        store,
        forgetter: setup.forgetter,
        server,
        _index_dir: index_dir,
    }
}

pub fn local_spec(
    project: &str,
    slug: &str,
    root: &std::path::Path,
    trigger: &str,
) -> pb::SourceSpec {
    pb::SourceSpec {
        project: project.into(),
        slug: slug.into(),
        kind: pb::SourceKind::Local as i32,
        root: root.to_str().expect("utf-8 root").into(),
        trigger: trigger.into(),
        ..Default::default()
    }
}

/// The administrator every helper acts as (platform-wide).
pub fn caller() -> BearerToken {
    client::admin()
}

/// Creates a source; returns the id the server assigned.
/// A repository tree on disk (`tree::repository`), created as `project`'s manual
/// source "repo"; kept alive by the caller.
pub async fn repository_source(client: &Client, project: &str) -> tempfile::TempDir {
    let repo = tree::repository();
    create(client, local_spec(project, "repo", repo.path(), "manual")).await;
    repo
}

pub async fn create(client: &Client, spec: pb::SourceSpec) -> String {
    client
        .create_source(&caller(), pb::CreateSourceRequest { source: Some(spec) })
        .await
        .expect("source created")
        .source
        .expect("the source")
        .id
}

/// Runs a sync to its end: every message, or the error that ended it.
pub async fn sync(
    client: &Client,
    project: &str,
    slug: &str,
) -> Result<Vec<pb::SyncSourceResponse>, SyncError> {
    let request = pb::SyncSourceRequest {
        project: project.into(),
        slug: slug.into(),
    };
    let mut stream = client.sync_source(&caller(), request).await?;
    let mut messages = Vec::new();
    while let Some(message) = stream.next().await {
        messages.push(message?);
    }
    Ok(messages)
}

/// The last message of a successful sync.
pub async fn synced(client: &Client, project: &str, slug: &str) -> pb::SyncSourceResponse {
    let messages = sync(client, project, slug).await.expect("sync succeeds");
    let last = messages.last().cloned().expect("at least one message");
    assert!(last.done, "the last message is marked done");
    last
}

pub async fn revision(client: &Client, project: &str) -> u64 {
    client
        .get_revision(feed::GetRevisionRequest {
            project: project.into(),
        })
        .await
        .expect("revision")
        .revision
}

pub async fn entries(client: &Client, project: &str) -> (u64, Vec<feed::Entry>) {
    let mut stream = client
        .list_entries(feed::ListEntriesRequest {
            project: project.into(),
            ..Default::default()
        })
        .await
        .expect("entries");
    let mut revision = None;
    let mut all = Vec::new();
    while let Some(page) = stream.next().await {
        let page = page.expect("page");
        assert!(
            revision.is_none_or(|r| r == page.revision),
            "one revision per stream"
        );
        revision = Some(page.revision);
        all.extend(page.entries);
    }
    (revision.expect("at least one page"), all)
}

/// Every event delivered before `sentinel` (published now, after everything the test
/// did): Redis delivers in publish order, so nothing published earlier comes later.
pub async fn events_until_sentinel(
    bus: &dyn InvalidationBus,
    subscription: &mut Subscription,
) -> Vec<InvalidationEvent> {
    let sentinel = InvalidationEvent {
        project: "sentinel".into(),
        source: "sentinel".into(),
        write_id: format!("sentinel-{}", neuralis_bus::now_millis()),
        revision: 0,
        phase: Phase::Finish,
        at: 0,
    };
    bus.publish(&sentinel).await.expect("sentinel published");
    let mut seen = Vec::new();
    while let Some(notice) = subscription.next().await {
        match notice {
            BusNotice::Event(event) if event == sentinel => return seen,
            BusNotice::Event(event) => seen.push(event),
            other => panic!("the subscription was interrupted: {other:?}"),
        }
    }
    panic!("the subscription ended")
}
