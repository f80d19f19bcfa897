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
    batch: &WriteBatch,
    moves_package: bool,
    timeout: Duration,
) -> Result<u64, SyncError> {
    if !moves_package {
        return write_within(store, batch, timeout).await;
    }
    let target = WriteTarget {
        project: &batch.project,
        source: &batch.source,
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
    batch: &WriteBatch,
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

    #[test]
    fn write_ids_never_repeat_in_a_process() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| next_write_id()).collect();
        assert_eq!(ids.len(), 1000);
    }
}
