//! The cases. Each takes a fresh, empty store.

use neuralis_index::{
    ChunkRow, FileRow, IndexError, IndexStore, RowWrite, ScopeKind, SourceKind, SourceRecord,
    StoredFile, SyncStatus, WriteBatch,
};
use std::sync::Arc;

pub use super::deltas::*;
pub use super::leases::*;
pub use super::pages::*;
pub use super::pruning::*;
pub use super::writes::*;

pub(crate) type Store = Arc<dyn IndexStore>;

/// A different id suffix for every source a case makes.
fn next_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

pub(crate) fn source(project: &str, slug: &str) -> SourceRecord {
    SourceRecord {
        id: format!("{project}/{slug}.{:016x}", next_id()),
        project: project.into(),
        slug: slug.into(),
        kind: SourceKind::Data,
        root: format!("/srv/{slug}"),
        machine_uri: None,
        scope: ScopeKind::Agent,
        owner: Some("agent-7".into()),
        trigger: "interval:5m".into(),
        privacy_patterns: vec!["agents/{agent}/**".into()],
        exclude_globs: Vec::new(),
        recognizes_packages: false,
        status: SyncStatus::default(),
        created_at: 1_000,
        updated_at: 1_000,
    }
}

pub(crate) fn row(project: &str, source: &str, path: &str) -> FileRow {
    FileRow {
        project: project.into(),
        source: source.into(),
        path: path.into(),
        content_hash: format!("hash:{path}"),
        size: 42,
        modified: 1_700_000_000_000,
        classification: "skill".into(),
        payload: serde_json::json!({"version": 1, "name": path, "allowed-tools": ["Read"]}),
        usable_manifest: false,
        privacy_owner: None,
        payload_version: 1,
        real_path: None,
        content_flags: Vec::new(),
    }
}

pub(crate) fn chunk(ordinal: u32, body: &str) -> ChunkRow {
    ChunkRow {
        ordinal,
        body: body.into(),
        vector: None,
    }
}

pub(crate) fn put(row: FileRow, chunks: Option<Vec<ChunkRow>>) -> RowWrite {
    RowWrite::Put { row, chunks }
}

pub(crate) fn batch(project: &str, source: &str, writes: Vec<RowWrite>) -> WriteBatch {
    WriteBatch {
        project: project.into(),
        source: source.into(),
        source_id: None,
        writes,
    }
}

pub(crate) async fn write(store: &Store, batch: WriteBatch) -> u64 {
    store.write_batch(batch).await.expect("batch commits")
}

pub async fn a_source_slug_is_unique_within_its_project(store: Store) {
    store
        .create_source(&source("p1", "repo"))
        .await
        .expect("created");
    let again = store.create_source(&source("p1", "repo")).await;
    assert!(
        matches!(again, Err(IndexError::AlreadyExists(_))),
        "{again:?}"
    );
    store
        .create_source(&source("p2", "repo"))
        .await
        .expect("same slug, other project");
}

pub async fn a_project_holds_at_most_its_sources_even_when_created_at_once(store: Store) {
    // Eight creates at once for three places: counted outside the insert, each saw room.
    let creates = (0..8).map(|n| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            store
                .create_source_within(&source("p1", &format!("s{n}")), 3)
                .await
        })
    });
    let outcomes = futures::future::join_all(creates).await;
    let (mut created, mut refused) = (0, 0);
    for outcome in outcomes {
        match outcome.expect("joined") {
            Ok(()) => created += 1,
            Err(IndexError::LimitReached(message)) => {
                assert!(message.contains("most sources"), "{message}");
                refused += 1;
            }
            Err(other) => panic!("{other:?}"),
        }
    }
    assert_eq!((created, refused), (3, 5));
    assert_eq!(
        store.list_sources(Some("p1")).await.expect("listed").len(),
        3
    );
    // Another project has places of its own; a taken slug is still a taken slug.
    store
        .create_source_within(&source("p2", "s0"), 3)
        .await
        .expect("another project");
    let taken = store.create_source_within(&source("p2", "s0"), 3).await;
    assert!(
        matches!(taken, Err(IndexError::AlreadyExists(_))),
        "{taken:?}"
    );
    // A full project is named full even for a taken slug, as `room_for` names it.
    let held = store.list_sources(Some("p1")).await.expect("listed");
    let again = source("p1", &held[0].slug);
    let full = store.create_source_within(&again, 3).await;
    assert!(matches!(full, Err(IndexError::LimitReached(_))), "{full:?}");
    let pre_check = neuralis_index::room_for(&held, &again, 3);
    assert!(
        matches!(pre_check, Err(IndexError::LimitReached(_))),
        "{pre_check:?}"
    );
}

