//! Sources that cannot leak the server, over gRPC: ids never reused, deletes that
//! forget access state first, refused roots, and real paths of symlinked files.

mod support;

use neuralis_bus::InProcessBus;
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::{IndexFeedApi, SourceApi, SyncError};
use std::sync::Arc;
use support::{Harness, Setup, caller, create, entries, local_spec, synced, tree};

const PROJECT: &str = "project-guard";

fn in_process() -> Setup {
    Setup::with_bus(Arc::new(InProcessBus::default()))
}

fn is_source_id(id: &str, slug: &str) -> bool {
    let prefix = format!("{PROJECT}/{slug}.");
    id.strip_prefix(&prefix).is_some_and(|hex| {
        hex.len() == 16
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

async fn delete(harness: &Harness, slug: &str) -> Result<pb::DeleteSourceResponse, SyncError> {
    let request = pb::DeleteSourceRequest {
        project: PROJECT.into(),
        slug: slug.into(),
    };
    harness.client.delete_source(&caller(), request).await
}

async fn create_at(harness: &Harness, root: &str) -> Result<pb::CreateSourceResponse, SyncError> {
    let spec = pb::SourceSpec {
        root: root.into(),
        ..local_spec(PROJECT, "guarded", std::path::Path::new("/x"), "manual")
    };
    let request = pb::CreateSourceRequest { source: Some(spec) };
    harness.client.create_source(&caller(), request).await
}

#[tokio::test]
async fn a_recreated_source_gets_a_new_id_and_every_call_shows_it() {
    let harness = support::start(in_process()).await;
    let repo = tree::repository();
    let first = create(
        &harness.client,
        local_spec(PROJECT, "repo", repo.path(), ""),
    )
    .await;
    assert!(is_source_id(&first, "repo"), "{first}");
    let got = harness
        .client
        .get_source(pb::GetSourceRequest {
            project: PROJECT.into(),
            slug: "repo".into(),
        })
        .await
        .expect("get");
    assert_eq!(got.source.map(|s| s.id), Some(first.clone()));
    let fed = harness
        .client
        .feed
        .list_project_sources(
            &support::client::service(),
            feed::ListProjectSourcesRequest {
                project: PROJECT.into(),
            },
        )
        .await
        .expect("feed");
    let fed: Vec<String> = fed.sources.into_iter().map(|s| s.id).collect();
    assert_eq!(fed, std::slice::from_ref(&first));

    delete(&harness, "repo").await.expect("deleted");
    let second = create(
        &harness.client,
        local_spec(PROJECT, "repo", repo.path(), ""),
    )
    .await;
    assert!(is_source_id(&second, "repo"), "{second}");
    assert_ne!(first, second, "a recreated source never meets its old id");
    assert_eq!(harness.forgetter.forgotten(), [first]);
}

#[tokio::test]
async fn a_delete_forgets_access_state_first_and_deletes_nothing_when_policy_is_down() {
    let harness = support::start(in_process()).await;
    let repo = tree::repository();
    let id = create(
        &harness.client,
        local_spec(PROJECT, "repo", repo.path(), ""),
    )
    .await;
    synced(&harness.client, PROJECT, "repo").await;
    let (_, rows) = entries(&harness.client, PROJECT).await;
    assert!(!rows.is_empty());

    harness.forgetter.set_unreachable(true);
    let refused = delete(&harness, "repo").await;
    assert!(
        matches!(refused, Err(SyncError::Unavailable(_))),
        "{refused:?}"
    );
    let (_, kept) = entries(&harness.client, PROJECT).await;
    assert_eq!(kept, rows, "nothing was deleted");
    assert!(harness.forgetter.forgotten().is_empty());

    harness.forgetter.set_unreachable(false);
    delete(&harness, "repo").await.expect("deleted");
    assert_eq!(harness.forgetter.forgotten(), [id]);
    let (_, left) = entries(&harness.client, PROJECT).await;
    assert!(left.is_empty());
}

#[tokio::test]
async fn roots_that_could_serve_what_the_server_keeps_are_refused() {
    let server = tempfile::tempdir().expect("tempdir");
    let data = server.path().join("data");
    std::fs::create_dir_all(data.join("keys")).expect("mkdir");
    let harness = support::start(Setup {
        kept_dirs: vec![data.clone()],
        ..in_process()
    })
    .await;
    let data_text = data.display().to_string();
    let refused = [
        "/".to_owned(),
        "/etc".to_owned(),
        "/etc/x".to_owned(),
        data_text.clone(),
        format!("{data_text}/keys"),
        server.path().display().to_string(),
        format!("{data_text}/../data"),
    ];
    for root in &refused {
        let outcome = create_at(&harness, root).await;
        match outcome {
            Err(SyncError::InvalidArgument { field, message }) => {
                assert_eq!(field, "source.root", "{root}");
                assert!(!message.contains(&data_text), "{root}: {message}");
            }
            other => panic!("{root}: {other:?}"),
        }
    }
    let elsewhere = tempfile::tempdir().expect("tempdir");
    create_at(&harness, &elsewhere.path().display().to_string())
        .await
        .expect("a root away from the server is accepted");
    let spec = pb::SourceSpec {
        root: data_text,
        ..local_spec(PROJECT, "guarded", elsewhere.path(), "manual")
    };
    let moved = harness
        .client
        .sources
        .update_source(&caller(), pb::UpdateSourceRequest { source: Some(spec) })
        .await;
    assert!(
        matches!(moved, Err(SyncError::InvalidArgument { ref field, .. }) if field == "source.root"),
        "{moved:?}"
    );
}

#[tokio::test]
async fn split_mode_accepts_roots_only_under_allowed_roots() {
    let harness = support::start(Setup {
        require_allowed_roots: true,
        ..in_process()
    })
    .await;
    let repo = tree::repository();
    let refused = create_at(&harness, &repo.path().display().to_string()).await;
    assert!(
        matches!(refused, Err(SyncError::InvalidArgument { ref message, .. }) if message.contains("sync.allowed_roots")),
        "{refused:?}"
    );

    let base = tempfile::tempdir().expect("tempdir");
    let mut setup = Setup {
        require_allowed_roots: true,
        ..in_process()
    };
    setup.config.allowed_roots = vec![base.path().to_owned()];
    let bounded = support::start(setup).await;
    std::fs::create_dir_all(base.path().join("team/repo")).expect("mkdir");
    create_at(
        &bounded,
        &base.path().join("team/repo").display().to_string(),
    )
    .await
    .expect("under an allowed base");
    let outside = create_at(&bounded, &repo.path().display().to_string()).await;
    assert!(
        matches!(outside, Err(SyncError::InvalidArgument { ref field, .. }) if field == "source.root"),
        "{outside:?}"
    );
}

#[tokio::test]
async fn a_file_reached_through_an_in_root_symlink_is_fed_with_its_real_path() {
    let harness = support::start(in_process()).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    tree::write(
        root,
        "agents/alice/rules/secret.md",
        "# Secret\nalice only\n",
    );
    tree::write(root, "shared/rules/public.md", "# Public\n");
    std::os::unix::fs::symlink(
        "../../agents/alice/rules/secret.md",
        root.join("shared/rules/leak.md"),
    )
    .expect("link");
    let spec = pb::SourceSpec {
        kind: pb::SourceKind::Data as i32,
        ..local_spec(PROJECT, "data", root, "")
    };
    create(&harness.client, spec).await;
    synced(&harness.client, PROJECT, "data").await;
    let (_, rows) = entries(&harness.client, PROJECT).await;
    let real_paths: Vec<(&str, &str)> = rows
        .iter()
        .map(|row| (row.path.as_str(), row.real_path.as_str()))
        .collect();
    assert_eq!(
        real_paths,
        [
            ("agents/alice/rules/secret.md", ""),
            ("shared/rules/leak.md", "agents/alice/rules/secret.md"),
            ("shared/rules/public.md", ""),
        ]
    );

    // The link moves to another file: the next sync records the new real path.
    std::fs::remove_file(root.join("shared/rules/leak.md")).expect("unlink");
    std::os::unix::fs::symlink("public.md", root.join("shared/rules/leak.md")).expect("link");
    synced(&harness.client, PROJECT, "data").await;
    let (_, rows) = entries(&harness.client, PROJECT).await;
    let leak = rows
        .iter()
        .find(|row| row.path == "shared/rules/leak.md")
        .expect("the link");
    assert_eq!(leak.real_path, "shared/rules/public.md");
}
