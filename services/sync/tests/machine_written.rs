//! Seed 002, "machineWritten": "a new project's data source leaves the metrics files out
//! of its index from the start ... The seed is written once, when the project's data
//! source is created; an existing project's source settings are never rewritten, and
//! its owner can edit the list at any time."

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_bus::InProcessBus;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::SourceApi;
use std::sync::Arc;
use support::{Setup, caller, entries, local_spec, synced, tree};

const PROJECT: &str = "project-written";
const METRICS: &str = "acme/*/usage/events.jsonl";

fn seeded() -> Setup {
    Setup {
        data_excludes: vec![METRICS.to_owned()],
        ..Setup::with_bus(Arc::new(InProcessBus::default()))
    }
}

fn data_spec(slug: &str, root: &std::path::Path) -> pb::SourceSpec {
    pb::SourceSpec {
        kind: pb::SourceKind::Data as i32,
        ..local_spec(PROJECT, slug, root, "")
    }
}

#[tokio::test]
async fn a_new_data_source_leaves_the_metrics_files_out_of_its_index_from_the_start() {
    let harness = support::start(seeded()).await;
    let dir = tempfile::tempdir().unwrap();
    tree::write(dir.path(), "acme/a1/usage/events.jsonl", "{\"n\": 1}\n");
    tree::write(
        dir.path(),
        "acme/a1/runs/run.md",
        "# A run people search for\n",
    );
    let created = harness
        .client
        .sources
        .create_source(
            &caller(),
            pb::CreateSourceRequest {
                source: Some(data_spec("data", dir.path())),
            },
        )
        .await
        .unwrap();
    let spec = created.source.unwrap().spec.unwrap();
    assert_eq!(spec.exclude_globs, [METRICS], "seeded at create");
    synced(&harness.client, PROJECT, "data").await;
    let (_, rows) = entries(&harness.client, PROJECT).await;
    let paths: Vec<&str> = rows.iter().map(|row| row.path.as_str()).collect();
    assert_eq!(
        paths,
        ["acme/a1/runs/run.md"],
        "runtime text stays searchable"
    );

    // The owner's edit stands, and nothing re-seeds it: the file is indexed again.
    let edited = pb::SourceSpec {
        exclude_globs: vec![],
        ..spec
    };
    harness
        .client
        .sources
        .update_source(
            &caller(),
            pb::UpdateSourceRequest {
                source: Some(edited),
            },
        )
        .await
        .unwrap();
    synced(&harness.client, PROJECT, "data").await;
    let (_, rows) = entries(&harness.client, PROJECT).await;
    assert_eq!(rows.len(), 2);
}

#[tokio::test]
async fn only_a_data_source_created_without_excludes_is_seeded() {
    let harness = support::start(seeded()).await;
    let dir = tempfile::tempdir().unwrap();
    let create = |spec: pb::SourceSpec| {
        let client = &harness.client;
        async move {
            client
                .sources
                .create_source(&caller(), pb::CreateSourceRequest { source: Some(spec) })
                .await
                .unwrap()
                .source
                .unwrap()
                .spec
                .unwrap()
                .exclude_globs
        }
    };
    let local = create(local_spec(PROJECT, "repo", dir.path(), "")).await;
    assert!(local.is_empty(), "a repository is not the data tree");
    let own = pb::SourceSpec {
        exclude_globs: vec!["tmp/**".into()],
        ..data_spec("data", dir.path())
    };
    assert_eq!(create(own).await, ["tmp/**"], "the creator's list is kept");
}

/// Seed 000: "a local source flagged recognizesPackages: true ALSO becomes a runtime-WASM
/// package source": the flag is a local source's setting, stored and shown; another kind
/// is refused naming the field.
#[tokio::test]
async fn recognizes_packages_is_a_local_source_setting() {
    let harness = support::start(seeded()).await;
    let dir = tempfile::tempdir().unwrap();
    let flagged = |spec: pb::SourceSpec| pb::SourceSpec {
        recognizes_packages: true,
        ..spec
    };
    let created = harness
        .client
        .sources
        .create_source(
            &caller(),
            pb::CreateSourceRequest {
                source: Some(flagged(local_spec(PROJECT, "pkgs", dir.path(), ""))),
            },
        )
        .await
        .unwrap();
    assert!(created.source.unwrap().spec.unwrap().recognizes_packages);
    let listed = harness
        .client
        .sources
        .list_sources(
            &caller(),
            pb::ListSourcesRequest {
                project: PROJECT.into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(
        listed.sources[0].spec.as_ref().unwrap().recognizes_packages,
        "stored"
    );
    let refused = harness
        .client
        .sources
        .create_source(
            &caller(),
            pb::CreateSourceRequest {
                source: Some(flagged(data_spec("data", dir.path()))),
            },
        )
        .await;
    assert!(
        matches!(refused, Err(neuralis_sync::SyncError::InvalidArgument { ref field, .. }) if field == "source.recognizes_packages"),
        "{refused:?}"
    );
}
