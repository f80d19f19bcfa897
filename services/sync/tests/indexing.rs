//! Indexing through a running server: incremental re-syncs, the payload-only refresh,
//! what is skipped, reads, search, and who may call what.

mod support;

use neuralis_bus::InProcessBus;
use neuralis_identity::BearerToken;
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::embedder::Embedder;
use neuralis_sync::layout_rules::{Captured, LayoutCore, LayoutRules};
use neuralis_sync::{IndexFeedApi, SourceApi, SyncError};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use support::{Setup, tree};

const PROJECT: &str = "project-index";

fn in_process() -> Setup {
    Setup::with_bus(Arc::new(InProcessBus::default()))
}

/// The layout core as if its payload schema had grown by one version.
struct GrownSchema;

impl LayoutRules for GrownSchema {
    fn payload_version(&self) -> u32 {
        LayoutCore.payload_version() + 1
    }
    fn needs_content(&self, path: &str) -> bool {
        LayoutCore.needs_content(path)
    }
    fn capture(&self, path: &str, content: Option<&[u8]>) -> Captured {
        let mut captured = LayoutCore.capture(path, content);
        captured.payload["version"] = self.payload_version().into();
        captured
    }
    fn privacy_owner(&self, path: &str, patterns: &[String]) -> Option<String> {
        LayoutCore.privacy_owner(path, patterns)
    }
    fn is_markdown(&self, path: &str) -> bool {
        LayoutCore.is_markdown(path)
    }
    fn package_roots(
        &self,
        source: &str,
        files: &[neuralis_layout::IndexedFile],
    ) -> neuralis_layout::PackageRoots {
        LayoutCore.package_roots(source, files)
    }
}

/// Counts what it is asked to embed; once `stalled`, never answers.
#[derive(Default)]
struct CountingEmbedder {
    texts: AtomicU64,
    stalled: AtomicBool,
}

#[async_trait::async_trait]
impl Embedder for CountingEmbedder {
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, SyncError> {
        if self.stalled.load(Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
        self.texts.fetch_add(texts.len() as u64, Ordering::SeqCst);
        Ok(texts
            .iter()
            .map(|text| vec![text.len() as f32, 1.0])
            .collect())
    }
}

#[tokio::test]
async fn a_no_change_resync_reads_and_writes_nothing() {
    let harness = support::start(in_process()).await;
    let _repo = support::repository_source(&harness.client, PROJECT).await;
    let first = support::synced(&harness.client, PROJECT, "repo").await;
    let batches = harness.store.batches.load(Ordering::SeqCst);

    let again = support::synced(&harness.client, PROJECT, "repo").await;
    let progress = again.progress.expect("progress");
    assert_eq!(
        (
            progress.files_indexed,
            progress.batches_committed,
            progress.bytes_read
        ),
        (0, 0, 0)
    );
    assert_eq!(progress.files_unchanged, progress.files_seen);
    assert_eq!(again.revision, first.revision);
    assert_eq!(harness.store.batches.load(Ordering::SeqCst), batches);
}

#[tokio::test]
async fn a_resync_rewrites_changed_files_and_deletes_vanished_ones() {
    let harness = support::start(in_process()).await;
    let repo = support::repository_source(&harness.client, PROJECT).await;
    support::synced(&harness.client, PROJECT, "repo").await;
    std::fs::remove_file(repo.path().join("src/main.rs")).expect("removed");
    tree::write(
        repo.path(),
        "notes/design.md",
        "# Design\nChanged and longer than before.\n",
    );

    let progress = support::synced(&harness.client, PROJECT, "repo")
        .await
        .progress
        .expect("progress");
    assert_eq!((progress.files_indexed, progress.files_deleted), (1, 1));
    let (_, entries) = support::entries(&harness.client, PROJECT).await;
    let paths: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            ".claude/rules/style.md",
            ".claude/skills/review/SKILL.md",
            "notes/design.md"
        ]
    );
}

