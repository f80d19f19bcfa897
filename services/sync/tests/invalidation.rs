//! Invalidation events with a running server and real Redis: what a subscriber sees
//! around the writes of a sync.

mod support;

use neuralis_bus::{InvalidationBus, InvalidationEvent, Phase, RedisBus};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use support::{Setup, tree};

const PROJECT: &str = "project-inval";

async fn subscriber(channel: &str) -> (RedisBus, neuralis_bus::Subscription) {
    let bus = RedisBus::connect(&support::redis_url(), channel)
        .await
        .expect("redis");
    let subscription = bus.subscribe().await.expect("subscribed");
    (bus, subscription)
}

fn phases(events: &[InvalidationEvent]) -> Vec<Phase> {
    events.iter().map(|event| event.phase).collect()
}

#[tokio::test]
async fn a_sync_that_adds_a_skill_publishes_start_then_finish_in_order() {
    let channel = support::unique_channel("adds-skill");
    let (bus, mut subscription) = subscriber(&channel).await;
    let harness = support::start(Setup::redis(&channel).await).await;
    let repo = tempfile::tempdir().expect("tempdir");
    tree::write(
        repo.path(),
        "skills/deploy/SKILL.md",
        "---\nname: deploy\n---\nShip it.\n",
    );
    support::create(
        &harness.client,
        support::local_spec(PROJECT, "repo", repo.path(), "manual"),
    )
    .await;
    // A source's creation is announced like a write (issue 26); drained here.
    let created = support::events_until_sentinel(&bus, &mut subscription).await;
    assert_eq!(phases(&created), [Phase::Start, Phase::Finish]);

    let done = support::synced(&harness.client, PROJECT, "repo").await;
    let events = support::events_until_sentinel(&bus, &mut subscription).await;

    assert_eq!(phases(&events), [Phase::Start, Phase::Finish]);
    let (start, finish) = (&events[0], &events[1]);
    assert_eq!(start.write_id, finish.write_id);
    assert_eq!(
        (start.project.as_str(), start.source.as_str()),
        (PROJECT, "repo")
    );
    assert_eq!(
        start.revision, 0,
        "start carries the revision before the write"
    );
    assert_eq!(finish.revision, 1, "finish carries the revision after it");
    assert_eq!(done.revision, finish.revision);
    assert_eq!(
        support::revision(&harness.client, PROJECT).await,
        finish.revision
    );
}

#[tokio::test]
async fn a_failing_write_publishes_failed_and_changes_nothing() {
    let channel = support::unique_channel("failing");
    let (bus, mut subscription) = subscriber(&channel).await;
    let harness = support::start(Setup::redis(&channel).await).await;
    let _repo = support::repository_source(&harness.client, PROJECT).await;
    // A source's creation is announced like a write (issue 26); drained here.
    let created = support::events_until_sentinel(&bus, &mut subscription).await;
    assert_eq!(phases(&created), [Phase::Start, Phase::Finish]);
    harness.store.fail_writes.store(true, Ordering::SeqCst);

    let outcome = support::sync(&harness.client, PROJECT, "repo").await;
    let events = support::events_until_sentinel(&bus, &mut subscription).await;

    assert!(
        matches!(outcome, Err(neuralis_sync::SyncError::Unavailable(_))),
        "{outcome:?}"
    );
    assert_eq!(phases(&events), [Phase::Start, Phase::Failed]);
    assert_eq!(events[0].write_id, events[1].write_id);
    assert_eq!(events[1].revision, 0);
    assert_eq!(support::revision(&harness.client, PROJECT).await, 0);
    let source = harness
        .client
        .get_source(neuralis_proto::sync::v1::GetSourceRequest {
            project: PROJECT.into(),
            slug: "repo".into(),
        })
        .await
        .expect("source");
    let status = source.source.and_then(|s| s.status).expect("status");
    assert!(
        status.last_error.contains("write failed on purpose"),
        "{status:?}"
    );
}

#[tokio::test]
async fn a_sync_that_only_changes_chunk_rows_or_an_unrelated_file_publishes_nothing() {
    let channel = support::unique_channel("quiet");
    let (bus, mut subscription) = subscriber(&channel).await;
    let harness = support::start(Setup::redis(&channel).await).await;
    let repo = support::repository_source(&harness.client, PROJECT).await;
    support::synced(&harness.client, PROJECT, "repo").await;
    let first = support::events_until_sentinel(&bus, &mut subscription).await;
    assert!(
        !first.is_empty(),
        "the first sync adds a package and is announced"
    );
    let revision_before = support::revision(&harness.client, PROJECT).await;
    let chunks_before = harness.store.chunk_rows();

    // A doc outside every package root gets new text (new chunk rows), code changes.
    tree::write(
        repo.path(),
        "notes/design.md",
        "# Design\nThe deploy pipeline runs hourly now, with a canary.\n\n## Rollback\nRevert.\n",
    );
    tree::write(
        repo.path(),
        "src/main.rs",
        "fn main() { println!(\"hi\"); }\n",
    );
    tree::write(repo.path(), "src/lib.rs", "pub fn f() {}\n");
    let done = support::synced(&harness.client, PROJECT, "repo").await;
    let events = support::events_until_sentinel(&bus, &mut subscription).await;

    assert_eq!(
        events,
        [],
        "writes that cannot move a package publish nothing"
    );
    assert!(
        harness.store.chunk_rows() > chunks_before,
        "chunk rows were written"
    );
    assert!(done.revision > revision_before, "the writes were committed");
}

const MANIFEST: &str = "tools/helper/package.json";
const NOTES: &str = "tools/helper/notes.txt";

