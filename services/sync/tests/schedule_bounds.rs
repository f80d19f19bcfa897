//! What an administrator can make the service do unasked is bounded
//! (`sync.schedule`): an `interval:` shorter than the minimum is refused at create and
//! update, naming the trigger, a project holds at most so many sources, and the runs
//! nobody asked for at that moment wait for a place of the scheduled share.

mod support;

use futures::StreamExt;
use neuralis_bus::{BusNotice, InProcessBus, InvalidationBus, Phase};
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::config::ScheduleLimits;
use neuralis_sync::{SourceApi, SyncError};
use std::sync::Arc;
use support::{Harness, Setup, caller, local_spec, tree};

const PROJECT: &str = "project-schedule";

async fn started(schedule: ScheduleLimits) -> Harness {
    started_on(schedule, Arc::new(InProcessBus::default())).await
}

async fn started_on(schedule: ScheduleLimits, bus: Arc<InProcessBus>) -> Harness {
    let mut setup = Setup::with_bus(bus);
    setup.config.schedule = schedule;
    support::start(setup).await
}

async fn create(
    harness: &Harness,
    slug: &str,
    root: &std::path::Path,
    trigger: &str,
) -> Result<pb::CreateSourceResponse, SyncError> {
    let spec = local_spec(PROJECT, slug, root, trigger);
    let request = pb::CreateSourceRequest { source: Some(spec) };
    harness.client.create_source(&caller(), request).await
}

fn refused_trigger<T: std::fmt::Debug>(result: Result<T, SyncError>) -> bool {
    matches!(result, Err(SyncError::InvalidArgument { ref field, .. }) if field == "source.trigger")
}

#[tokio::test]
async fn an_interval_below_the_minimum_is_refused_at_create_and_update() {
    let harness = started(ScheduleLimits::default()).await;
    let repo = tree::repository();
    assert!(refused_trigger(
        create(&harness, "fast", repo.path(), "interval:1s").await
    ));
    create(&harness, "slow", repo.path(), "interval:1m")
        .await
        .expect("the minimum itself");
    let spec = local_spec(PROJECT, "slow", repo.path(), "interval:59s");
    let update = pb::UpdateSourceRequest { source: Some(spec) };
    assert!(refused_trigger(
        harness
            .client
            .sources
            .update_source(&caller(), update)
            .await
    ));
}

#[tokio::test]
async fn a_project_holding_the_most_sources_it_may_creates_no_more() {
    let harness = started(ScheduleLimits {
        max_sources_per_project: 2,
        ..ScheduleLimits::default()
    })
    .await;
    let repo = tree::repository();
    for slug in ["a", "b"] {
        create(&harness, slug, repo.path(), "manual")
            .await
            .expect("within the bound");
    }
    let refused = create(&harness, "c", repo.path(), "manual").await;
    // Room comes from a delete, not from waiting: a limit naming its field, no retry.
    assert!(
        matches!(refused, Err(SyncError::LimitReached { ref field, .. }) if field == "source"),
        "{refused:?}"
    );
    let delete = pb::DeleteSourceRequest {
        project: PROJECT.into(),
        slug: "a".into(),
    };
    harness
        .client
        .delete_source(&caller(), delete)
        .await
        .expect("deleted");
    create(&harness, "c", repo.path(), "manual")
        .await
        .expect("room again");
}