#[tokio::test]
async fn a_payload_version_bump_refreshes_every_payload_without_rechunking_or_reembedding() {
    let embedder = Arc::new(CountingEmbedder::default());
    let (harness, _repo) = synced_with_embedder(in_process(), &embedder).await;
    let (chunks_before, texts_before) = (
        harness.store.chunk_rows(),
        embedder.texts.load(Ordering::SeqCst),
    );
    assert!(
        chunks_before > 0 && texts_before > 0,
        "the first sync chunked and embedded"
    );

    // The same store, served by a sync whose layout core captures one version more.
    let mut grown = in_process();
    grown.rules = Arc::new(GrownSchema);
    grown.embedder = Some(embedder.clone());
    grown.store = Some(harness.store.clone());
    let upgraded = support::start(grown).await;
    let progress = support::synced(&upgraded.client, PROJECT, "repo")
        .await
        .progress
        .expect("progress");

    let (_, entries) = support::entries(&upgraded.client, PROJECT).await;
    let version = GrownSchema.payload_version();
    assert!(
        entries.iter().all(|e| e.payload_version == version),
        "every row refreshed"
    );
    assert!(
        entries
            .iter()
            .all(|e| e.payload_json.contains(&format!("\"version\":{version}")))
    );
    assert_eq!(progress.files_indexed, entries.len() as u64);
    assert_eq!(
        harness.store.chunk_rows(),
        chunks_before,
        "no chunk row written"
    );
    assert_eq!(
        embedder.texts.load(Ordering::SeqCst),
        texts_before,
        "nothing re-embedded"
    );
}

#[tokio::test]
async fn escapes_loops_oversized_files_and_bad_names_are_reported_and_never_indexed() {
    use std::os::unix::ffi::OsStrExt;
    let harness = support::start(in_process()).await;
    let outside = tempfile::tempdir().expect("tempdir");
    tree::write(outside.path(), "secret.md", "secret");
    let repo = tree::repository();
    let root = repo.path();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), root.join("escape.md"))
        .expect("link");
    std::os::unix::fs::symlink(root, root.join("notes/loop")).expect("link");
    tree::write(root, "notes/huge.md", &"x".repeat(5000));
    std::fs::write(
        root.join(std::ffi::OsStr::from_bytes(b"notes/bad\xff.md")),
        "x",
    )
    .expect("write");
    support::create(
        &harness.client,
        support::local_spec(PROJECT, "repo", root, "manual"),
    )
    .await;

    let messages = support::sync(&harness.client, PROJECT, "repo")
        .await
        .expect("the sync still succeeds");
    let mut skipped: Vec<(String, pb::SkipReason)> = messages
        .iter()
        .flat_map(|m| m.skipped.iter().map(|s| (s.path.clone(), s.reason())))
        .collect();
    skipped.sort();
    assert_eq!(
        skipped,
        [
            ("escape.md".into(), pb::SkipReason::SymlinkEscape),
            ("notes/bad\u{fffd}.md".into(), pb::SkipReason::NonUtf8Name),
            ("notes/huge.md".into(), pb::SkipReason::TooLarge),
            ("notes/loop".into(), pb::SkipReason::SymlinkLoop),
        ]
    );
    let (_, entries) = support::entries(&harness.client, PROJECT).await;
    assert!(entries.iter().all(|e| !e.path.contains("escape")
        && !e.path.contains("huge")
        && !e.path.contains("loop")
        && !e.path.contains("bad")));
    assert_eq!(
        messages
            .last()
            .and_then(|m| m.progress)
            .map(|p| p.files_skipped),
        Some(4)
    );
}

