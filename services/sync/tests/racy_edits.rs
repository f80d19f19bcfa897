//! Racy edits (issue 10 item 5): "an edit that keeps a file's size and modification time
//! is never picked up (the stat check trusts both). Git solves this ('racy' entries,
//! inode and ctime); do at least as well." The listing's change time is the later of
//! mtime and ctime (a caller can set the mtime back, never the ctime), and a row
//! changed since the previous run began is re-hashed (the planner's unit tests cover
//! that rule alone).

mod support;

use neuralis_bus::InProcessBus;
use std::sync::Arc;
use support::{Setup, tree};

const PROJECT: &str = "project-racy";

#[tokio::test]
async fn an_edit_that_keeps_size_and_mtime_is_indexed_on_the_next_sync() {
    let harness = support::start(Setup::with_bus(Arc::new(InProcessBus::default()))).await;
    let repo = tree::repository();
    let path = ".claude/skills/review/SKILL.md";
    tree::write(repo.path(), path, "---\nname: review\n---\nSay AAAA.\n");
    support::create(
        &harness.client,
        support::local_spec(PROJECT, "repo", repo.path(), "manual"),
    )
    .await;
    support::synced(&harness.client, PROJECT, "repo").await;
    let hash_of = |entries: &[neuralis_proto::sync::internal::v1::Entry]| {
        entries
            .iter()
            .find(|e| e.path == path)
            .map(|e| e.content_hash.clone())
            .expect("the skill is indexed")
    };
    let before = hash_of(&support::entries(&harness.client, PROJECT).await.1);

    let file = repo.path().join(path);
    let mtime = std::fs::metadata(&file)
        .and_then(|m| m.modified())
        .expect("mtime");
    std::fs::write(&file, "---\nname: review\n---\nSay BBBB.\n").expect("edited");
    std::fs::File::options()
        .write(true)
        .open(&file)
        .and_then(|f| f.set_modified(mtime))
        .expect("mtime set back");
    let after_edit = std::fs::metadata(&file).expect("stat");
    assert_eq!(after_edit.modified().expect("mtime"), mtime);

    let progress = support::synced(&harness.client, PROJECT, "repo")
        .await
        .progress
        .expect("progress");
    assert_eq!(
        progress.files_indexed, 1,
        "the edited file is indexed again"
    );
    let after = hash_of(&support::entries(&harness.client, PROJECT).await.1);
    assert_ne!(before, after);
}