pub async fn a_source_keeps_its_id_and_ids_are_never_shared(store: Store) {
    let first = source("p1", "repo");
    store.create_source(&first).await.expect("created");
    let mut changed = first.clone();
    changed.id = "p1/repo.ffffffffffffffff".into();
    changed.root = "/srv/elsewhere".into();
    store.update_source(&changed).await.expect("updated");
    let stored = store.get_source("p1", "repo").await.expect("read");
    assert_eq!(
        stored.map(|s| s.id),
        Some(first.id.clone()),
        "an update keeps the id"
    );
    let mut same_id = source("p1", "other");
    same_id.id = first.id.clone();
    let taken = store.create_source(&same_id).await;
    assert!(
        matches!(taken, Err(IndexError::AlreadyExists(_))),
        "{taken:?}"
    );
    store.delete_source("p1", "repo").await.expect("deleted");
    let again = source("p1", "repo");
    store.create_source(&again).await.expect("created again");
    let stored = store.get_source("p1", "repo").await.expect("read");
    assert_eq!(stored.map(|s| s.id), Some(again.id));
}

pub async fn sources_round_trip_and_list_in_order(store: Store) {
    let mut machine = source("p1", "sandbox");
    machine.kind = SourceKind::Machine;
    machine.machine_uri = Some("machine://m-1/work".into());
    machine.scope = ScopeKind::Project;
    machine.owner = None;
    for record in [source("p1", "zeta"), machine.clone(), source("p0", "alpha")] {
        store.create_source(&record).await.expect("created");
    }
    assert_eq!(
        store.get_source("p1", "sandbox").await.expect("read"),
        Some(machine)
    );
    assert_eq!(store.get_source("p1", "missing").await.expect("read"), None);
    let in_p1: Vec<String> = store
        .list_sources(Some("p1"))
        .await
        .expect("list")
        .into_iter()
        .map(|s| s.slug)
        .collect();
    assert_eq!(in_p1, ["sandbox", "zeta"]);
    // A project's list reads every field as a single read does (the embedded store
    // reads the list on its own connections, not through the pool).
    let mut zeta = source("p1", "zeta");
    zeta.privacy_patterns = vec!["agents/{agent}/**".into(), "private/**".into()];
    zeta.exclude_globs = vec!["target/**".into()];
    zeta.recognizes_packages = true;
    store.update_source(&zeta).await.expect("updated");
    let listed = store.list_sources(Some("p1")).await.expect("list");
    let read = [
        store.get_source("p1", "sandbox").await.expect("read"),
        store.get_source("p1", "zeta").await.expect("read"),
    ];
    assert_eq!(listed, read.into_iter().flatten().collect::<Vec<_>>());
    assert_eq!(listed[1].privacy_patterns, zeta.privacy_patterns);
    assert!(listed[1].recognizes_packages);
    let all: Vec<(String, String)> = store
        .list_sources(None)
        .await
        .expect("list")
        .into_iter()
        .map(|s| (s.project, s.slug))
        .collect();
    assert_eq!(
        all,
        [
            ("p0".into(), "alpha".into()),
            ("p1".into(), "sandbox".into()),
            ("p1".into(), "zeta".into())
        ]
    );
}

pub async fn updating_or_deleting_a_missing_source_is_not_found(store: Store) {
    let update = store.update_source(&source("p1", "ghost")).await;
    assert!(matches!(update, Err(IndexError::NotFound(_))), "{update:?}");
    let delete = store.delete_source("p1", "ghost").await;
    assert!(matches!(delete, Err(IndexError::NotFound(_))), "{delete:?}");
    let status = store
        .record_status("p1", "ghost", "p1/ghost.0", &SyncStatus::default())
        .await;
    assert!(matches!(status, Err(IndexError::NotFound(_))), "{status:?}");
}

