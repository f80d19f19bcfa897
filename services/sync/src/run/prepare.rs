//! Preparing one file for the index, on a blocking thread: read it (only when the plan
//! must examine it), hash it, capture its payload and content flags and cut its chunks.
//! A payload-only refresh reads a file only when the layout core needs its content or
//! the content flags apply to it.

use super::RunDeps;
use crate::connector::{Connector, FileStat, SkipReason, Skipped};
use crate::layout_rules::LayoutRules;
use neuralis_index::{ChunkRow, FileRow, SourceRecord, StoredFile};
use neuralis_sync_core::{ChunkLimits, ExistingRow, FileAction, action_after_read, chunk_text};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One file to prepare.
pub struct Job {
    /// The file as listed.
    pub stat: ListedAt,
    /// Its stored row, when it has one (boxed: a new source's jobs, one per file, have
    /// none, and pay a pointer instead of the row's width).
    pub existing: Option<Box<StoredFile>>,
    /// Stat unchanged, payload stale: recapture the payload only.
    pub refresh_only: bool,
}

/// One file of the run's listing, shared rather than copied: a run of a new source
/// has a job per listed file.
#[derive(Clone)]
pub struct ListedAt {
    listing: Arc<[FileStat]>,
    at: usize,
}

impl ListedAt {
    /// The file at `at` of `listing` (in range: the survey makes them).
    pub fn new(listing: &Arc<[FileStat]>, at: usize) -> Self {
        Self {
            listing: Arc::clone(listing),
            at,
        }
    }
}

impl std::ops::Deref for ListedAt {
    type Target = FileStat;

    fn deref(&self) -> &FileStat {
        &self.listing[self.at]
    }
}

/// What a file's chunks become.
#[derive(Debug, Clone, PartialEq)]
pub enum ChunkPlan {
    /// Same content: the chunk rows stay as they are.
    Keep,
    /// New content: these chunks replace the stored ones.
    Ready(Vec<ChunkRow>),
    /// New content, not kept in memory: its batch reads the file again and chunks it.
    Reread,
}

/// One file ready to write.
#[derive(Debug, Clone)]
pub struct PreparedFile {
    /// The row to store.
    pub row: FileRow,
    /// What happens to its chunks.
    pub chunks: ChunkPlan,
}

/// What preparing one file gave.
pub enum Outcome {
    /// A row to write, and the bytes read for it.
    File(PreparedFile, u64),
    /// An indexed file that could not be read: its row is deleted.
    Vanished(String, Skipped),
    /// A new file that could not be read: reported, not indexed.
    Skipped(Skipped),
}

/// Everything prepared ahead of the writes (the content files).
#[derive(Default)]
pub struct Prepared {
    /// Rows to write, in listing order.
    pub files: Vec<PreparedFile>,
    /// Indexed files that vanished between the listing and the read.
    pub vanished: Vec<String>,
    /// What could not be read.
    pub skipped: Vec<Skipped>,
    /// Bytes read.
    pub bytes_read: u64,
}

/// Everything a blocking task needs to prepare files.
pub struct Context {
    pub(super) rules: Arc<dyn LayoutRules>,
    pub(super) connector: Arc<dyn Connector>,
    project: String,
    slug: String,
    patterns: Vec<String>,
    chunk_limits: ChunkLimits,
    /// The run's read-ahead bounds (`sync.read_ahead_bytes`, `read_ahead_files`).
    pub(super) read_ahead: (u64, usize),
    /// Bytes of chunks content files may still keep in memory (from
    /// `sync.content_retain_bytes`); past it, their batch reads them again.
    retain_budget: AtomicUsize,
}

impl Context {
    pub fn new(deps: &RunDeps, source: &SourceRecord, connector: &Arc<dyn Connector>) -> Self {
        Context {
            rules: Arc::clone(&deps.rules),
            connector: Arc::clone(connector),
            project: source.project.clone(),
            slug: source.slug.clone(),
            patterns: source.privacy_patterns.clone(),
            chunk_limits: deps.limits.chunks,
            read_ahead: (
                deps.limits.bounds.read_ahead_bytes,
                deps.limits.bounds.read_ahead_files,
            ),
            retain_budget: AtomicUsize::new(deps.limits.bounds.content_retain_bytes),
        }
    }

    /// Prepares one file. `retain` bounds the chunks kept in memory (content files,
    /// which wait for the package roots before any is written); streamed files go to
    /// the writer at once and always carry theirs.
    pub fn prepare(&self, job: Job, retain: bool) -> Outcome {
        let path = job.stat.path.as_str();
        let rules = self.rules.as_ref();
        // A file the flags do not apply to has none, so its refresh needs no read.
        if job.refresh_only && !rules.needs_content(path) && !flags_apply(path) {
            let hash = job
                .existing
                .as_ref()
                .map(|row| row.content_hash.clone())
                .unwrap_or_default();
            let row = self.row(&job.stat, hash, rules.capture(path, None), Vec::new());
            let file = PreparedFile {
                row,
                chunks: ChunkPlan::Keep,
            };
            return Outcome::File(file, 0);
        }
        let content = match self.connector.read_listed(&job.stat) {
            Ok(content) => content,
            Err(_) => return unreadable(job),
        };
        if rules.needs_content(path) && std::str::from_utf8(&content).is_err() {
            return not_utf8(job);
        }
        let hash = content_hash(&content);
        let action = self.action(&job, &hash);
        let captured = rules.capture(path, rules.needs_content(path).then_some(&content[..]));
        let mut stat = FileStat::clone(&job.stat);
        stat.size = content.len() as u64;
        let row = self.row(&stat, hash, captured, content_flags(path, &content));
        let chunks = match action {
            FileAction::Touch { .. } => ChunkPlan::Keep,
            FileAction::Insert | FileAction::Rewrite if retain && !self.retain(&content) => {
                ChunkPlan::Reread
            }
            FileAction::Insert | FileAction::Rewrite => {
                ChunkPlan::Ready(self.chunks(path, &content))
            }
        };
        Outcome::File(PreparedFile { row, chunks }, content.len() as u64)
    }

