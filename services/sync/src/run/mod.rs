//! One sync run: list the source through its connector, plan against the index (stat
//! first, hash second), capture what changed, and commit it in transactional batches,
//! each announced on the bus when it could move a package.

mod batch;
mod prepare;

use crate::connector::{Connector, Skipped};
use crate::embedder::Embedder;
use crate::layout_rules::LayoutRules;
use crate::{SyncError, invalidation};
use neuralis_bus::InvalidationBus;
use neuralis_index::{FileRow, IndexStore, SourceRecord};
use neuralis_sync_core::{ChunkLimits, ExistingRow, ListedFile, plan_sync};
use std::collections::HashMap;
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
    let listing = blocking(Arc::clone(&connector), |c| c.list()).await??;
    let mut counters = Counters {
        files_seen: listing.files.len() as u64,
        files_skipped: listing.skipped.len() as u64,
        ..Counters::default()
    };
    let mut revision = deps.store.revision(&source.project).await?;
    report(updates, counters, listing.skipped, revision);

    let existing = deps
        .store
        .source_rows(&source.project, &source.slug)
        .await?;
    let plan = plan_for(deps, source, &listing.files, &existing);
    counters.files_unchanged = plan.unchanged as u64;
    let by_path: HashMap<&str, &FileRow> = existing.iter().map(|r| (r.path.as_str(), r)).collect();
    let stats: HashMap<&str, &crate::connector::FileStat> =
        listing.files.iter().map(|f| (f.path.as_str(), f)).collect();
    let prepared = prepare::prepare_all(deps, source, &connector, &plan, &stats, &by_path).await?;
    counters.bytes_read += prepared.bytes_read;
    counters.files_skipped += prepared.skipped.len() as u64;
    report(updates, counters, prepared.skipped.clone(), revision);

    let mut deletes = plan.delete;
    deletes.extend(prepared.vanished);
    let moves = batch::MovePredicate::new(
        deps.rules.as_ref(),
        source,
        &existing,
        &prepared.files,
        &deletes,
    );
    let batches = batch::plan_batches(&prepared.files, &deletes, &moves, deps.limits.batch_size);
    for planned in batches {
        let built = batch::build(deps, source, &connector, planned).await?;
        counters.bytes_read += built.bytes_read;
        let batch_revision = invalidation::commit_batch(
            deps.store.as_ref(),
            deps.bus.as_ref(),
            &built.batch,
            built.moves_package,
            deps.limits.write_timeout,
        )
        .await?;
        revision = batch_revision;
        counters.files_indexed += built.puts;
        counters.files_deleted += built.deletes;
        counters.chunks_written += built.batch.chunk_rows() as u64;
        counters.batches_committed += 1;
        counters.files_skipped += built.skipped.len() as u64;
        report(updates, counters, built.skipped, revision);
    }
    Ok(RunUpdate {
        counters,
        skipped: Vec::new(),
        revision,
    })
}

fn plan_for(
    deps: &RunDeps,
    source: &SourceRecord,
    files: &[crate::connector::FileStat],
    existing: &[FileRow],
) -> neuralis_sync_core::SyncPlan {
    let listed: Vec<ListedFile> = files
        .iter()
        .map(|f| ListedFile {
            path: f.path.clone(),
            size: f.size,
            modified: f.modified,
        })
        .collect();
    let rows: Vec<ExistingRow> = existing
        .iter()
        .map(|row| ExistingRow {
            path: row.path.clone(),
            size: row.size,
            modified: row.modified,
            content_hash: row.content_hash.clone(),
            payload_version: row.payload_version,
            privacy_owner: row.privacy_owner.clone(),
        })
        .collect();
    let rules = Arc::clone(&deps.rules);
    let patterns = source.privacy_patterns.clone();
    plan_sync(&listed, &rows, deps.rules.payload_version(), move |path| {
        rules.privacy_owner(path, &patterns)
    })
}

fn report(updates: &Updates, counters: Counters, skipped: Vec<Skipped>, revision: u64) {
    // A caller that stopped listening does not stop the sync.
    let _ = updates.send(RunUpdate {
        counters,
        skipped,
        revision,
    });
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

impl From<crate::connector::ConnectorError> for SyncError {
    fn from(err: crate::connector::ConnectorError) -> Self {
        match err {
            crate::connector::ConnectorError::NotFound => SyncError::NotFound("file".into()),
            crate::connector::ConnectorError::RootUnavailable(message) => {
                SyncError::Unavailable(format!("source root: {message}"))
            }
        }
    }
}
