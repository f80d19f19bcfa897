//! The feed's `ReadFile` serves only what the reader decided on (issue 25 item 1): the
//! row's fingerprint is required, a file rewritten or swapped since its row answers
//! NOT_FOUND like a missing one, and a rewritten one is re-synced soon without anyone
//! asking (even on a `manual` source), so the next decision sees it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use neuralis_bus::InProcessBus;
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_sync::SyncError;
use std::sync::Arc;
use std::time::Duration;
use support::{Setup, tree};

const PROJECT: &str = "project-decided";
const SKILL: &str = ".claude/skills/review/SKILL.md";

/// The row's fingerprint, as discovery takes it from the feed.
async fn row_fingerprint(client: &support::Client, path: &str) -> u64 {
    let (_, entries) = support::entries(client, PROJECT).await;
    let entry = entries.iter().find(|e| e.path == path).expect("indexed");
    neuralis_connector::fingerprint_of_hash(&entry.content_hash).expect("a hash")
}

fn request(path: &str, fingerprint: u64, real_path: &str) -> feed::ReadDecidedFileRequest {
    feed::ReadDecidedFileRequest {
        project: PROJECT.into(),
        source: "repo".into(),
        path: path.into(),
        fingerprint,
        real_path: real_path.into(),
    }
}

#[tokio::test]
async fn a_read_names_its_decided_row_and_a_rewritten_file_is_re_synced_soon() {
    let harness = support::start(Setup::with_bus(Arc::new(InProcessBus::default()))).await;
    let repo = support::repository_source(&harness.client, PROJECT).await;
    support::synced(&harness.client, PROJECT, "repo").await;
    let client = &harness.client;
    let decided = row_fingerprint(client, SKILL).await;
    let read = client.read_file(request(SKILL, decided, "")).await.unwrap();
    assert!(String::from_utf8_lossy(&read.content).contains("name: review"));
    // No decided row, no bytes.
    let undecided = client.read_file(request(SKILL, 0, "")).await;
    assert!(
        matches!(undecided, Err(SyncError::NotFound(_))),
        "{undecided:?}"
    );

    // Rewritten in place after the sync: the row's decision no longer holds.
    let rewritten = "---\nname: review\n---\nzqrewritten\n";
    std::fs::write(repo.path().join(SKILL), rewritten).unwrap();
    let stale = client.read_file(request(SKILL, decided, "")).await;
    assert!(matches!(stale, Err(SyncError::NotFound(_))), "{stale:?}");
    // Nobody syncs this manual source; the refused read asked for a re-sync.
    let mut resynced = 0;
    for _ in 0..250 {
        resynced = row_fingerprint(client, SKILL).await;
        if resynced != decided {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        resynced,
        neuralis_connector::fingerprint(rewritten.as_bytes())
    );
    let fresh = client
        .read_file(request(SKILL, resynced, ""))
        .await
        .unwrap();
    assert_eq!(fresh.content, rewritten.as_bytes());
}

#[tokio::test]
async fn a_linked_row_is_read_at_its_real_path_never_through_the_alias() {
    let harness = support::start(Setup::with_bus(Arc::new(InProcessBus::default()))).await;
    let repo = tree::repository();
    std::os::unix::fs::symlink(
        repo.path().join("notes/design.md"),
        repo.path().join(".claude/rules/alias.md"),
    )
    .unwrap();
    support::create(
        &harness.client,
        support::local_spec(PROJECT, "repo", repo.path(), "manual"),
    )
    .await;
    support::synced(&harness.client, PROJECT, "repo").await;
    let client = &harness.client;
    let alias = ".claude/rules/alias.md";
    let decided = row_fingerprint(client, alias).await;
    let read = client
        .read_file(request(alias, decided, "notes/design.md"))
        .await
        .unwrap();
    assert!(String::from_utf8_lossy(&read.content).contains("deploy pipeline"));
    // Through the alias itself (a link), nothing: whatever it points at by now.
    let through = client.read_file(request(alias, decided, "")).await;
    assert!(
        matches!(through, Err(SyncError::NotFound(_))),
        "{through:?}"
    );
}
