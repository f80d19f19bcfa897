//! Reading, hashing and capturing the files a plan names, in parallel off the async
//! threads. Only files the plan must examine are read, and a payload-only refresh reads
//! a file only when the layout core needs its content.

use super::RunDeps;
use crate::SyncError;
use crate::connector::{Connector, FileStat, SkipReason, Skipped};
use crate::layout_rules::LayoutRules;
use futures::StreamExt;
use neuralis_index::{FileRow, SourceRecord};
use neuralis_sync_core::{ExistingRow, FileAction, SyncPlan, action_after_read};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Content kept in memory between capture and chunking, across the whole run; past
/// it, chunking reads the file again.
const RETAIN_BUDGET_BYTES: usize = 64 * 1024 * 1024;
/// Files per blocking task.
const FILES_PER_TASK: usize = 64;
/// Blocking tasks in flight.
const TASKS_IN_FLIGHT: usize = 4;

/// What a file's chunks become.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkPlan {
    /// Same content: the chunk rows stay as they are.
    Keep,
    /// New content: replace the chunk rows (bytes kept in memory, or `None` to reread).
    Replace(Option<Vec<u8>>),
}

/// One file ready to write.
#[derive(Debug, Clone)]
pub struct PreparedFile {
    /// The row to store.
    pub row: FileRow,
    /// What happens to its chunks.
    pub chunks: ChunkPlan,
}

/// Everything prepared for a run.
#[derive(Debug, Default)]
pub struct Prepared {
    /// Rows to write, in plan order.
    pub files: Vec<PreparedFile>,
    /// Indexed files that vanished between the listing and the read.
    pub vanished: Vec<String>,
    /// What could not be read.
    pub skipped: Vec<Skipped>,
    /// Bytes read.
    pub bytes_read: u64,
}

/// One file to prepare, with everything the blocking task needs.
struct Job {
    stat: FileStat,
    existing: Option<FileRow>,
    refresh_only: bool,
}

enum Outcome {
    File(PreparedFile, u64),
    Vanished(String, Skipped),
    Skipped(Skipped),
}

/// Prepares every examined and refreshed file of `plan`.
pub async fn prepare_all(
    deps: &RunDeps,
    source: &SourceRecord,
    connector: &Arc<dyn Connector>,
    plan: &SyncPlan,
    stats: &HashMap<&str, &FileStat>,
    existing: &HashMap<&str, &FileRow>,
) -> Result<Prepared, SyncError> {
    let examine = plan.examine.iter().map(|path| (path, false));
    let refresh = plan.refresh_payload.iter().map(|path| (path, true));
    let jobs: Vec<Job> = examine
        .chain(refresh)
        .filter_map(|(path, refresh_only)| {
            let stat = (*stats.get(path.as_str())?).clone();
            let existing = existing.get(path.as_str()).map(|row| (*row).clone());
            Some(Job {
                stat,
                existing,
                refresh_only,
            })
        })
        .collect();
    let budget = Arc::new(AtomicUsize::new(RETAIN_BUDGET_BYTES));
    let mut groups = futures::stream::iter(chunked(jobs))
        .map(|group| {
            let context = Context {
                rules: Arc::clone(&deps.rules),
                connector: Arc::clone(connector),
                source: source.clone(),
                budget: Arc::clone(&budget),
            };
            tokio::task::spawn_blocking(move || {
                group
                    .into_iter()
                    .map(|job| context.prepare(job))
                    .collect::<Vec<_>>()
            })
        })
        .buffered(TASKS_IN_FLIGHT);
    let mut prepared = Prepared::default();
    while let Some(group) = groups.next().await {
        let outcomes = group.map_err(|err| SyncError::Internal(format!("prepare task: {err}")))?;
        for outcome in outcomes {
            collect(&mut prepared, outcome);
        }
    }
    Ok(prepared)
}

fn chunked(jobs: Vec<Job>) -> Vec<Vec<Job>> {
    let mut groups = Vec::new();
    let mut jobs = jobs.into_iter().peekable();
    while jobs.peek().is_some() {
        groups.push(jobs.by_ref().take(FILES_PER_TASK).collect());
    }
    groups
}

