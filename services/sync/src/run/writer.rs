//! The one writer of a run: it gathers prepared files and deletes into two open batches,
//! one for writes that could move a package and one for quiet writes, and commits a
//! batch when it is full, each in one transaction: `sync.batch_size` rows, or
//! `sync.batch_max_bytes` of paths and chunk text (a write that would pass the bytes
//! closes the batch before it; a single larger one makes a batch of its own).
//! Moving batches are announced on the bus (`start`, then `finish` or `failed`); quiet
//! batches publish nothing (DESIGN.md section 3).
//!
//! One commit is in flight at a time, on a task of its own, while the next batch fills:
//! the store writes while the readers read. Commits stay in order, and the first that
//! fails ends the run before another begins.

use super::predicate::MovePredicate;
use super::prepare::{ChunkPlan, Outcome, PreparedFile, chunks_of, content_hash};
use super::{Counters, RunDeps, RunUpdate, Updates, blocking, report};
use crate::connector::{Connector, SkipReason, Skipped};
use crate::layout_rules::LayoutRules;
use crate::{SyncError, invalidation};
use neuralis_index::{ChunkRow, FileRow, RowWrite, SourceRecord, WriteBatch};
use std::sync::Arc;

/// Texts per embeddings request.
const TEXTS_PER_EMBED_CALL: usize = 64;

/// A batch being filled.
#[derive(Default)]
struct OpenBatch {
    writes: Vec<RowWrite>,
    puts: u64,
    deletes: u64,
    /// Paths and chunk text, as [`bytes_of`] counts them.
    bytes: usize,
}

impl OpenBatch {
    fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }
}

/// The commit under way, and what it will add to the counters.
struct InFlight {
    commit: tokio::task::JoinHandle<Result<u64, SyncError>>,
    puts: u64,
    deletes: u64,
    chunks: u64,
}

/// Commits a run's writes.
pub struct Writer<'a> {
    deps: &'a RunDeps,
    source: &'a SourceRecord,
    connector: &'a Arc<dyn Connector>,
    moves: MovePredicate,
    moving: OpenBatch,
    quiet: OpenBatch,
    counters: Counters,
    revision: u64,
    /// Skipped since the last report.
    skipped: Vec<Skipped>,
    in_flight: Option<InFlight>,
    updates: &'a Updates,
}

impl<'a> Writer<'a> {
    pub fn new(
        deps: &'a RunDeps,
        source: &'a SourceRecord,
        connector: &'a Arc<dyn Connector>,
        moves: MovePredicate,
        updates: &'a Updates,
    ) -> Self {
        Writer {
            deps,
            source,
            connector,
            moves,
            moving: OpenBatch::default(),
            quiet: OpenBatch::default(),
            counters: Counters::default(),
            revision: 0,
            skipped: Vec::new(),
            in_flight: None,
            updates,
        }
    }

    /// Continues from the counters and revision of the run so far.
    pub fn start_from(&mut self, counters: Counters, revision: u64) {
        self.counters = counters;
        self.revision = revision;
    }

    /// Takes one streamed outcome.
    pub async fn take(&mut self, outcome: Outcome) -> Result<(), SyncError> {
        match outcome {
            Outcome::File(file, bytes) => {
                self.counters.bytes_read += bytes;
                self.put(file).await
            }
            Outcome::Vanished(path, skipped) => {
                self.skip(skipped);
                self.delete(path).await
            }
            Outcome::Skipped(skipped) => {
                self.skip(skipped);
                Ok(())
            }
        }
    }

    /// Deletes a path's row and chunks.
    pub async fn delete(&mut self, path: String) -> Result<(), SyncError> {
        let moving = self.moves.moves(&path);
        self.push(moving, RowWrite::Delete { path }).await
    }

    /// Stores a prepared row (and its chunks).
    pub async fn put(&mut self, file: PreparedFile) -> Result<(), SyncError> {
        let PreparedFile { mut row, chunks } = file;
        let chunks = match chunks {
            ChunkPlan::Keep => None,
            ChunkPlan::Ready(chunks) => Some(chunks),
            ChunkPlan::Reread => match self.reread(&mut row).await? {
                Some(chunks) => Some(chunks),
                None => return self.delete(row.path).await,
            },
        };
        let moving = self.moves.moves(&row.path);
        self.push(moving, RowWrite::Put { row, chunks }).await
    }

    /// Commits what is left (moving writes first) and gives the run's last update.
    pub async fn finish(mut self) -> Result<RunUpdate, SyncError> {
        self.commit(true).await?;
        self.commit(false).await?;
        self.settle().await?;
        if !self.skipped.is_empty() {
            report(
                self.updates,
                self.counters,
                std::mem::take(&mut self.skipped),
                self.revision,
            );
        }
        Ok(RunUpdate {
            counters: self.counters,
            skipped: Vec::new(),
            revision: self.revision,
        })
    }

    /// Waits for the commit under way, whatever its outcome, when the run ends early:
    /// no write of the run outlives it.
    pub async fn abandon(mut self) {
        if let Some(flight) = self.in_flight.take() {
            let _ = flight.commit.await;
        }
    }

    fn skip(&mut self, skipped: Skipped) {
        self.counters.files_skipped += 1;
        self.skipped.push(skipped);
    }

    fn open(&mut self, moving: bool) -> &mut OpenBatch {
        if moving {
            &mut self.moving
        } else {
            &mut self.quiet
        }
    }