pub async fn a_new_source_has_never_synced_and_keeps_its_recorded_status(store: Store) {
    let created = source("p1", "repo");
    store.create_source(&created).await.expect("created");
    let fresh = store
        .get_source("p1", "repo")
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(fresh.status.last_synced_at, None);
    let status = SyncStatus {
        last_synced_at: Some(5),
        last_revision: 3,
        files_seen: 10,
        files_indexed: 4,
        files_skipped: 2,
        bytes_read: 900,
        last_error: Some("symlink loop at a/b".into()),
    };
    store
        .record_status("p1", "repo", &created.id, &status)
        .await
        .expect("recorded");
    let mut changed = source("p1", "repo");
    changed.trigger = "auto".into();
    store.update_source(&changed).await.expect("updated");
    let read = store
        .get_source("p1", "repo")
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(read.status, status, "an update keeps the status");
    assert_eq!(read.trigger, "auto");
}

pub async fn the_revision_starts_at_zero_and_rises_with_every_committed_batch(store: Store) {
    assert_eq!(store.revision("p1").await.expect("read"), 0);
    let first = write(
        &store,
        batch("p1", "s", vec![put(row("p1", "s", "a.md"), None)]),
    )
    .await;
    let second = write(
        &store,
        batch(
            "p1",
            "s",
            vec![RowWrite::Delete {
                path: "a.md".into(),
            }],
        ),
    )
    .await;
    let empty = write(&store, batch("p1", "s", vec![])).await;
    assert_eq!((first, second, empty), (1, 2, 3));
    assert_eq!(store.revision("p1").await.expect("read"), 3);
}

pub async fn projects_have_separate_revisions(store: Store) {
    write(
        &store,
        batch("p1", "s", vec![put(row("p1", "s", "a.md"), None)]),
    )
    .await;
    write(
        &store,
        batch("p1", "s", vec![put(row("p1", "s", "b.md"), None)]),
    )
    .await;
    assert_eq!(
        write(
            &store,
            batch("p2", "s", vec![put(row("p2", "s", "a.md"), None)])
        )
        .await,
        1
    );
    assert_eq!(store.revision("p1").await.expect("read"), 2);
}

pub async fn rows_round_trip_every_column(store: Store) {
    let mut private = row("p1", "s", "agents/a1/notes.md");
    private.privacy_owner = Some("a1".into());
    private.usable_manifest = true;
    private.size = u64::try_from(i64::MAX).expect("fits");
    private.payload_version = 7;
    private.classification = "manifest:package.json".into();
    private.real_path = Some("agents/a1/real/notes.md".into());
    private.content_flags = vec!["hidden-unicode".into(), "piped-remote-execution".into()];
    let plain = row("p1", "s", "skills/x/SKILL.md");
    write(
        &store,
        batch(
            "p1",
            "s",
            vec![put(private.clone(), None), put(plain.clone(), None)],
        ),
    )
    .await;
    assert_eq!(
        store
            .file_row("p1", "s", &private.path)
            .await
            .expect("read"),
        Some(private.clone())
    );
    assert_eq!(
        store.source_rows("p1", "s").await.expect("read"),
        [private, plain]
    );
    assert_eq!(store.file_row("p1", "s", "nope").await.expect("read"), None);
}

pub async fn a_put_without_chunks_keeps_the_chunks(store: Store) {
    let original = row("p1", "s", "docs/guide.md");
    write(
        &store,
        batch(
            "p1",
            "s",
            vec![put(
                original.clone(),
                Some(vec![chunk(0, "kubernetes rollout")]),
            )],
        ),
    )
    .await;
    let mut refreshed = original;
    refreshed.payload = serde_json::json!({"version": 2, "title": "Guide"});
    refreshed.payload_version = 2;
    write(&store, batch("p1", "s", vec![put(refreshed.clone(), None)])).await;
    let hits = store
        .search_text("p1", "rollout", 10)
        .await
        .expect("search");
    assert_eq!(hits.len(), 1);
    assert_eq!(
        store
            .file_row("p1", "s", "docs/guide.md")
            .await
            .expect("read"),
        Some(refreshed)
    );
}

