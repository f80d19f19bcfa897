//! What a sync run holds in memory is bounded by configuration (issue 31): a write
//! batch never passes `sync.batch_size` rows or `sync.batch_max_bytes` of paths and
//! chunk text, whatever the tree.

mod support;

use neuralis_bus::InProcessBus;
use std::sync::Arc;
use support::{Setup, tree};

const PROJECT: &str = "project-bounds";

/// A tree of `files` files of `size` bytes of text each (one chunk apiece or more).
fn tree_of(files: usize, size: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let line = "let x = 1; // padding the file to its size\n";
    let body: String = line.repeat(size / line.len() + 1)[..size].to_owned();
    for n in 0..files {
        tree::write(dir.path(), &format!("src/m{}/f{n}.rs", n % 7), &body);
    }
    dir
}

async fn batch_shapes(batch_size: usize, batch_max_bytes: usize) -> Vec<(usize, usize)> {
    let mut setup = Setup::with_bus(Arc::new(InProcessBus::default()));
    setup.config.batch_size = batch_size;
    setup.config.batch_max_bytes = batch_max_bytes;
    setup.config.read_ahead_files = 5;
    let harness = support::start(setup).await;
    let repo = tree_of(60, 1_000);
    support::create(
        &harness.client,
        support::local_spec(PROJECT, "repo", repo.path(), "manual"),
    )
    .await;
    let done = support::synced(&harness.client, PROJECT, "repo").await;
    let progress = done.progress.expect("progress");
    assert_eq!(progress.files_indexed, 60);
    let shapes = harness.store.batch_shapes.lock().expect("lock").clone();
    assert_eq!(shapes.len() as u64, progress.batches_committed);
    shapes
}

#[tokio::test]
async fn a_batch_never_holds_more_rows_than_batch_size() {
    let shapes = batch_shapes(7, 16 << 20).await;
    assert!(shapes.iter().all(|(rows, _)| *rows <= 7), "{shapes:?}");
    assert_eq!(shapes.iter().map(|(rows, _)| rows).sum::<usize>(), 60);
    assert!(
        shapes.len() >= 60 / 7,
        "the rows bound cut batches: {shapes:?}"
    );
}

#[tokio::test]
async fn a_batch_never_holds_more_bytes_than_batch_max_bytes() {
    // About four files' text: far below the row bound, so the bytes cut every batch.
    let shapes = batch_shapes(1_000, 4_500).await;
    assert!(
        shapes.iter().all(|(_, bytes)| *bytes <= 4_500),
        "{shapes:?}"
    );
    assert_eq!(shapes.iter().map(|(rows, _)| rows).sum::<usize>(), 60);
    assert!(
        shapes.len() >= 60 / 4,
        "the bytes bound cut batches: {shapes:?}"
    );
}

#[tokio::test]
async fn a_file_larger_than_batch_max_bytes_makes_a_batch_of_its_own() {
    let shapes = batch_shapes(1_000, 500).await;
    assert!(shapes.iter().all(|(rows, _)| *rows == 1), "{shapes:?}");
}
