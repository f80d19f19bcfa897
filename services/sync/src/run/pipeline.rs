//! The readers: files are prepared in groups by a few blocking tasks at once, in
//! listing order. Content files are collected (the package roots need all of them
//! before anything is written); every other file streams to the writer, which commits
//! batches while the next files are read.
//!
//! Memory stays bounded: a group is started only when the bytes it will read (known
//! from the listing) fit in the in-flight budget, and its share is given back when the
//! writer has taken its files.

use super::prepare::{Context, Job, Outcome, Prepared};
use super::writer::Writer;
use crate::SyncError;
use futures::StreamExt;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

/// Files per blocking task.
const FILES_PER_GROUP: usize = 64;
/// Bytes one group reads at most (a larger file makes a group of its own).
const BYTES_PER_GROUP: u64 = 4 * 1024 * 1024;
/// Blocking tasks reading at once.
const GROUPS_READING: usize = 4;
/// Bytes read but not yet taken by the writer, in KiB.
const IN_FLIGHT_KIB: u32 = 64 * 1024;
/// Groups prepared ahead of the writer.
const GROUPS_QUEUED: usize = 64;

/// A prepared group, holding its share of the in-flight budget.
type Group = Result<(Vec<Outcome>, OwnedSemaphorePermit), SyncError>;

/// Prepares every job and collects the outcomes.
pub async fn prepare_all(context: &Arc<Context>, jobs: Vec<Job>) -> Result<Prepared, SyncError> {
    let mut receiver = spawn_readers(context, jobs, true);
    let mut prepared = Prepared::default();
    while let Some(group) = receiver.recv().await {
        let (outcomes, _share) = group?;
        for outcome in outcomes {
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
    }
    Ok(prepared)
}

/// The streamed files' readers, started ahead of the writer: they read until the
/// read-ahead bound is full, and stop when dropped.
pub struct Readers(mpsc::Receiver<Group>);

impl Readers {
    /// Starts preparing `jobs`, in order.
    pub fn start(context: &Arc<Context>, jobs: Vec<Job>) -> Self {
        Self(spawn_readers(context, jobs, false))
    }

    /// Hands each outcome to `writer` as it comes.
    pub async fn stream_into(mut self, writer: &mut Writer<'_>) -> Result<(), SyncError> {
        while let Some(group) = self.0.recv().await {
            let (outcomes, share) = group?;
            for outcome in outcomes {
                writer.take(outcome).await?;
            }
            drop(share);
        }
        Ok(())
    }
}

/// Starts the readers; they stop early when the receiver is dropped.
fn spawn_readers(context: &Arc<Context>, jobs: Vec<Job>, retain: bool) -> mpsc::Receiver<Group> {
    let (sender, receiver) = mpsc::channel(GROUPS_QUEUED);
    let budget = Arc::new(Semaphore::new(IN_FLIGHT_KIB as usize));
    let context = Arc::clone(context);
    tokio::spawn(async move {
        let mut groups = futures::stream::iter(groups(jobs))
            .map(|group| read_group(Arc::clone(&context), Arc::clone(&budget), group, retain))
            .buffered(GROUPS_READING);
        while let Some(group) = groups.next().await {
            if sender.send(group).await.is_err() {
                break;
            }
        }
    });
    receiver
}

async fn read_group(
    context: Arc<Context>,
    budget: Arc<Semaphore>,
    group: Vec<Job>,
    retain: bool,
) -> Group {
    let bytes: u64 = group.iter().map(|job| job.stat.size).sum();
    let kib = u32::try_from(bytes / 1024 + 1)
        .unwrap_or(u32::MAX)
        .min(IN_FLIGHT_KIB);
    let share = budget
        .acquire_many_owned(kib)
        .await
        .map_err(|err| SyncError::Internal(format!("read budget: {err}")))?;
    let outcomes = tokio::task::spawn_blocking(move || {
        group
            .into_iter()
            .map(|job| context.prepare(job, retain))
            .collect::<Vec<_>>()
    })
    .await
    .map_err(|err| SyncError::Internal(format!("prepare task: {err}")))?;
    Ok((outcomes, share))
}

/// Cuts the jobs into groups of at most `FILES_PER_GROUP` files and about
/// `BYTES_PER_GROUP` bytes, keeping their order.
fn groups(jobs: Vec<Job>) -> Vec<Vec<Job>> {
    let mut groups: Vec<Vec<Job>> = Vec::new();
    let mut bytes = 0;
    for job in jobs {
        let full = groups.last().is_none_or(|group| {
            group.len() >= FILES_PER_GROUP || bytes + job.stat.size > BYTES_PER_GROUP
        });
        if full {
            groups.push(Vec::new());
            bytes = 0;
        }
        bytes += job.stat.size;
        if let Some(group) = groups.last_mut() {
            group.push(job);
        }
    }
    groups
}