/// A path rewritten among new paths on both sides of it (a batch whose other paths have
/// no chunks yet) still loses its old chunks; another source's chunks in the same range
/// of paths stay.
pub async fn new_chunks_replace_the_old_ones_of_a_path_among_new_paths(store: Store) {
    let middle = row("p1", "s", "m.md");
    let elsewhere = row("p1", "other", "n.md");
    write(
        &store,
        batch(
            "p1",
            "s",
            vec![put(middle.clone(), Some(vec![chunk(0, "stale words")]))],
        ),
    )
    .await;
    write(
        &store,
        batch(
            "p1",
            "other",
            vec![put(elsewhere, Some(vec![chunk(0, "kept words")]))],
        ),
    )
    .await;
    let writes = vec![
        put(row("p1", "s", "a.md"), Some(vec![chunk(0, "fresh one")])),
        put(middle, Some(vec![chunk(0, "fresh two")])),
        put(row("p1", "s", "z.md"), Some(vec![chunk(0, "fresh three")])),
    ];
    write(&store, batch("p1", "s", writes)).await;
    let stale = store.search_text("p1", "stale", 10).await.expect("search");
    assert!(stale.is_empty(), "{stale:?}");
    let fresh = store.search_text("p1", "fresh", 10).await.expect("search");
    let mut paths: Vec<&str> = fresh.iter().map(|hit| hit.path.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["a.md", "m.md", "z.md"]);
    let kept = store.search_text("p1", "kept", 10).await.expect("search");
    assert_eq!(kept.len(), 1);
}

pub async fn deleting_a_row_deletes_its_chunks(store: Store) {
    let doc = row("p1", "s", "notes.md");
    write(
        &store,
        batch(
            "p1",
            "s",
            vec![put(
                doc,
                Some(vec![chunk(0, "alpha"), chunk(1, "alpha beta")]),
            )],
        ),
    )
    .await;
    write(
        &store,
        batch(
            "p1",
            "s",
            vec![RowWrite::Delete {
                path: "notes.md".into(),
            }],
        ),
    )
    .await;
    assert!(
        store
            .search_text("p1", "alpha", 10)
            .await
            .expect("search")
            .is_empty()
    );
    assert_eq!(
        store.file_row("p1", "s", "notes.md").await.expect("read"),
        None
    );
}

pub async fn a_failed_batch_leaves_the_index_as_it_was(store: Store) {
    let kept = row("p1", "s", "kept.md");
    write(
        &store,
        batch(
            "p1",
            "s",
            vec![put(kept.clone(), Some(vec![chunk(0, "original")]))],
        ),
    )
    .await;
    let foreign = row("p1", "other-source", "intruder.md");
    let doomed = batch(
        "p1",
        "s",
        vec![
            RowWrite::Delete {
                path: "kept.md".into(),
            },
            put(row("p1", "s", "new.md"), Some(vec![chunk(0, "fresh")])),
            put(foreign, None),
        ],
    );
    let failed = store.write_batch(doomed).await;
    assert!(
        matches!(
            failed,
            Err(IndexError::InvalidValue {
                field: "row.source",
                ..
            })
        ),
        "{failed:?}"
    );
    assert_eq!(store.revision("p1").await.expect("read"), 1);
    assert_eq!(store.source_rows("p1", "s").await.expect("read"), [kept]);
    assert_eq!(
        store
            .search_text("p1", "original", 10)
            .await
            .expect("search")
            .len(),
        1
    );
    assert!(
        store
            .search_text("p1", "fresh", 10)
            .await
            .expect("search")
            .is_empty()
    );
}

pub async fn a_batch_naming_a_path_twice_is_refused(store: Store) {
    let twice = batch(
        "p1",
        "s",
        vec![
            put(row("p1", "s", "a.md"), None),
            RowWrite::Delete {
                path: "a.md".into(),
            },
        ],
    );
    let refused = store.write_batch(twice).await;
    assert!(
        matches!(
            refused,
            Err(IndexError::InvalidValue {
                field: "batch.writes",
                ..
            })
        ),
        "{refused:?}"
    );
    assert_eq!(store.revision("p1").await.expect("read"), 0);
}