#[tokio::test]
async fn a_refused_create_or_an_update_changing_nothing_announces_nothing() {
    let bus = Arc::new(InProcessBus::default());
    let limits = ScheduleLimits {
        max_sources_per_project: 3,
        ..ScheduleLimits::default()
    };
    let harness = started_on(limits, Arc::clone(&bus)).await;
    let repo = tree::repository();
    for slug in ["a", "b"] {
        create(&harness, slug, repo.path(), "manual")
            .await
            .expect("within the bound");
    }
    let mut events = bus.subscribe().await.expect("subscribed");
    // An update changing nothing, then one changing the trigger; a taken slug, a create
    // that fills the project, then a full project: each start marks the project stale
    // in every discovery replica, so only the calls that store something announce.
    let update = |trigger: &str| pb::UpdateSourceRequest {
        source: Some(local_spec(PROJECT, "a", repo.path(), trigger)),
    };
    let before = get_a(&harness).await;
    // Past the millisecond of the create: a write now would show in `updated_at_ms`.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let unchanged = harness
        .client
        .sources
        .update_source(&caller(), update("manual"))
        .await
        .expect("the same settings");
    let stored = unchanged.source.expect("a source");
    assert_eq!(stored.spec.expect("its settings").trigger, "manual");
    assert_eq!(
        get_a(&harness).await.updated_at_ms,
        before.updated_at_ms,
        "nothing changed, so nothing was written"
    );
    harness
        .client
        .sources
        .update_source(&caller(), update("interval:1m"))
        .await
        .expect("a new trigger");
    let taken = create(&harness, "a", repo.path(), "manual").await;
    assert!(
        matches!(taken, Err(SyncError::AlreadyExists(_))),
        "{taken:?}"
    );
    create(&harness, "c", repo.path(), "manual")
        .await
        .expect("the last place");
    let full = create(&harness, "d", repo.path(), "manual").await;
    assert!(
        matches!(full, Err(SyncError::LimitReached { .. })),
        "{full:?}"
    );
    // A delete is announced: everything published before its finish arrives first.
    let delete = pb::DeleteSourceRequest {
        project: PROJECT.into(),
        slug: "b".into(),
    };
    harness
        .client
        .delete_source(&caller(), delete)
        .await
        .expect("deleted");
    let mut seen = Vec::new();
    let read = async {
        while let Some(notice) = events.next().await {
            let BusNotice::Event(event) = notice else {
                continue;
            };
            let finished = event.source == "b" && event.phase == Phase::Finish;
            seen.push((event.source, event.phase));
            if finished {
                break;
            }
        }
    };
    let waited = tokio::time::timeout(std::time::Duration::from_secs(10), read).await;
    assert!(waited.is_ok(), "the delete's finish arrived: {seen:?}");
    let announced =
        |slug: &str| [Phase::Start, Phase::Finish].map(|phase| (slug.to_owned(), phase));
    assert_eq!(
        seen,
        [announced("a"), announced("c"), announced("b")].concat()
    );
}

/// Source "a" of the project as stored.
async fn get_a(harness: &Harness) -> pb::Source {
    let request = pb::GetSourceRequest {
        project: PROJECT.into(),
        slug: "a".into(),
    };
    let got = harness.client.sources.get_source(&caller(), request).await;
    got.expect("got").source.expect("a source")
}

/// Three `auto` sources of one project, created at once: each syncs at start, a run
/// nobody asked for. Every write is slowed, so runs overlap unless something keeps
/// them apart; answers the most writes seen in progress at once, once all three synced.
async fn most_scheduled_runs_at_once(project_runs: usize) -> u64 {
    let harness = started(ScheduleLimits {
        project_runs,
        concurrent_runs: 2,
        ..ScheduleLimits::default()
    })
    .await;
    harness
        .store
        .write_delay_ms
        .store(400, std::sync::atomic::Ordering::SeqCst);
    let trees: Vec<_> = (0..3).map(|_| tree::repository()).collect();
    for (n, repo) in trees.iter().enumerate() {
        create(&harness, &format!("auto{n}"), repo.path(), "auto")
            .await
            .expect("created");
    }
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let (_, entries) = support::entries(&harness.client, PROJECT).await;
        let sources: std::collections::BTreeSet<&str> =
            entries.iter().map(|entry| entry.source.as_str()).collect();
        if sources.len() == 3 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "every source synced: {sources:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    harness
        .store
        .most_in_flight
        .load(std::sync::atomic::Ordering::SeqCst)
}

#[tokio::test]
async fn a_projects_scheduled_runs_wait_for_its_one_place() {
    // Unwired, the three first syncs ran at once.
    assert_eq!(most_scheduled_runs_at_once(1).await, 1);
}

#[tokio::test]
async fn with_two_places_a_projects_scheduled_runs_overlap() {
    // The control: overlapping runs are seen when the share lets them overlap.
    assert_eq!(most_scheduled_runs_at_once(2).await, 2);
}

/// An `auto` source whose watcher could not start (its root not a directory yet) is
/// tried again by an update that changes nothing, once the root is there: the update
/// writes nothing, yet the source is watched and synced.
#[tokio::test]
async fn an_unchanged_update_revives_a_watcher_that_could_not_start() {
    let harness = started(ScheduleLimits::default()).await;
    let repo = tree::repository();
    // A root under a file: resolvable, so accepted, but not watchable.
    let blocker = repo.path().join("later");
    std::fs::write(&blocker, b"not a directory yet").expect("written");
    let root = blocker.join("tree");
    create(&harness, "w", &root, "auto").await.expect("created");
    // Long enough for the watcher's task to have tried and ended; with correct code
    // the test passes whichever way that went.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    std::fs::remove_file(&blocker).expect("removed");
    std::fs::create_dir_all(&root).expect("made");
    std::fs::write(root.join("AGENTS.md"), b"# Be kind\n").expect("written");
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let update = pb::UpdateSourceRequest {
            source: Some(local_spec(PROJECT, "w", &root, "auto")),
        };
        harness
            .client
            .sources
            .update_source(&caller(), update)
            .await
            .expect("the same settings");
        let (_, entries) = support::entries(&harness.client, PROJECT).await;
        if entries.iter().any(|entry| entry.path == "AGENTS.md") {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the watcher started again and synced"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
