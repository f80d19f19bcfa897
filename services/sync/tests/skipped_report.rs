//! A run's report of what it left out is bounded: an agent that fills its tree with
//! entries the walk skips (here broken links) gets them counted in `files_skipped`, but
//! one progress message lists at most 1,000 of them. Listing every one made a message
//! of any size, past what a client decodes (gRPC's default is 4 MiB).

mod support;

use std::os::unix::fs::symlink;
use std::sync::Arc;

use neuralis_bus::InProcessBus;
use support::{Setup, tree};

const PROJECT: &str = "project-skips";

#[tokio::test]
async fn a_run_lists_at_most_a_thousand_skipped_entries_per_message_and_counts_them_all() {
    let harness = support::start(Setup::with_bus(Arc::new(InProcessBus::default()))).await;
    let repo = tree::repository();
    let root = repo.path();
    std::fs::create_dir(root.join("links")).expect("dir");
    for at in 0..1_500 {
        symlink(root.join("gone"), root.join(format!("links/l{at:04}"))).expect("link");
    }
    support::create(
        &harness.client,
        support::local_spec(PROJECT, "repo", root, "manual"),
    )
    .await;
    let messages = support::sync(&harness.client, PROJECT, "repo")
        .await
        .expect("the sync still succeeds");
    let listed: Vec<usize> = messages.iter().map(|m| m.skipped.len()).collect();
    assert!(listed.iter().all(|&n| n <= 1_000), "{listed:?}");
    assert_eq!(listed.iter().sum::<usize>(), 1_000, "{listed:?}");
    let last = messages.last().and_then(|m| m.progress).expect("progress");
    assert_eq!(last.files_skipped, 1_500, "every one is counted");
}