pub async fn a_large_batch_commits_whole(store: Store) {
    let writes = (0..1_200)
        .map(|n| {
            put(
                row("p1", "s", &format!("f{n:04}.md")),
                Some(vec![chunk(0, "alpha"), chunk(1, &format!("word{n}"))]),
            )
        })
        .collect();
    assert_eq!(write(&store, batch("p1", "s", writes)).await, 1);
    assert_eq!(
        store.source_rows("p1", "s").await.expect("read").len(),
        1_200
    );
    assert_eq!(
        store
            .search_text("p1", "word1199", 10)
            .await
            .expect("search")
            .len(),
        1
    );
    let deletes = (0..1_200)
        .map(|n| RowWrite::Delete {
            path: format!("f{n:04}.md"),
        })
        .collect();
    assert_eq!(write(&store, batch("p1", "s", deletes)).await, 2);
    assert!(
        store
            .search_text("p1", "alpha", 10)
            .await
            .expect("search")
            .is_empty()
    );
}

pub async fn a_project_snapshot_carries_the_revision_it_was_read_at(store: Store) {
    write(
        &store,
        batch("p1", "b", vec![put(row("p1", "b", "z.md"), None)]),
    )
    .await;
    write(
        &store,
        batch(
            "p1",
            "a",
            vec![
                put(row("p1", "a", "y.md"), None),
                put(row("p1", "a", "x.md"), None),
            ],
        ),
    )
    .await;
    let snapshot = store.project_rows("p1").await.expect("read");
    assert_eq!(snapshot.revision, 2);
    let order: Vec<(&str, &str)> = snapshot
        .rows
        .iter()
        .map(|r| (r.source.as_str(), r.path.as_str()))
        .collect();
    assert_eq!(order, [("a", "x.md"), ("a", "y.md"), ("b", "z.md")]);
    assert_eq!(store.project_rows("empty").await.expect("read").revision, 0);
}

pub async fn deleting_a_source_deletes_its_rows_and_raises_the_revision(store: Store) {
    store
        .create_source(&source("p1", "repo"))
        .await
        .expect("created");
    store
        .create_source(&source("p1", "idle"))
        .await
        .expect("created");
    write(
        &store,
        batch(
            "p1",
            "repo",
            vec![put(
                row("p1", "repo", "a.md"),
                Some(vec![chunk(0, "gamma")]),
            )],
        ),
    )
    .await;
    assert_eq!(
        store.delete_source("p1", "repo").await.expect("deleted"),
        Some(2)
    );
    assert_eq!(
        store.delete_source("p1", "idle").await.expect("deleted"),
        None
    );
    assert!(
        store
            .source_rows("p1", "repo")
            .await
            .expect("read")
            .is_empty()
    );
    assert!(
        store
            .search_text("p1", "gamma", 10)
            .await
            .expect("search")
            .is_empty()
    );
    assert_eq!(store.get_source("p1", "repo").await.expect("read"), None);
}

pub async fn text_search_finds_words_within_the_project_only(store: Store) {
    write(
        &store,
        batch(
            "p1",
            "s",
            vec![put(
                row("p1", "s", "deploy.md"),
                Some(vec![
                    chunk(0, "How to deploy the service"),
                    chunk(1, "Rollback steps"),
                ]),
            )],
        ),
    )
    .await;
    write(
        &store,
        batch(
            "p2",
            "s",
            vec![put(
                row("p2", "s", "deploy.md"),
                Some(vec![chunk(0, "deploy elsewhere")]),
            )],
        ),
    )
    .await;
    let hits = store.search_text("p1", "Deploy", 10).await.expect("search");
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].path.as_str(), hits[0].ordinal), ("deploy.md", 0));
    assert!(
        store
            .search_text("p1", "deploy kubernetes", 10)
            .await
            .expect("search")
            .is_empty()
    );
    assert!(
        store
            .search_text("p1", "deploy", 0)
            .await
            .expect("search")
            .is_empty()
    );
}