    /// Adds a write to the open batch of its kind, committing that batch first when the
    /// write would take it past its bytes, and after when it is full.
    async fn push(&mut self, moving: bool, write: RowWrite) -> Result<(), SyncError> {
        let rows = self.deps.limits.batch_size.max(1);
        let max_bytes = self.deps.limits.bounds.batch_bytes;
        let bytes = bytes_of(&write);
        let batch = self.open(moving);
        if !batch.is_empty() && batch.bytes + bytes > max_bytes {
            self.commit(moving).await?;
        }
        let batch = self.open(moving);
        match write {
            RowWrite::Put { .. } => batch.puts += 1,
            RowWrite::Delete { .. } => batch.deletes += 1,
        }
        batch.bytes += bytes;
        batch.writes.push(write);
        if batch.writes.len() >= rows || batch.bytes >= max_bytes {
            self.commit(moving).await?;
        }
        Ok(())
    }

    /// Starts committing the open batch of its kind, once the previous commit is done.
    async fn commit(&mut self, moving: bool) -> Result<(), SyncError> {
        let open = std::mem::take(self.open(moving));
        if open.is_empty() {
            return Ok(());
        }
        self.settle().await?;
        let mut batch = WriteBatch {
            project: self.source.project.clone(),
            source: self.source.slug.clone(),
            source_id: Some(self.source.id.clone()),
            writes: open.writes,
        };
        let chunks = batch.chunk_rows() as u64;
        let deps = self.deps.clone();
        let commit = tokio::spawn(async move {
            embed(&deps, &mut batch).await?;
            let timeout = deps.limits.write_timeout;
            invalidation::commit_batch(
                deps.store.as_ref(),
                deps.bus.as_ref(),
                batch,
                moving,
                timeout,
            )
            .await
        });
        self.in_flight = Some(InFlight {
            commit,
            puts: open.puts,
            deletes: open.deletes,
            chunks,
        });
        Ok(())
    }

    /// Waits for the commit under way and counts it.
    async fn settle(&mut self) -> Result<(), SyncError> {
        let Some(flight) = self.in_flight.take() else {
            return Ok(());
        };
        self.revision = flight
            .commit
            .await
            .map_err(|err| SyncError::Internal(format!("commit task: {err}")))??;
        self.counters.files_indexed += flight.puts;
        self.counters.files_deleted += flight.deletes;
        self.counters.chunks_written += flight.chunks;
        self.counters.batches_committed += 1;
        let skipped = std::mem::take(&mut self.skipped);
        report(self.updates, self.counters, skipped, self.revision);
        Ok(())
    }

    /// Reads a content file again to chunk it (its chunks were not kept); `None` when
    /// it is gone, which deletes its row.
    async fn reread(&mut self, row: &mut FileRow) -> Result<Option<Vec<ChunkRow>>, SyncError> {
        let path = row.path.clone();
        match blocking(Arc::clone(self.connector), move |c| c.read(&path)).await? {
            Ok(content) => {
                self.counters.bytes_read += content.len() as u64;
                refresh_if_changed(self.deps.rules.as_ref(), row, &content);
                let rules = self.deps.rules.as_ref();
                let chunks = chunks_of(rules, self.deps.limits.chunks, &row.path, &content);
                Ok(Some(chunks))
            }
            Err(_) => {
                self.skip(Skipped {
                    path: row.path.clone(),
                    reason: SkipReason::Unreadable,
                    detail: "vanished before it was chunked".into(),
                });
                Ok(None)
            }
        }
    }
}

/// What a write adds to its batch's bytes: its path and its chunks' text, what grows
/// with the files (a row's other columns are a few fixed-size values, bounded by the
/// row count).
fn bytes_of(write: &RowWrite) -> usize {
    match write {
        RowWrite::Delete { path } => path.len(),
        RowWrite::Put { row, chunks } => {
            let text = chunks.iter().flatten().map(|chunk| chunk.body.len());
            row.path.len() + text.sum::<usize>()
        }
    }
}

/// Changed again since it was prepared: the row must describe the bytes chunked.
fn refresh_if_changed(rules: &dyn LayoutRules, row: &mut FileRow, content: &[u8]) {
    let hash = content_hash(content);
    if hash == row.content_hash {
        return;
    }
    let captured = rules.capture(&row.path, rules.needs_content(&row.path).then_some(content));
    row.content_hash = hash;
    row.size = content.len() as u64;
    row.classification = captured.classification;
    row.payload = captured.payload;
    row.usable_manifest = captured.usable_manifest;
}

async fn embed(deps: &RunDeps, batch: &mut WriteBatch) -> Result<(), SyncError> {
    let Some(embedder) = &deps.embedder else {
        return Ok(());
    };
    let mut chunks: Vec<&mut ChunkRow> = batch
        .writes
        .iter_mut()
        .filter_map(|write| match write {
            RowWrite::Put {
                chunks: Some(chunks),
                ..
            } => Some(chunks.iter_mut()),
            _ => None,
        })
        .flatten()
        .collect();
    for group in chunks.chunks_mut(TEXTS_PER_EMBED_CALL) {
        let texts: Vec<String> = group.iter().map(|chunk| chunk.body.clone()).collect();
        let vectors = embedder.embed(&texts).await?;
        for (chunk, vector) in group.iter_mut().zip(vectors) {
            chunk.vector = Some(vector);
        }
    }
    Ok(())
}