#[tokio::test]
async fn read_file_serves_a_file_and_answers_not_found_once_it_is_gone() {
    let harness = support::start(in_process()).await;
    let repo = support::repository_source(&harness.client, PROJECT).await;
    // The reader names the bytes it decided on: here, the file as written.
    let decided = |path: &str| {
        std::fs::read(repo.path().join(path))
            .map_or(1, |bytes| neuralis_connector::fingerprint(&bytes))
    };
    let request = |path: &str| feed::ReadDecidedFileRequest {
        project: PROJECT.into(),
        source: "repo".into(),
        path: path.into(),
        fingerprint: decided(path),
        real_path: String::new(),
    };
    let read = |path: &str| harness.client.read_file(request(path));
    // The feed answers services only: no token reads nothing, and neither does an
    // administrator's token.
    let feed = &harness.client.feed;
    let anonymous = feed
        .read_file(
            &BearerToken::default(),
            request(".claude/skills/review/SKILL.md"),
        )
        .await;
    assert_eq!(anonymous.err(), Some(SyncError::Unauthenticated));
    let caller = feed
        .read_file(
            &support::caller(),
            request(".claude/skills/review/SKILL.md"),
        )
        .await;
    assert!(
        matches!(caller, Err(SyncError::PermissionDenied(_))),
        "{caller:?}"
    );
    let skill = read(".claude/skills/review/SKILL.md").await.expect("read");
    assert!(String::from_utf8_lossy(&skill.content).contains("name: review"));
    std::fs::remove_file(repo.path().join(".claude/skills/review/SKILL.md")).expect("removed");
    for path in [
        ".claude/skills/review/SKILL.md",
        "../etc/passwd",
        "/etc/passwd",
    ] {
        assert!(
            matches!(read(path).await, Err(SyncError::NotFound(_))),
            "{path}"
        );
    }
}

#[tokio::test]
async fn search_answers_full_text_over_chunks_without_an_embedder() {
    let harness = support::start(in_process()).await;
    let _repo = support::repository_source(&harness.client, PROJECT).await;
    support::synced(&harness.client, PROJECT, "repo").await;
    let answer = harness
        .client
        .search(feed::SearchChunksRequest {
            project: PROJECT.into(),
            query: "deploy pipeline".into(),
            limit: 0,
        })
        .await
        .expect("search");
    assert_eq!(answer.mode(), feed::SearchMode::FullText);
    assert_eq!(
        answer
            .hits
            .iter()
            .map(|h| h.path.as_str())
            .collect::<Vec<_>>(),
        ["notes/design.md"]
    );
    let empty = harness
        .client
        .search(feed::SearchChunksRequest {
            project: PROJECT.into(),
            query: " ".into(),
            limit: 5,
        })
        .await;
    assert!(
        matches!(empty, Err(SyncError::InvalidArgument { ref field, .. }) if field == "query"),
        "{empty:?}"
    );
}

#[tokio::test]
async fn a_new_source_reports_never_synced_and_bad_specs_name_their_field() {
    let harness = support::start(in_process()).await;
    let repo = support::repository_source(&harness.client, PROJECT).await;
    let got = harness
        .client
        .get_source(pb::GetSourceRequest {
            project: PROJECT.into(),
            slug: "repo".into(),
        })
        .await;
    let status = got
        .expect("source")
        .source
        .and_then(|s| s.status)
        .expect("status");
    assert_eq!(
        status.message,
        "Never synced — run a sync to index this source and load its packages"
    );

    let bad = support::local_spec(PROJECT, "other", repo.path(), "interval:10x");
    let refused = harness
        .client
        .create_source(
            &support::caller(),
            pb::CreateSourceRequest { source: Some(bad) },
        )
        .await;
    assert!(
        matches!(refused, Err(SyncError::InvalidArgument { ref field, .. }) if field == "source.trigger"),
        "{refused:?}"
    );
    let twice = harness
        .client
        .create_source(
            &support::caller(),
            pb::CreateSourceRequest {
                source: Some(support::local_spec(PROJECT, "repo", repo.path(), "")),
            },
        )
        .await;
    assert!(
        matches!(twice, Err(SyncError::AlreadyExists(_))),
        "{twice:?}"
    );
}