pub async fn text_search_never_fails_on_query_syntax(store: Store) {
    write(
        &store,
        batch(
            "p1",
            "s",
            vec![put(
                row("p1", "s", "a.md"),
                Some(vec![chunk(0, "NOT a drill")]),
            )],
        ),
    )
    .await;
    for query in [
        "\"",
        "NOT",
        "a OR",
        "*",
        "(x",
        "-",
        "",
        "'; DROP TABLE index_files; --",
        "col:x",
    ] {
        store
            .search_text("p1", query, 5)
            .await
            .unwrap_or_else(|err| panic!("{query:?}: {err}"));
    }
}

pub async fn text_search_refuses_a_query_past_its_bounds_naming_the_query(store: Store) {
    for query in [
        "word ".repeat(50_000),
        "x".repeat(3_500_000),
        "(a+)+$".repeat(2_000),
    ] {
        match store.search_text("p1", &query, 5).await {
            Err(IndexError::InvalidValue { field, .. }) => assert_eq!(field, "query"),
            other => panic!("{}: {other:?}", query.len()),
        }
    }
}

pub async fn text_search_reads_operators_as_words(store: Store) {
    write(
        &store,
        batch(
            "p1",
            "s",
            vec![
                put(row("p1", "s", "a.md"), Some(vec![chunk(0, "NOT a drill")])),
                put(row("p1", "s", "b.md"), Some(vec![chunk(0, "deploy now")])),
            ],
        ),
    )
    .await;
    let paths = |hits: Vec<neuralis_index::ChunkHit>| {
        hits.into_iter().map(|hit| hit.path).collect::<Vec<_>>()
    };
    let not = store.search_text("p1", "NOT drill", 5).await.expect("NOT");
    assert_eq!(paths(not), ["a.md"]);
    // As an operator OR would widen the match to b.md.
    let or = store
        .search_text("p1", "deploy OR drill", 5)
        .await
        .expect("OR");
    assert!(or.is_empty());
}

pub async fn vector_search_ranks_by_cosine(store: Store) {
    let with_vector = |ordinal, body: &str, vector: Vec<f32>| ChunkRow {
        ordinal,
        body: body.into(),
        vector: Some(vector),
    };
    write(
        &store,
        batch(
            "p1",
            "s",
            vec![put(
                row("p1", "s", "a.md"),
                Some(vec![
                    with_vector(0, "east", vec![1.0, 0.0]),
                    with_vector(1, "north", vec![0.0, 1.0]),
                    with_vector(2, "north-east", vec![1.0, 1.0]),
                    chunk(3, "no vector"),
                ]),
            )],
        ),
    )
    .await;
    let hits = store
        .search_vector("p1", &[0.9, 0.1], 2)
        .await
        .expect("search");
    let bodies: Vec<&str> = hits.iter().map(|hit| hit.body.as_str()).collect();
    assert_eq!(bodies, ["east", "north-east"]);
}

pub async fn vector_search_breaks_ties_by_source_path_and_ordinal(store: Store) {
    let same = |ordinal, body: &str| ChunkRow {
        ordinal,
        body: body.into(),
        vector: Some(vec![1.0, 1.0]),
    };
    // Written in the reverse of the order the answer gives.
    for (source, path) in [("t", "a.md"), ("s", "b.md"), ("s", "a.md")] {
        let chunks = vec![
            same(1, &format!("{source}/{path}#1")),
            same(0, &format!("{source}/{path}#0")),
        ];
        write(
            &store,
            batch(
                "p1",
                source,
                vec![put(row("p1", source, path), Some(chunks))],
            ),
        )
        .await;
    }
    let bodies = |hits: Vec<neuralis_index::ChunkHit>| -> Vec<String> {
        hits.into_iter().map(|hit| hit.body).collect()
    };
    let hits = store
        .search_vector("p1", &[2.0, 2.0], 4)
        .await
        .expect("search");
    assert_eq!(
        bodies(hits),
        ["s/a.md#0", "s/a.md#1", "s/b.md#0", "s/b.md#1"]
    );
    let none = store
        .search_vector("p1", &[2.0, 2.0], 0)
        .await
        .expect("search");
    assert!(none.is_empty());
}

