//! One sync run, as a pipeline:
//!
//! 1. **Survey**: list the source through its connector (a parallel walk) and compare
//!    the listing with the source's stored rows as they stream from the store (stat
//!    first); a run that finds nothing to do stops here, having read no content.
//! 2. **Content files**: the files whose bytes the layout core reads (manifests,
//!    contribution candidates) are read, hashed and captured first, in parallel: their
//!    payloads decide the package roots, and so which writes can move a package.
//! 3. **Everything else streams**: the remaining files are read, hashed and chunked by
//!    a few blocking tasks while one writer commits large batches, each in one
//!    transaction; batches that could move a package are announced on the bus, quiet
//!    ones publish nothing.

mod pipeline;
mod predicate;
mod prepare;
mod survey;
mod writer;

use crate::SyncError;
use crate::config::RunBounds;
use crate::connector::{Connector, SkipReason, Skipped};
use crate::embedder::Embedder;
use crate::layout_rules::LayoutRules;
use neuralis_bus::InvalidationBus;
use neuralis_index::{IndexStore, SourceRecord};
use neuralis_sync_core::ChunkLimits;
use std::sync::Arc;
use std::time::Duration;

/// What a run needs from the service.
#[derive(Clone)]
pub struct RunDeps {
    /// Where the rows go.
    pub store: Arc<dyn IndexStore>,
    /// Where invalidation events go.
    pub bus: Arc<dyn InvalidationBus>,
    /// The layout core's rules.
    pub rules: Arc<dyn LayoutRules>,
    /// Vectors for chunks, when configured.
    pub embedder: Option<Arc<dyn Embedder>>,
    /// Batch size, timeouts, chunk size.
    pub limits: RunLimits,
}

/// The tunables of a run.
#[derive(Debug, Clone, Copy)]
pub struct RunLimits {
    /// File rows per batch.
    pub batch_size: usize,
    /// The longest a batch may take.
    pub write_timeout: Duration,
    /// How chunks are cut.
    pub chunks: ChunkLimits,
    /// How many of a project's latest revisions keep their tombstones; `0`: all.
    pub tombstone_retention: u64,
    /// What the run holds in memory at most (batches, read-ahead, retained chunks).
    pub bounds: RunBounds,
}

/// The counters of a run so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Files the connector listed.
    pub files_seen: u64,
    /// Rows written (inserted, rewritten, stat or payload refreshed).
    pub files_indexed: u64,
    /// Rows left exactly as they were.
    pub files_unchanged: u64,
    /// Rows deleted.
    pub files_deleted: u64,
    /// Files skipped and reported.
    pub files_skipped: u64,
    /// Bytes read from the source.
    pub bytes_read: u64,
    /// Batches committed.
    pub batches_committed: u64,
    /// Chunk rows written.
    pub chunks_written: u64,
}

/// One progress step of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunUpdate {
    /// The counters so far.
    pub counters: Counters,
    /// Files skipped since the previous update.
    pub skipped: Vec<Skipped>,
    /// The project's revision after the last committed batch.
    pub revision: u64,
}

/// Where progress goes (a closed receiver only stops the reporting, not the run).
pub type Updates = tokio::sync::mpsc::UnboundedSender<RunUpdate>;

/// Runs one sync of `source`. On error the batches committed so far stay committed
/// (each is whole), and the failing one left nothing behind.
pub async fn run_sync(
    deps: &RunDeps,
    source: &SourceRecord,
    connector: Arc<dyn Connector>,
    updates: &Updates,
) -> Result<RunUpdate, SyncError> {
    let mut survey = survey::survey(deps, source, &connector).await?;
    let mut counters = Counters {
        files_seen: survey.files.len() as u64,
        files_skipped: survey.skipped.len() as u64,
        files_unchanged: survey.plan.unchanged as u64,
        ..Counters::default()
    };
    report(
        updates,
        counters,
        std::mem::take(&mut survey.skipped),
        survey.revision,
    );
    if survey.writes_nothing() {
        return Ok(RunUpdate {
            counters,
            skipped: Vec::new(),
            revision: survey.revision,
        });
    }
    let context = Arc::new(prepare::Context::new(deps, source, &connector));
    let (content_jobs, streamed_jobs) = survey.jobs(deps.rules.as_ref());
    // The other files start being read now, while the content files are read and the
    // package roots worked out: nothing is written before the predicate is known, and
    // the read-ahead bound holds what waits. An error drops them, which stops them.
    let recaptured = predicate::recaptured(&survey, &streamed_jobs);
    let streamed = pipeline::Readers::start(&context, streamed_jobs);
    let content = pipeline::prepare_all(&context, content_jobs).await?;
    counters.bytes_read += content.bytes_read;
    counters.files_skipped += content.skipped.len() as u64;
    report(updates, counters, content.skipped.clone(), survey.revision);

    let moves =
        predicate::MovePredicate::new(deps.rules.as_ref(), source, &survey, &content, &recaptured);
    let mut writer = writer::Writer::new(deps, source, &connector, moves, updates);
    writer.start_from(counters, survey.revision);
    let deletes = survey.plan.delete.drain(..).chain(content.vanished);
    let written = write_all(&mut writer, deletes, content.files, streamed).await;
    match written {
        Ok(()) => writer.finish().await,
        Err(err) => {
            writer.abandon().await;
            Err(err)
        }
    }
}

