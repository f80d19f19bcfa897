//! Non-UTF-8 content (issue 10; DESIGN.md section 6: "unreadable or non-UTF-8 files are
//! skipped and reported in the sync run, never followed or indexed"): a contribution
//! whose content is not UTF-8 is never listed, so list and activation agree; one that
//! turns non-UTF-8 leaves the index; a binary asset the layout core never reads stays.

mod support;

use neuralis_bus::InProcessBus;
use neuralis_proto::sync::v1 as pb;
use std::sync::Arc;
use support::{Setup, tree};

const PROJECT: &str = "project-utf8";

fn skipped(messages: &[pb::SyncSourceResponse]) -> Vec<(String, pb::SkipReason)> {
    messages
        .iter()
        .flat_map(|m| m.skipped.iter().map(|s| (s.path.clone(), s.reason())))
        .collect()
}

#[tokio::test]
async fn non_utf8_contributions_are_skipped_and_reported_never_indexed() {
    let harness = support::start(Setup::with_bus(Arc::new(InProcessBus::default()))).await;
    let repo = tree::repository();
    let root = repo.path();
    let bad = ".claude/skills/latin/SKILL.md";
    let turning = ".claude/skills/review/SKILL.md";
    std::fs::create_dir_all(root.join(".claude/skills/latin")).expect("dir");
    std::fs::write(root.join(bad), b"---\nname: latin\n---\ncaf\xe9\n").expect("write");
    std::fs::write(
        root.join(".claude/skills/latin/logo.png"),
        b"\x89PNG\xff\xfe",
    )
    .expect("write");
    tree::write(root, turning, "---\nname: review\n---\nReview.\n");
    support::create(
        &harness.client,
        support::local_spec(PROJECT, "repo", root, "manual"),
    )
    .await;

    let first = support::sync(&harness.client, PROJECT, "repo")
        .await
        .expect("the sync still succeeds");
    assert_eq!(
        skipped(&first),
        [(bad.to_owned(), pb::SkipReason::NonUtf8Content)]
    );
    let (_, entries) = support::entries(&harness.client, PROJECT).await;
    let paths: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
    assert!(!paths.contains(&bad), "{paths:?}");
    assert!(paths.contains(&turning));
    assert!(
        paths.contains(&".claude/skills/latin/logo.png"),
        "{paths:?}"
    );

    std::fs::write(root.join(turning), b"---\nname: review\n---\nR\xe9view.\n").expect("write");
    let second = support::sync(&harness.client, PROJECT, "repo")
        .await
        .expect("the sync still succeeds");
    assert!(skipped(&second).contains(&(turning.to_owned(), pb::SkipReason::NonUtf8Content)));
    let (_, entries) = support::entries(&harness.client, PROJECT).await;
    assert!(
        entries.iter().all(|e| e.path != turning),
        "the stale row is gone"
    );
}