#[tokio::test]
async fn administering_sources_needs_an_administrator_of_the_project() {
    use support::client::{service, token};
    let harness = support::start(in_process()).await;
    let repo = tree::repository();
    let create = |token: BearerToken| {
        let spec = support::local_spec(PROJECT, "repo", repo.path(), "manual");
        let client = harness.client.clone();
        async move {
            client
                .create_source(&token, pb::CreateSourceRequest { source: Some(spec) })
                .await
        }
    };
    assert_eq!(
        create(BearerToken::default()).await.err(),
        Some(SyncError::Unauthenticated),
        "no token"
    );
    for (who, token) in [
        ("a member of the project", token("member", Some(PROJECT))),
        ("an owner of another project", token("owner", Some("other"))),
        ("a service", service()),
    ] {
        let refused = create(token).await;
        assert!(
            matches!(refused, Err(SyncError::PermissionDenied(_))),
            "{who}: {refused:?}"
        );
    }
    create(token("owner", Some(PROJECT)))
        .await
        .expect("an owner of the project creates");
    let sync = |token: BearerToken| {
        let client = harness.client.clone();
        async move {
            let request = pb::SyncSourceRequest {
                project: PROJECT.into(),
                slug: "repo".into(),
            };
            client.sync_source(&token, request).await.map(drop)
        }
    };
    assert!(matches!(
        sync(token("owner", Some("other"))).await,
        Err(SyncError::PermissionDenied(_))
    ));
    let list = |token: BearerToken, project: &str| {
        let sources = harness.client.sources.clone();
        let project = project.to_owned();
        async move {
            sources
                .list_sources(
                    &token,
                    pb::ListSourcesRequest {
                        project,
                        ..Default::default()
                    },
                )
                .await
        }
    };
    assert_eq!(
        list(token("owner", Some(PROJECT)), PROJECT)
            .await
            .expect("listed")
            .sources
            .len(),
        1
    );
    assert!(
        matches!(
            list(token("owner", Some(PROJECT)), "").await,
            Err(SyncError::PermissionDenied(_))
        ),
        "every project's sources: a platform-wide token only"
    );
    assert_eq!(
        list(support::caller(), "")
            .await
            .expect("platform")
            .sources
            .len(),
        1
    );
}

#[tokio::test]
async fn search_answers_by_vector_when_an_embedder_is_configured() {
    let embedder = Arc::new(CountingEmbedder::default());
    let (harness, _repo) = synced_with_embedder(in_process(), &embedder).await;
    let answer = harness
        .client
        .search(feed::SearchChunksRequest {
            project: PROJECT.into(),
            query: "anything".into(),
            limit: 3,
        })
        .await
        .expect("search");
    assert_eq!(answer.mode(), feed::SearchMode::Vector);
    assert_eq!(answer.hits.len(), 3);
    assert!(
        answer
            .hits
            .windows(2)
            .all(|pair| pair[0].score >= pair[1].score),
        "best first"
    );
}

#[tokio::test]
async fn a_search_whose_query_is_not_embedded_in_time_stops_and_says_so() {
    let embedder = Arc::new(CountingEmbedder::default());
    let mut setup = in_process();
    setup.config.search.embed_deadline_ms = 100;
    let (harness, _repo) = synced_with_embedder(setup, &embedder).await;
    // An embedder that stops answering: before the deadline, the search waited on it
    // for as long as its HTTP timeout (a minute), holding the caller's share.
    embedder.stalled.store(true, Ordering::SeqCst);
    let search = harness.client.search(feed::SearchChunksRequest {
        project: PROJECT.into(),
        query: "anything".into(),
        limit: 3,
    });
    let answer = tokio::time::timeout(std::time::Duration::from_secs(20), search)
        .await
        .expect("the search answered, not waited on the embedder");
    assert!(
        matches!(answer, Err(SyncError::ResourceExhausted { ref message, .. }) if message.contains("100 ms")),
        "{answer:?}"
    );
}

/// A server started from `setup` with `embedder`, one repository's source synced.
async fn synced_with_embedder(
    mut setup: Setup,
    embedder: &Arc<CountingEmbedder>,
) -> (support::Harness, tempfile::TempDir) {
    setup.embedder = Some(embedder.clone());
    let harness = support::start(setup).await;
    let repo = support::repository_source(&harness.client, PROJECT).await;
    support::synced(&harness.client, PROJECT, "repo").await;
    (harness, repo)
}
