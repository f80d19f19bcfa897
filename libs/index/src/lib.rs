//! The index: one file row per indexed file (with the layout core's classification and
//! the whitelisted frontmatter payload), chunk rows for search, the project revision
//! that every committed write raises, and the persisted sources.
//!
//! One trait, [`IndexStore`], two backends behind one SQL implementation: the embedded
//! store (SQLite, one file, no server; the default) and PostgreSQL (several sync
//! replicas on one store). Both pass the same conformance suite (`tests/conformance`).
#![forbid(unsafe_code)]

mod error;
mod pages;
mod prune;
pub mod query;
mod row;
mod source;
mod sql;
mod stored_flags;
pub mod vector;

pub use error::IndexError;
pub use pages::{ListedRow, PageBounds, RowPages};
pub use prune::Pruned;
pub use row::{
    ChunkHit, ChunkRow, FileRow, PLAIN_FILE, ProjectChanges, ProjectSnapshot, Removed, RowWrite,
    StoredFile, WriteBatch,
};
pub use source::{LeaseRow, ScopeKind, SourceKind, SourceRecord, SourceTurn, SyncStatus, room_for};
pub use sql::{EmbeddedSettings, SearchBudget, SqlIndexStore};

/// Where the index lives, whatever the backend.
#[async_trait::async_trait]
pub trait IndexStore: Send + Sync + 'static {
    /// Persists a new source; [`IndexError::AlreadyExists`] when the slug is taken in its project.
    async fn create_source(&self, source: &SourceRecord) -> Result<(), IndexError>;
    /// [`IndexStore::create_source`] while the project holds fewer than
    /// `max_in_project` sources, counted with the insert as one step: two creates at
    /// once never both take the last place. Past it, [`IndexError::LimitReached`].
    async fn create_source_within(
        &self,
        source: &SourceRecord,
        max_in_project: usize,
    ) -> Result<(), IndexError>;
    /// One source, or `None`.
    async fn get_source(
        &self,
        project: &str,
        slug: &str,
    ) -> Result<Option<SourceRecord>, IndexError>;
    /// The sources of one project, or of every project, ordered by project then slug.
    async fn list_sources(&self, project: Option<&str>) -> Result<Vec<SourceRecord>, IndexError>;
    /// Replaces a source's settings (not its status); [`IndexError::NotFound`] when absent.
    async fn update_source(&self, source: &SourceRecord) -> Result<(), IndexError>;
    /// Records the outcome of a sync run of the source record `source_id`;
    /// [`IndexError::NotFound`] when that record is gone (deleted, or deleted and created
    /// again under its slug: a new source never takes an old run's status).
    async fn record_status(
        &self,
        project: &str,
        slug: &str,
        source_id: &str,
        status: &SyncStatus,
    ) -> Result<(), IndexError>;
    /// Deletes a source and all its rows in one transaction. Returns the project's new
    /// revision when rows were deleted, `None` when it had none;
    /// [`IndexError::NotFound`] when the source does not exist.
    async fn delete_source(&self, project: &str, slug: &str) -> Result<Option<u64>, IndexError>;

    /// What replicas share to take turns at a source (its trigger, lease and due
    /// time); `None` when the source does not exist.
    async fn source_turn(
        &self,
        project: &str,
        slug: &str,
    ) -> Result<Option<SourceTurn>, IndexError>;
    /// Sets the source's lease to `next` if it still is `seen`; whether it was (of
    /// replicas that read the same lease, one wins).
    async fn swap_lease(
        &self,
        project: &str,
        slug: &str,
        seen: &LeaseRow,
        next: &LeaseRow,
    ) -> Result<bool, IndexError>;
    /// Sets the source's due time to `next` if it still is `seen`; whether it was.
    async fn swap_due(
        &self,
        project: &str,
        slug: &str,
        seen: i64,
        next: i64,
    ) -> Result<bool, IndexError>;

    /// The project's current revision (0 before its first write).
    async fn revision(&self, project: &str) -> Result<u64, IndexError>;
    /// The file rows of one source, ordered by path.
    async fn source_rows(&self, project: &str, source: &str) -> Result<Vec<FileRow>, IndexError>;
    /// Hands every file row of one source to `visit`, as a [`StoredFile`], as the rows
    /// arrive from the store: a sync compares a large source without holding its rows
    /// (or their payloads) all at once. Order unspecified.
    async fn visit_source_files(
        &self,
        project: &str,
        source: &str,
        visit: &mut (dyn FnMut(StoredFile) + Send),
    ) -> Result<(), IndexError> {
        for row in self.source_rows(project, source).await? {
            visit(StoredFile::of(row));
        }
        Ok(())
    }
    /// Every file row of a project with the revision they were read at, from one
    /// consistent snapshot; ordered by source then path.
    async fn project_rows(&self, project: &str) -> Result<ProjectSnapshot, IndexError>;
    /// The project's rows at one revision, in pages under `bounds` as they are read
    /// (ordered by source then path). A store without a paged reader reads them whole
    /// first.
    async fn project_pages(
        &self,
        project: &str,
        bounds: PageBounds,
    ) -> Result<RowPages, IndexError> {
        Ok(RowPages::of_snapshot(
            self.project_rows(project).await?,
            bounds,
        ))
    }
    /// The rows changed after revision `since`, tombstones included, from one
    /// consistent snapshot; `None` when the store cannot tell (a revision older than
    /// what it keeps changes for): the caller re-reads the project in full.
    async fn changes_since(
        &self,
        project: &str,
        since: u64,
    ) -> Result<Option<ProjectChanges>, IndexError> {
        let _ = (project, since);
        Ok(None)
    }
    /// Removes the project's tombstones written `keep` revisions or more before its
    /// current revision and raises its delta floor to the newest one removed (never
    /// lowers it), so `changes_since` from below the floor answers `None` and the reader
    /// re-reads in full; every delta from the floor or later stays exact. A store that
    /// keeps no tombstones prunes none.
    async fn prune_tombstones(&self, project: &str, keep: u64) -> Result<Pruned, IndexError> {
        let _ = (project, keep);
        Ok(Pruned::default())
    }
    /// One file row, or `None`.
    async fn file_row(
        &self,
        project: &str,
        source: &str,
        path: &str,
    ) -> Result<Option<FileRow>, IndexError>;
    /// Applies one batch in one transaction and raises the project's revision once;
    /// returns the new revision. On error nothing of the batch is applied. The store
    /// takes the batch: the embedded one hands it to its writer thread.
    async fn write_batch(&self, batch: WriteBatch) -> Result<u64, IndexError>;

    /// Full-text search over the project's chunks, best first.
    async fn search_text(
        &self,
        project: &str,
        query: &str,
        limit: u32,
    ) -> Result<Vec<ChunkHit>, IndexError>;
    /// Nearest chunks to `vector` by cosine similarity, best first.
    async fn search_vector(
        &self,
        project: &str,
        vector: &[f32],
        limit: u32,
    ) -> Result<Vec<ChunkHit>, IndexError>;
}