pub async fn concurrent_batches_each_raise_the_revision_once(store: Store) {
    let writers = (0..8).map(|n| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            let path = format!("f{n}.md");
            store
                .write_batch(batch("p1", "s", vec![put(row("p1", "s", &path), None)]))
                .await
        })
    });
    let mut revisions = Vec::new();
    for writer in writers {
        revisions.push(writer.await.expect("joined").expect("committed"));
    }
    revisions.sort_unstable();
    assert_eq!(revisions, (1..=8).collect::<Vec<u64>>());
    assert_eq!(store.source_rows("p1", "s").await.expect("read").len(), 8);
}

pub async fn visiting_a_source_yields_each_row_in_its_comparison_form(store: Store) {
    let mut plain = row("p1", "s", "src/main.rs");
    plain.classification = neuralis_index::PLAIN_FILE.into();
    plain.payload = serde_json::json!({"version": 1});
    let mut private = row("p1", "s", "agents/a1/x.md");
    private.privacy_owner = Some("a1".into());
    private.real_path = Some("agents/a1/y.md".into());
    let skill = row("p1", "s", "skills/x/SKILL.md");
    let rows = [plain.clone(), private.clone(), skill.clone()];
    let writes = rows.iter().map(|r| put(r.clone(), None)).collect();
    write(&store, batch("p1", "s", writes)).await;
    write(
        &store,
        batch("p1", "other", vec![put(row("p1", "other", "a.md"), None)]),
    )
    .await;
    write(
        &store,
        batch("p2", "s", vec![put(row("p2", "s", "b.md"), None)]),
    )
    .await;

    let mut seen = Vec::new();
    store
        .visit_source_files("p1", "s", &mut |file| seen.push(file))
        .await
        .expect("visited");
    seen.sort_by(|a, b| a.path.cmp(&b.path));
    let mut expected: Vec<StoredFile> = rows.into_iter().map(StoredFile::of).collect();
    expected.sort_by(|a, b| a.path.cmp(&b.path));
    assert_eq!(seen, expected);
    let plain_seen = seen.iter().find(|f| f.path == plain.path).expect("plain");
    assert_eq!(
        plain_seen.payload, None,
        "a plain file's payload is not read"
    );
}

/// Quotes, backslashes, newlines and characters beyond the Basic Multilingual Plane
/// survive every statement shape (placeholders on one backend, JSON records on the other).
pub async fn unusual_text_round_trips_through_a_batch(store: Store) {
    let path = "docs/it's \"quoted\" \\ back\nslash 😀.md";
    let mut odd = row("p1", "s", path);
    odd.payload = serde_json::json!({"title": "a \"b\" \\ c\n😀", "n": [1, 2]});
    odd.privacy_owner = Some("agent 'x'".into());
    let body = "line \"one\"\n\\two\t😀 zebra";
    write(
        &store,
        batch(
            "p1",
            "s",
            vec![put(odd.clone(), Some(vec![chunk(0, body)]))],
        ),
    )
    .await;
    assert_eq!(
        store.file_row("p1", "s", path).await.expect("read"),
        Some(odd)
    );
    let hits = store.search_text("p1", "zebra", 5).await.expect("search");
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].path.as_str(), hits[0].body.as_str()), (path, body));
    write(
        &store,
        batch("p1", "s", vec![RowWrite::Delete { path: path.into() }]),
    )
    .await;
    assert_eq!(store.file_row("p1", "s", path).await.expect("read"), None);
    assert!(
        store
            .search_text("p1", "zebra", 5)
            .await
            .expect("search")
            .is_empty()
    );
}

/// Rows stream in pages: every row of a source several pages long is visited once.
pub async fn visiting_a_large_source_yields_every_row_once(store: Store) {
    let paths: Vec<String> = (0..11_000).map(|n| format!("d{}/f{n}.rs", n % 7)).collect();
    for chunk in paths.chunks(2_000) {
        let writes = chunk.iter().map(|p| put(row("p1", "s", p), None)).collect();
        write(&store, batch("p1", "s", writes)).await;
    }
    let mut seen = Vec::new();
    store
        .visit_source_files("p1", "s", &mut |file| seen.push(file.path))
        .await
        .expect("visited");
    seen.sort();
    let mut expected = paths;
    expected.sort();
    assert_eq!(seen, expected);
}
