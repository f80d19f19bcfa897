//! What an administrator can make the service do unasked is bounded
//! (`sync.schedule`): an `interval:` shorter than the minimum is refused at create and
//! update, naming the trigger, and a project holds at most so many sources.

mod support;

use neuralis_bus::InProcessBus;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::config::ScheduleLimits;
use neuralis_sync::{SourceApi, SyncError};
use std::sync::Arc;
use support::{Harness, Setup, caller, local_spec, tree};

const PROJECT: &str = "project-schedule";

async fn started(schedule: ScheduleLimits) -> Harness {
    let mut setup = Setup::with_bus(Arc::new(InProcessBus::default()));
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
    assert!(
        matches!(refused, Err(SyncError::ResourceExhausted { .. })),
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
