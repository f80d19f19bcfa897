//! Tombstone pruning at the end of a sync run (docs/decisions/sync.md, "Tombstone
//! pruning"): a run that wrote prunes the project's tombstones older than the
//! retention, so a reader holding a revision from before them re-reads in full.

mod support;

use neuralis_bus::InProcessBus;
use neuralis_index::{IndexStore, Removed};
use std::sync::Arc;
use support::{Setup, tree};

const PROJECT: &str = "project-tombstones";

#[tokio::test]
async fn a_run_that_writes_prunes_tombstones_beyond_the_retention() {
    let mut setup = Setup::with_bus(Arc::new(InProcessBus::default()));
    setup.config.tombstone_retention_revisions = 1;
    let harness = support::start(setup).await;
    let repo = tree::repository();
    for name in ["a.txt", "b.txt", "c.txt"] {
        tree::write(repo.path(), name, name);
    }
    support::create(
        &harness.client,
        support::local_spec(PROJECT, "repo", repo.path(), "manual"),
    )
    .await;
    let store = &harness.store;
    let sync = || support::synced(&harness.client, PROJECT, "repo");
    sync().await;
    let before_deletes = store.revision(PROJECT).await.expect("revision");

    std::fs::remove_file(repo.path().join("a.txt")).expect("removed");
    sync().await;
    let deleted_a = store.revision(PROJECT).await.expect("revision");
    assert!(
        store
            .changes_since(PROJECT, before_deletes)
            .await
            .expect("read")
            .is_some(),
        "a.txt's tombstone is within the last revision: kept"
    );

    std::fs::remove_file(repo.path().join("b.txt")).expect("removed");
    sync().await;
    assert_eq!(
        store
            .changes_since(PROJECT, before_deletes)
            .await
            .expect("read"),
        None,
        "a.txt's tombstone is older than the retention: pruned, the reader re-reads"
    );
    let changes = store
        .changes_since(PROJECT, deleted_a)
        .await
        .expect("read")
        .expect("a delta from the floor");
    assert_eq!(
        changes.removed,
        vec![Removed::File {
            source: "repo".into(),
            path: "b.txt".into()
        }]
    );
}