/// Syncs a source of `first`, then again after `change`, and checks that the second
/// run is announced and that its `finish` carries its last revision: no quiet batch
/// was committed after the announced one (a reader could catch up between them).
async fn second_run_is_announced_whole(
    name: &str,
    first: &[(&str, &str)],
    change: impl FnOnce(&std::path::Path),
) {
    let channel = support::unique_channel(name);
    let (bus, mut subscription) = subscriber(&channel).await;
    let harness = support::start(Setup::redis(&channel).await).await;
    let repo = tempfile::tempdir().expect("tempdir");
    for (path, content) in first {
        tree::write(repo.path(), path, content);
    }
    support::create(
        &harness.client,
        support::local_spec(PROJECT, "repo", repo.path(), "manual"),
    )
    .await;
    support::synced(&harness.client, PROJECT, "repo").await;
    support::events_until_sentinel(&bus, &mut subscription).await;

    change(repo.path());
    let done = support::synced(&harness.client, PROJECT, "repo").await;
    let events = support::events_until_sentinel(&bus, &mut subscription).await;

    assert_eq!(phases(&events), [Phase::Start, Phase::Finish], "{name}");
    assert_eq!(
        events[1].revision, done.revision,
        "{name}: the notes were written in the announced batch, nothing after it"
    );
}

/// The predicate is asked under the roots before the run too: a plain file of a
/// package whose manifest goes in the same run is announced with it.
#[tokio::test]
async fn a_file_of_a_package_that_goes_in_the_same_run_is_announced_with_it() {
    let first = [
        (MANIFEST, r#"{"name": "helper", "neuralis": {}}"#),
        (NOTES, "first\n"),
    ];
    second_run_is_announced_whole("package-goes", &first, |repo| {
        std::fs::remove_file(repo.join(MANIFEST)).expect("manifest removed");
        tree::write(repo, NOTES, "second, longer\n");
    })
    .await;
}

/// And under the roots after it: a plain file of a package whose manifest comes in the
/// same run is announced with it.
#[tokio::test]
async fn a_file_of_a_package_that_comes_in_the_same_run_is_announced_with_it() {
    let first = [("src/main.rs", "fn main() {}\n")];
    second_run_is_announced_whole("package-comes", &first, |repo| {
        tree::write(repo, MANIFEST, r#"{"name": "helper", "neuralis": {}}"#);
        tree::write(repo, NOTES, "notes\n");
    })
    .await;
}

#[tokio::test]
async fn the_revision_rises_with_every_committed_write() {
    let channel = support::unique_channel("revision");
    let mut setup = Setup::redis(&channel).await;
    setup.config.batch_size = 1;
    let harness = support::start(setup).await;
    let repo = support::repository_source(&harness.client, PROJECT).await;

    let mut last = 0;
    for round in 0..3 {
        tree::write(repo.path(), &format!("notes/round-{round}.md"), "text\n");
        let done = support::synced(&harness.client, PROJECT, "repo").await;
        let progress = done.progress.expect("progress");
        assert_eq!(
            done.revision,
            last + progress.batches_committed,
            "one revision per committed batch"
        );
        assert!(done.revision > last);
        last = done.revision;
    }
    assert_eq!(harness.store.batches.load(Ordering::SeqCst), last);
}

#[tokio::test]
async fn deleting_a_source_is_announced_and_raises_the_revision() {
    let channel = support::unique_channel("delete");
    let (bus, mut subscription) = subscriber(&channel).await;
    let harness = support::start(Setup::redis(&channel).await).await;
    let _repo = support::repository_source(&harness.client, PROJECT).await;
    support::synced(&harness.client, PROJECT, "repo").await;
    support::events_until_sentinel(&bus, &mut subscription).await;
    let before = support::revision(&harness.client, PROJECT).await;

    let request = neuralis_proto::sync::v1::DeleteSourceRequest {
        project: PROJECT.into(),
        slug: "repo".into(),
    };
    let deleted = harness
        .client
        .delete_source(&support::caller(), request)
        .await
        .expect("deleted");
    let events = support::events_until_sentinel(&bus, &mut subscription).await;

    assert_eq!(phases(&events), [Phase::Start, Phase::Finish]);
    assert_eq!(deleted.revision, before + 1);
    assert!(
        support::entries(&harness.client, PROJECT)
            .await
            .1
            .is_empty()
    );
}

#[tokio::test]
async fn a_write_that_times_out_publishes_failed() {
    let bus = Arc::new(neuralis_bus::InProcessBus::default());
    let mut subscription = bus.subscribe().await.expect("subscribed");
    let mut setup = Setup::with_bus(bus.clone());
    setup.config.write_timeout_secs = 1;
    let harness = support::start(setup).await;
    let _repo = support::repository_source(&harness.client, PROJECT).await;
    // A source's creation is announced like a write (issue 26); drained here.
    let created = support::events_until_sentinel(bus.as_ref(), &mut subscription).await;
    assert_eq!(phases(&created), [Phase::Start, Phase::Finish]);
    harness.store.stall_writes.store(true, Ordering::SeqCst);

    let outcome = support::sync(&harness.client, PROJECT, "repo").await;
    let events = support::events_until_sentinel(bus.as_ref(), &mut subscription).await;

    assert!(
        matches!(outcome, Err(neuralis_sync::SyncError::Unavailable(ref m)) if m.contains("did not finish")),
        "{outcome:?}"
    );
    assert_eq!(phases(&events), [Phase::Start, Phase::Failed]);
    assert_eq!(support::revision(&harness.client, PROJECT).await, 0);
}