    fn action(&self, job: &Job, hash: &str) -> FileAction {
        let existing = job.existing.as_ref().map(|row| ExistingRow {
            path: row.path.clone(),
            size: row.size,
            modified: row.modified,
            content_hash: row.content_hash.clone(),
            payload_version: row.payload_version,
            privacy_owner: row.privacy_owner.clone(),
            real_path: row.real_path.clone(),
        });
        action_after_read(
            existing.as_ref(),
            hash,
            self.rules.payload_version(),
            |path| self.rules.privacy_owner(path, &self.patterns),
        )
    }

    /// Takes `content`'s size from the run's budget, when enough is left.
    fn retain(&self, content: &[u8]) -> bool {
        let size = content.len();
        self.retain_budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(size)
            })
            .is_ok()
    }

    fn chunks(&self, path: &str, content: &[u8]) -> Vec<ChunkRow> {
        chunks_of(self.rules.as_ref(), self.chunk_limits, path, content)
    }

    fn row(
        &self,
        stat: &FileStat,
        content_hash: String,
        captured: crate::layout_rules::Captured,
        content_flags: Vec<String>,
    ) -> FileRow {
        FileRow {
            project: self.project.clone(),
            source: self.slug.clone(),
            path: stat.path.clone(),
            content_hash,
            size: stat.size,
            modified: stat.modified,
            classification: captured.classification,
            payload: captured.payload,
            usable_manifest: captured.usable_manifest,
            privacy_owner: self.rules.privacy_owner(&stat.path, &self.patterns),
            payload_version: self.rules.payload_version(),
            real_path: stat.real_path.clone(),
            content_flags,
        }
    }
}

/// Whether the content flags apply to a file (`neuralis-content-flags` decides by path:
/// markdown and scripts).
fn flags_apply(path: &str) -> bool {
    neuralis_content_flags::is_checked(path)
}

/// The content flags of a file the sync just read (issue 10 item 6), as their stable
/// names; none for a file they do not apply to.
pub fn content_flags(path: &str, content: &[u8]) -> Vec<String> {
    if !flags_apply(path) {
        return Vec::new();
    }
    neuralis_content_flags::detect(path, content)
        .into_iter()
        .map(|flag| flag.name().to_owned())
        .collect()
}

/// Listed but unreadable now: an indexed file is treated as gone (its row is deleted),
/// a new one is skipped; both are reported.
fn unreadable(job: Job) -> Outcome {
    let skipped = Skipped {
        path: job.stat.path.clone(),
        reason: SkipReason::Unreadable,
        detail: "vanished or unreadable since it was listed".into(),
    };
    match job.existing {
        Some(_) => Outcome::Vanished(job.stat.path.clone(), skipped),
        None => Outcome::Skipped(skipped),
    }
}

/// A file the layout core reads whose content is not UTF-8 (DESIGN.md section 6:
/// "unreadable or non-UTF-8 files are skipped and reported in the sync run, never
/// indexed"): listing it as a contribution that no activation can read would make the
/// list and activation disagree, so it is handled like an unreadable file. Files the
/// layout core never reads (a skill's binary assets) stay indexed, without chunks.
fn not_utf8(job: Job) -> Outcome {
    let skipped = Skipped {
        path: job.stat.path.clone(),
        reason: SkipReason::NonUtf8Content,
        detail: "content is not UTF-8".into(),
    };
    match job.existing {
        Some(_) => Outcome::Vanished(job.stat.path.clone(), skipped),
        None => Outcome::Skipped(skipped),
    }
}

/// The chunks behind search. Text is chunked (markdown at its headings); content that
/// is not UTF-8, or holds a NUL byte, is binary to search and has none.
pub fn chunks_of(
    rules: &dyn LayoutRules,
    limits: ChunkLimits,
    path: &str,
    content: &[u8],
) -> Vec<ChunkRow> {
    let Ok(text) = std::str::from_utf8(content) else {
        return Vec::new();
    };
    if text.contains('\0') {
        return Vec::new();
    }
    chunk_text(text, rules.is_markdown(path), limits)
        .into_iter()
        .map(|chunk| ChunkRow {
            ordinal: chunk.ordinal,
            body: chunk.text,
            vector: None,
        })
        .collect()
}

/// SHA-256, lowercase hex: written once, in the connector, which checks reads by it.
pub use neuralis_connector::content_hash;
