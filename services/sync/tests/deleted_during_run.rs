//! A source deleted while it syncs: the run's later batches write nothing, so a source
//! created again under the slug starts with no row (the old run's rows were inherited
//! until the new source's first sync: files of another root, under its slug).

mod support;

use std::sync::Arc;

use neuralis_bus::InProcessBus;
use neuralis_proto::sync::v1 as pb;
use support::{Setup, tree};
use tokio_stream::StreamExt;

const PROJECT: &str = "project-deleted";

#[tokio::test]
async fn a_source_deleted_during_its_run_leaves_no_row_to_the_slug_created_again() {
    let harness = support::start(Setup::with_bus(Arc::new(InProcessBus::default()))).await;
    let repo = tree::repository();
    let root = repo.path();
    for at in 0..3_000 {
        tree::write(root, &format!("docs/d{at:04}.md"), &"words ".repeat(40));
    }
    let spec = support::local_spec(PROJECT, "repo", root, "manual");
    support::create(&harness.client, spec).await;
    let request = pb::SyncSourceRequest {
        project: PROJECT.into(),
        slug: "repo".into(),
    };
    let mut stream = harness
        .client
        .sync_source(&support::caller(), request)
        .await
        .expect("started");
    // The survey's report: the run is under way, its batches not written yet.
    stream
        .next()
        .await
        .expect("a first message")
        .expect("progress");
    let delete = pb::DeleteSourceRequest {
        project: PROJECT.into(),
        slug: "repo".into(),
    };
    harness
        .client
        .delete_source(&support::caller(), delete)
        .await
        .expect("deleted");
    while stream.next().await.is_some() {} // done or refused: either way it ended
    let empty = tempfile::tempdir().expect("tempdir");
    let again = support::local_spec(PROJECT, "repo", empty.path(), "manual");
    support::create(&harness.client, again).await;
    let (_, entries) = support::entries(&harness.client, PROJECT).await;
    assert!(
        entries.is_empty(),
        "{} rows of the deleted source's run",
        entries.len()
    );
}