fn collect(prepared: &mut Prepared, outcome: Outcome) {
    match outcome {
        Outcome::File(file, bytes) => {
            prepared.bytes_read += bytes;
            prepared.files.push(file);
        }
        Outcome::Vanished(path, skipped) => {
            prepared.vanished.push(path);
            prepared.skipped.push(skipped);
        }
        Outcome::Skipped(skipped) => prepared.skipped.push(skipped),
    }
}

/// What a blocking task holds.
struct Context {
    rules: Arc<dyn LayoutRules>,
    connector: Arc<dyn Connector>,
    source: SourceRecord,
    budget: Arc<AtomicUsize>,
}

impl Context {
    fn prepare(&self, job: Job) -> Outcome {
        let path = job.stat.path.as_str();
        if job.refresh_only && !self.rules.needs_content(path) {
            let hash = job
                .existing
                .as_ref()
                .map(|row| row.content_hash.clone())
                .unwrap_or_default();
            let row = self.row(&job.stat, hash, self.rules.capture(path, None));
            return Outcome::File(
                PreparedFile {
                    row,
                    chunks: ChunkPlan::Keep,
                },
                0,
            );
        }
        let content = match self.connector.read(path) {
            Ok(content) => content,
            Err(_) => return self.unreadable(job),
        };
        let hash = content_hash(&content);
        let action = self.action(&job, &hash);
        let captured = self
            .rules
            .capture(path, self.rules.needs_content(path).then_some(&content[..]));
        let bytes = content.len() as u64;
        let mut stat = job.stat.clone();
        stat.size = bytes;
        let row = self.row(&stat, hash, captured);
        let chunks = match action {
            FileAction::Insert | FileAction::Rewrite => ChunkPlan::Replace(self.retain(content)),
            FileAction::Touch { .. } => ChunkPlan::Keep,
        };
        Outcome::File(PreparedFile { row, chunks }, bytes)
    }

    fn action(&self, job: &Job, hash: &str) -> FileAction {
        let existing = job.existing.as_ref().map(|row| ExistingRow {
            path: row.path.clone(),
            size: row.size,
            modified: row.modified,
            content_hash: row.content_hash.clone(),
            payload_version: row.payload_version,
            privacy_owner: row.privacy_owner.clone(),
        });
        let patterns = &self.source.privacy_patterns;
        action_after_read(
            existing.as_ref(),
            hash,
            self.rules.payload_version(),
            |path| self.rules.privacy_owner(path, patterns),
        )
    }

    /// Keeps the bytes for chunking while the run's budget lasts.
    fn retain(&self, content: Vec<u8>) -> Option<Vec<u8>> {
        let size = content.len();
        let taken = self
            .budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(size)
            });
        taken.is_ok().then_some(content)
    }

    fn row(
        &self,
        stat: &FileStat,
        content_hash: String,
        captured: crate::layout_rules::Captured,
    ) -> FileRow {
        FileRow {
            project: self.source.project.clone(),
            source: self.source.slug.clone(),
            path: stat.path.clone(),
            content_hash,
            size: stat.size,
            modified: stat.modified,
            classification: captured.classification,
            payload: captured.payload,
            usable_manifest: captured.usable_manifest,
            privacy_owner: self
                .rules
                .privacy_owner(&stat.path, &self.source.privacy_patterns),
            payload_version: self.rules.payload_version(),
        }
    }

    /// Listed but unreadable now: an indexed file is treated as gone (its row is
    /// deleted), a new one is skipped; both are reported.
    fn unreadable(&self, job: Job) -> Outcome {
        let skipped = Skipped {
            path: job.stat.path.clone(),
            reason: SkipReason::Unreadable,
            detail: "vanished or unreadable since it was listed".into(),
        };
        match job.existing {
            Some(_) => Outcome::Vanished(job.stat.path, skipped),
            None => Outcome::Skipped(skipped),
        }
    }
}

/// SHA-256, lowercase hex.
pub fn content_hash(content: &[u8]) -> String {
    hex::encode(Sha256::digest(content))
}
