//! A store wrapper that counts writes and fails them on demand.

use neuralis_index::RowWrite;
use neuralis_index::{
    ChunkHit, FileRow, IndexError, IndexStore, LeaseRow, ProjectChanges, ProjectSnapshot, Pruned,
    SourceRecord, SourceTurn, SyncStatus, WriteBatch,
};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

pub struct CountingStore {
    inner: Arc<dyn IndexStore>,
    pub fail_writes: AtomicBool,
    pub stall_writes: AtomicBool,
    pub batches: AtomicU64,
    pub rows_written: AtomicU64,
    pub chunk_rows_written: AtomicU64,
    /// Every batch written: its rows, and its paths' and chunk text's bytes.
    pub batch_shapes: Mutex<Vec<(usize, usize)>>,
    /// How long each write takes at least, in milliseconds (runs then overlap when
    /// nothing keeps them apart).
    pub write_delay_ms: AtomicU64,
    in_flight: AtomicU64,
    /// The most writes seen in progress at once.
    pub most_in_flight: AtomicU64,
}

/// Counts a write in progress until dropped.
struct InFlight<'a>(&'a AtomicU64);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl CountingStore {
    pub fn new(inner: Arc<dyn IndexStore>) -> Self {
        Self {
            inner,
            fail_writes: AtomicBool::new(false),
            stall_writes: AtomicBool::new(false),
            batches: AtomicU64::new(0),
            rows_written: AtomicU64::new(0),
            chunk_rows_written: AtomicU64::new(0),
            batch_shapes: Mutex::new(Vec::new()),
            write_delay_ms: AtomicU64::new(0),
            in_flight: AtomicU64::new(0),
            most_in_flight: AtomicU64::new(0),
        }
    }

    pub fn chunk_rows(&self) -> u64 {
        self.chunk_rows_written.load(Ordering::SeqCst)
    }
}

#[async_trait::async_trait]
impl IndexStore for CountingStore {
    async fn create_source(&self, source: &SourceRecord) -> Result<(), IndexError> {
        self.inner.create_source(source).await
    }
    async fn create_source_within(
        &self,
        source: &SourceRecord,
        max_in_project: usize,
    ) -> Result<(), IndexError> {
        self.inner
            .create_source_within(source, max_in_project)
            .await
    }
    async fn get_source(
        &self,
        project: &str,
        slug: &str,
    ) -> Result<Option<SourceRecord>, IndexError> {
        self.inner.get_source(project, slug).await
    }
    async fn list_sources(&self, project: Option<&str>) -> Result<Vec<SourceRecord>, IndexError> {
        self.inner.list_sources(project).await
    }
    async fn update_source(&self, source: &SourceRecord) -> Result<(), IndexError> {
        self.inner.update_source(source).await
    }
    async fn record_status(
        &self,
        project: &str,
        slug: &str,
        source_id: &str,
        status: &SyncStatus,
    ) -> Result<(), IndexError> {
        self.inner
            .record_status(project, slug, source_id, status)
            .await
    }
    async fn delete_source(&self, project: &str, slug: &str) -> Result<Option<u64>, IndexError> {
        self.inner.delete_source(project, slug).await
    }
    async fn source_turn(
        &self,
        project: &str,
        slug: &str,
    ) -> Result<Option<SourceTurn>, IndexError> {
        self.inner.source_turn(project, slug).await
    }
    async fn swap_lease(
        &self,
        project: &str,
        slug: &str,
        seen: &LeaseRow,
        next: &LeaseRow,
    ) -> Result<bool, IndexError> {
        self.inner.swap_lease(project, slug, seen, next).await
    }
    async fn swap_due(
        &self,
        project: &str,
        slug: &str,
        seen: i64,
        next: i64,
    ) -> Result<bool, IndexError> {
        self.inner.swap_due(project, slug, seen, next).await
    }
    async fn revision(&self, project: &str) -> Result<u64, IndexError> {
        self.inner.revision(project).await
    }
    async fn source_rows(&self, project: &str, source: &str) -> Result<Vec<FileRow>, IndexError> {
        self.inner.source_rows(project, source).await
    }
    async fn project_rows(&self, project: &str) -> Result<ProjectSnapshot, IndexError> {
        self.inner.project_rows(project).await
    }
    async fn changes_since(
        &self,
        project: &str,
        since: u64,
    ) -> Result<Option<ProjectChanges>, IndexError> {
        self.inner.changes_since(project, since).await
    }
    async fn prune_tombstones(&self, project: &str, keep: u64) -> Result<Pruned, IndexError> {
        self.inner.prune_tombstones(project, keep).await
    }
    async fn file_row(
        &self,
        project: &str,
        source: &str,
        path: &str,
    ) -> Result<Option<FileRow>, IndexError> {
        self.inner.file_row(project, source, path).await
    }
    async fn write_batch(&self, batch: WriteBatch) -> Result<u64, IndexError> {
        if self.fail_writes.load(Ordering::SeqCst) {
            return Err(IndexError::Unavailable("write failed on purpose".into()));
        }
        if self.stall_writes.load(Ordering::SeqCst) {
            // A backend that never answers: only the write timeout ends this.
            std::future::pending::<()>().await;
        }
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        let _in_flight = InFlight(&self.in_flight);
        self.most_in_flight.fetch_max(now, Ordering::SeqCst);
        let delay = self.write_delay_ms.load(Ordering::SeqCst);
        if delay > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
        }
        let (rows, chunk_rows) = (batch.writes.len() as u64, batch.chunk_rows() as u64);
        let shape = (
            batch.writes.len(),
            batch.writes.iter().map(text_bytes).sum(),
        );
        if let Ok(mut shapes) = self.batch_shapes.lock() {
            shapes.push(shape);
        }
        let revision = self.inner.write_batch(batch).await?;
        self.batches.fetch_add(1, Ordering::SeqCst);
        self.rows_written.fetch_add(rows, Ordering::SeqCst);
        self.chunk_rows_written
            .fetch_add(chunk_rows, Ordering::SeqCst);
        Ok(revision)
    }
    async fn search_text(
        &self,
        project: &str,
        query: &str,
        limit: u32,
    ) -> Result<Vec<ChunkHit>, IndexError> {
        self.inner.search_text(project, query, limit).await
    }
    async fn search_vector(
        &self,
        project: &str,
        vector: &[f32],
        limit: u32,
    ) -> Result<Vec<ChunkHit>, IndexError> {
        self.inner.search_vector(project, vector, limit).await
    }
}

/// A write's paths and chunk text: what `sync.batch_max_bytes` bounds.
fn text_bytes(write: &RowWrite) -> usize {
    match write {
        RowWrite::Delete { path } => path.len(),
        RowWrite::Put { row, chunks } => {
            row.path.len()
                + chunks
                    .iter()
                    .flatten()
                    .map(|chunk| chunk.body.len())
                    .sum::<usize>()
        }
    }
}