/// Hands every write of the run to `writer`: the deletes, the content files, then the
/// streamed files as they are read.
async fn write_all(
    writer: &mut writer::Writer<'_>,
    deletes: impl Iterator<Item = String>,
    content: Vec<prepare::PreparedFile>,
    streamed: pipeline::Readers,
) -> Result<(), SyncError> {
    for path in deletes {
        writer.delete(path).await?;
    }
    for file in content {
        writer.put(file).await?;
    }
    streamed.stream_into(writer).await
}

fn report(updates: &Updates, counters: Counters, skipped: Vec<Skipped>, revision: u64) {
    // A caller that stopped listening does not stop the sync.
    let _ = updates.send(RunUpdate {
        counters,
        skipped: reported(skipped),
        revision,
    });
}

/// The most skipped entries one progress message lists, and the most bytes of their
/// paths and details: the rest are counted in `files_skipped` only. A walk may leave
/// out up to `max_entries` entries, and listing them all made one message of up to
/// gigabytes, past what any client decodes (gRPC's default is 4 MiB).
pub(crate) const MAX_REPORTED_SKIPS: usize = 1_000;
const MAX_REPORTED_SKIP_BYTES: usize = 256 * 1024;

/// The first of `skipped` one message lists, and always where a walk limit stopped the
/// listing (it sorts among the rest by path, often last): a caller must learn that
/// the listing was cut, and the rows past the cut deleted.
fn reported(mut skipped: Vec<Skipped>) -> Vec<Skipped> {
    let mut bytes = 0;
    let listed = skipped
        .iter()
        .take(MAX_REPORTED_SKIPS)
        .take_while(|entry| {
            bytes += entry.path.len() + entry.detail.len();
            bytes <= MAX_REPORTED_SKIP_BYTES
        })
        .count();
    let stops: Vec<Skipped> = skipped
        .iter()
        .skip(listed)
        .filter(|entry| entry.reason == SkipReason::FileLimitReached)
        .cloned()
        .collect();
    skipped.truncate(listed);
    skipped.extend(stops);
    skipped
}

/// Runs blocking connector work off the async threads.
pub(crate) async fn blocking<T, F>(connector: Arc<dyn Connector>, work: F) -> Result<T, SyncError>
where
    T: Send + 'static,
    F: FnOnce(&dyn Connector) -> T + Send + 'static,
{
    tokio::task::spawn_blocking(move || work(connector.as_ref()))
        .await
        .map_err(|err| SyncError::Internal(format!("connector task: {err}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip(path: String, reason: SkipReason) -> Skipped {
        Skipped {
            path,
            reason,
            detail: String::new(),
        }
    }

    #[test]
    fn a_message_lists_at_most_its_bound_and_always_where_a_walk_limit_stopped() {
        let mut skipped: Vec<Skipped> = (0..1_500)
            .map(|at| skip(format!("links/l{at:04}"), SkipReason::Unreadable))
            .collect();
        skipped.push(skip("zz/past".into(), SkipReason::FileLimitReached));
        let listed = reported(skipped);
        assert_eq!(listed.len(), MAX_REPORTED_SKIPS + 1);
        assert_eq!(listed[0].path, "links/l0000");
        assert_eq!(
            listed.last().map(|entry| entry.reason),
            Some(SkipReason::FileLimitReached)
        );
    }

    #[test]
    fn a_message_lists_at_most_its_bytes_of_paths() {
        let long = "p".repeat(4_096);
        let skipped: Vec<Skipped> = (0..200)
            .map(|at| skip(format!("{long}{at}"), SkipReason::TooDeep))
            .collect();
        let listed = reported(skipped);
        let bytes: usize = listed.iter().map(|entry| entry.path.len()).sum();
        assert!(bytes <= MAX_REPORTED_SKIP_BYTES, "{bytes}");
        assert_eq!(listed.len(), MAX_REPORTED_SKIP_BYTES / 4_099);
    }
}
