//! Invalidation around writes (DESIGN.md section 3): a batch that could move a package
//! is announced with `start` before it begins and closed with `finish` after it
//! commits, or `failed` when it errs or times out. A batch that cannot move a package
//! publishes nothing.
//!
//! Fail closed: when `start` cannot be published the batch is not written, since a
//! reader that missed the start could store a fill that overlaps the write.

use crate::SyncError;
use neuralis_bus::{InvalidationBus, InvalidationEvent, Phase, now_millis};
use neuralis_index::{IndexStore, WriteBatch};
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Commits one batch, announcing it on the bus when `moves_package`. Returns the
/// project's revision after the commit.
pub async fn commit_batch(
    store: &dyn IndexStore,
    bus: &dyn InvalidationBus,
    batch: WriteBatch,
    moves_package: bool,
    timeout: Duration,
) -> Result<u64, SyncError> {
    if !moves_package {
        return write_within(store, batch, timeout).await;
    }
    let (project, source) = (batch.project.clone(), batch.source.clone());
    let target = WriteTarget {
        project: &project,
        source: &source,
    };
    announced(store, bus, target, write_within(store, batch, timeout)).await
}

/// Which project and source a write touches.
#[derive(Debug, Clone, Copy)]
pub struct WriteTarget<'a> {
    /// The project whose revision the write raises.
    pub project: &'a str,
    /// The source slug.
    pub source: &'a str,
}

/// Runs `write` between `start` and `finish` (or `failed`). `write` yields the
/// project's revision after it.
pub async fn announced(
    store: &dyn IndexStore,
    bus: &dyn InvalidationBus,
    target: WriteTarget<'_>,
    write: impl std::future::Future<Output = Result<u64, SyncError>>,
) -> Result<u64, SyncError> {
    let write_id = next_write_id();
    let before = store.revision(target.project).await?;
    bus.publish(&event(target, &write_id, before, Phase::Start))
        .await
        .map_err(|err| SyncError::Unavailable(format!("cannot announce the write: {err}")))?;
    match write.await {
        Ok(revision) => {
            publish_closing(bus, event(target, &write_id, revision, Phase::Finish)).await;
            Ok(revision)
        }
        Err(err) => {
            publish_closing(bus, event(target, &write_id, before, Phase::Failed)).await;
            Err(err)
        }
    }
}

async fn write_within(
    store: &dyn IndexStore,
    batch: WriteBatch,
    timeout: Duration,
) -> Result<u64, SyncError> {
    match tokio::time::timeout(timeout, store.write_batch(batch)).await {
        Ok(result) => Ok(result?),
        Err(_) => Err(SyncError::Unavailable(format!(
            "the write did not finish within {} s",
            timeout.as_secs()
        ))),
    }
}

/// A closing event that cannot be published is logged: the readers' recovery window
/// (revalidation against the revision) covers it.
async fn publish_closing(bus: &dyn InvalidationBus, event: InvalidationEvent) {
    if let Err(err) = bus.publish(&event).await {
        tracing::warn!(
            project = %event.project,
            write_id = %event.write_id,
            phase = event.phase.as_str(),
            error = %err,
            "invalidation event not published"
        );
    }
}

fn event(
    target: WriteTarget<'_>,
    write_id: &str,
    revision: u64,
    phase: Phase,
) -> InvalidationEvent {
    InvalidationEvent {
        project: target.project.to_owned(),
        source: target.source.to_owned(),
        write_id: write_id.to_owned(),
        revision,
        phase,
        at: now_millis(),
    }
}

/// Unique across replicas: a random per-process prefix and a counter.
fn next_write_id() -> String {
    static PROCESS: OnceLock<u64> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let process = *PROCESS.get_or_init(|| {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(now_millis());
        hasher.finish()
    });
    format!(
        "{process:016x}-{:x}",
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;
    use neuralis_bus::{BusError, BusNotice, InProcessBus, Subscription};
    use neuralis_index::{RowWrite, SqlIndexStore};

    /// A bus that is down.
    struct DownBus;

    #[async_trait::async_trait]
    impl InvalidationBus for DownBus {
        async fn publish(&self, _: &InvalidationEvent) -> Result<(), BusError> {
            Err(BusError::Unavailable("down".into()))
        }
        async fn subscribe(&self) -> Result<Subscription, BusError> {
            Err(BusError::Unavailable("down".into()))
        }
    }

    fn batch() -> WriteBatch {
        WriteBatch {
            project: "p".into(),
            source: "s".into(),
            source_id: None,
            writes: vec![RowWrite::Delete {
                path: "a.md".into(),
            }],
        }
    }

    async fn store() -> (tempfile::TempDir, SqlIndexStore) {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = SqlIndexStore::open_embedded(&dir.path().join("i.db"))
            .await
            .expect("store");
        (dir, store)
    }

    #[tokio::test]
    async fn a_write_that_cannot_be_announced_is_not_written() {
        let (_dir, store) = store().await;
        let outcome = commit_batch(&store, &DownBus, batch(), true, Duration::from_secs(5)).await;
        assert!(
            matches!(outcome, Err(SyncError::Unavailable(_))),
            "{outcome:?}"
        );
        assert_eq!(store.revision("p").await.expect("read"), 0);
    }

    #[tokio::test]
    async fn a_quiet_write_needs_no_bus() {
        let (_dir, store) = store().await;
        let revision = commit_batch(&store, &DownBus, batch(), false, Duration::from_secs(5)).await;
        assert_eq!(revision.expect("written"), 1);
    }

    #[tokio::test]
    async fn an_announced_write_is_bracketed_by_start_and_finish() {
        let (_dir, store) = store().await;
        let bus = InProcessBus::default();
        let mut events = bus.subscribe().await.expect("subscribed");
        commit_batch(&store, &bus, batch(), true, Duration::from_secs(5))
            .await
            .expect("written");
        let phases: Vec<(Phase, u64)> = [events.next().await, events.next().await]
            .into_iter()
            .map(|notice| match notice {
                Some(BusNotice::Event(event)) => (event.phase, event.revision),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(phases, [(Phase::Start, 0), (Phase::Finish, 1)]);
    }

    #[test]
    fn write_ids_never_repeat_in_a_process() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| next_write_id()).collect();
        assert_eq!(ids.len(), 1000);
    }
}
