//! Sync triggers with a running server: an `auto` source follows its tree, and a
//! trigger changed in the store (by another replica) is re-armed here too.

mod support;

use neuralis_bus::InProcessBus;
use std::sync::Arc;
use std::time::Duration;
use support::{Setup, tree};

const PROJECT: &str = "project-triggers";

/// Polls until `path` is indexed; gives up after `patience` (a bound, not a measure).
async fn indexed_within(client: &support::Client, path: &str, patience: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + patience;
    while tokio::time::Instant::now() < deadline {
        let (_, entries) = support::entries(client, PROJECT).await;
        if entries.iter().any(|entry| entry.path == path) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// A server with one `auto` source over a fresh repository, once its first sync landed.
async fn auto_source() -> (support::Harness, tempfile::TempDir) {
    let harness = support::start(Setup::with_bus(Arc::new(InProcessBus::default()))).await;
    let repo = tree::repository();
    support::create(
        &harness.client,
        support::local_spec(PROJECT, "repo", repo.path(), "auto"),
    )
    .await;
    assert!(
        indexed_within(&harness.client, "notes/design.md", Duration::from_secs(20)).await,
        "initial sync"
    );
    (harness, repo)
}

#[tokio::test]
async fn an_auto_source_picks_up_a_new_file_after_a_burst_of_edits() {
    let (harness, repo) = auto_source().await;

    for edit in 0..20 {
        tree::write(
            repo.path(),
            "skills/new/SKILL.md",
            &format!("---\nname: new\n---\nedit {edit}\n"),
        );
    }
    assert!(
        indexed_within(
            &harness.client,
            "skills/new/SKILL.md",
            Duration::from_secs(20)
        )
        .await
    );
    let (_, entries) = support::entries(&harness.client, PROJECT).await;
    let skill = entries
        .iter()
        .find(|e| e.path == "skills/new/SKILL.md")
        .expect("indexed");
    let content = std::fs::read(repo.path().join("skills/new/SKILL.md")).expect("read");
    assert_eq!(
        skill.size,
        content.len() as u64,
        "the last edit of the burst is indexed"
    );
}

#[tokio::test]
async fn changing_a_trigger_to_manual_stops_following_the_tree() {
    use neuralis_proto::sync::v1 as pb;
    use neuralis_sync::SourceApi;
    let harness = support::start(Setup::with_bus(Arc::new(InProcessBus::default()))).await;
    let repo = tree::repository();
    support::create(
        &harness.client,
        support::local_spec(PROJECT, "repo", repo.path(), "interval:1d"),
    )
    .await;
    let update = pb::UpdateSourceRequest {
        source: Some(support::local_spec(PROJECT, "repo", repo.path(), "manual")),
    };
    let updated = harness
        .client
        .sources
        .update_source(&support::caller(), update)
        .await
        .expect("updated");
    assert_eq!(
        updated
            .source
            .and_then(|s| s.spec)
            .map(|s| s.trigger)
            .as_deref(),
        Some("manual")
    );
}

/// Whether the source has synced (its status says when it last did).
async fn synced(client: &support::Client, slug: &str) -> bool {
    use neuralis_proto::sync::v1 as pb;
    let request = pb::GetSourceRequest {
        project: PROJECT.into(),
        slug: slug.into(),
    };
    let answer = client.get_source(request).await.expect("read");
    answer
        .source
        .and_then(|source| source.status)
        .is_some_and(|status| status.last_synced_at_ms > 0)
}

#[tokio::test]
async fn a_trigger_changed_in_the_store_alone_is_re_armed_by_the_next_re_read() {
    use neuralis_index::IndexStore;
    let mut setup = Setup::with_bus(Arc::new(InProcessBus::default()));
    setup.config.sources_refresh_ms = 200;
    let harness = support::start(setup).await;
    let _repo = support::repository_source(&harness.client, PROJECT).await;
    // As another replica would: the store changes, this process is not told.
    let mut stored = harness
        .store
        .get_source(PROJECT, "repo")
        .await
        .expect("read")
        .expect("stored");
    stored.trigger = "interval:1s".into();
    harness.store.update_source(&stored).await.expect("updated");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    let mut ran = false;
    while !ran && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        ran = synced(&harness.client, "repo").await;
    }
    assert!(ran, "the interval stored by another replica runs here too");
}

/// When the source last synced (0: never).
async fn last_synced_at(client: &support::Client, slug: &str) -> i64 {
    use neuralis_proto::sync::v1 as pb;
    let request = pb::GetSourceRequest {
        project: PROJECT.into(),
        slug: slug.into(),
    };
    let answer = client.get_source(request).await.expect("read");
    answer
        .source
        .and_then(|source| source.status)
        .map_or(0, |status| status.last_synced_at_ms)
}

/// The attacker reads: an `auto` source follows its tree's changes, and opening a file
/// changes nothing. The watcher reported every open (inotify's `OPEN`, notify's
/// `Access`), its own sync's walk and reads included, so an idle source synced again
/// after every debounce, forever, and a member reading files in a loop drove syncs.
/// Once synced, reads (and the syncs' own opens) start none; a write still does.
#[tokio::test]
async fn an_idle_auto_source_is_not_synced_again_by_reads() {
    let (harness, repo) = auto_source().await;
    let first = last_synced_at(&harness.client, "repo").await;
    // Ten debounces (200 ms each) of reads: any sync they started has run by then.
    for _ in 0..20 {
        let _ = std::fs::read(repo.path().join("notes/design.md")).expect("read");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        last_synced_at(&harness.client, "repo").await,
        first,
        "reads started a sync"
    );
    tree::write(repo.path(), "notes/later.md", "a write\n");
    assert!(
        indexed_within(&harness.client, "notes/later.md", Duration::from_secs(20)).await,
        "a write still syncs"
    );
}
