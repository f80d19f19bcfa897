//! The readers: files are prepared in groups by a few blocking tasks at once, in
//! listing order. Content files are collected (the package roots need all of them
//! before anything is written); every other file streams to the writer, which commits
//! batches while the next files are read.
//!
//! Memory stays bounded by configuration: a group is started only when its files
//! (`sync.read_ahead_files`) and the bytes it will read (known from the listing;
//! `sync.read_ahead_bytes`) fit in what is left of the read-ahead, and its share is
//! given back when the writer has taken its files.

use super::prepare::{Context, Job, Outcome, Prepared};
use super::writer::Writer;
use crate::SyncError;
use futures::StreamExt;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

/// Files per blocking task, at most.
const FILES_PER_GROUP: usize = 64;
/// Bytes one group reads at most (a larger file makes a group of its own).
const BYTES_PER_GROUP: u64 = 4 * 1024 * 1024;
/// Blocking tasks reading at once.
const GROUPS_READING: usize = 4;

/// A prepared group, holding its share of the read-ahead.
type Group = Result<(Vec<Outcome>, Share), SyncError>;

/// What is read ahead of the writer: KiB of content and files, each a semaphore.
#[derive(Clone)]
struct ReadAhead {
    kib: Arc<Semaphore>,
    files: Arc<Semaphore>,
    max_kib: u32,
    max_files: u32,
}

/// A group's share of the read-ahead, given back when dropped.
pub struct Share {
    _kib: OwnedSemaphorePermit,
    _files: OwnedSemaphorePermit,
}

impl ReadAhead {
    fn new((bytes, files): (u64, usize)) -> Self {
        // The semaphores count in u32 steps: KiB of content, files.
        let max_kib = u32::try_from(bytes.div_ceil(1024))
            .unwrap_or(u32::MAX)
            .max(1);
        let max_files = u32::try_from(files).unwrap_or(u32::MAX).max(1);
        Self {
            kib: Arc::new(Semaphore::new(max_kib as usize)),
            files: Arc::new(Semaphore::new(max_files as usize)),
            max_kib,
            max_files,
        }
    }

    /// Waits until `files` files of `bytes` bytes fit (a group larger than the whole
    /// bound waits for all of it, and then reads alone).
    async fn share(&self, files: usize, bytes: u64) -> Result<Share, SyncError> {
        let kib = u32::try_from(bytes.div_ceil(1024)).unwrap_or(u32::MAX);
        let files = u32::try_from(files).unwrap_or(u32::MAX);
        let closed = |err| SyncError::Internal(format!("read-ahead: {err}"));
        let kib = Arc::clone(&self.kib)
            .acquire_many_owned(kib.clamp(1, self.max_kib))
            .await
            .map_err(closed)?;
        let files = Arc::clone(&self.files)
            .acquire_many_owned(files.clamp(1, self.max_files))
            .await
            .map_err(closed)?;
        Ok(Share {
            _kib: kib,
            _files: files,
        })
    }
}

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
    let read_ahead = ReadAhead::new(context.read_ahead);
    // The read-ahead bounds the queue; the channel only needs room for every group the
    // bound lets through.
    let files_per_group = FILES_PER_GROUP.min(read_ahead.max_files as usize);
    let (sender, receiver) = mpsc::channel(read_ahead.max_files as usize / files_per_group + 1);
    let context = Arc::clone(context);
    tokio::spawn(async move {
        let mut groups = futures::stream::iter(groups(jobs, files_per_group))
            .map(|group| read_group(Arc::clone(&context), read_ahead.clone(), group, retain))
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
    read_ahead: ReadAhead,
    group: Vec<Job>,
    retain: bool,
) -> Group {
    let bytes: u64 = group.iter().map(|job| job.stat.size).sum();
    let share = read_ahead.share(group.len(), bytes).await?;
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

/// Cuts the jobs into groups of at most `files_per_group` files and about
/// `BYTES_PER_GROUP` bytes, keeping their order.
fn groups(jobs: Vec<Job>, files_per_group: usize) -> Vec<Vec<Job>> {
    let mut groups: Vec<Vec<Job>> = Vec::new();
    let mut bytes = 0;
    for job in jobs {
        let full = groups.last().is_none_or(|group| {
            group.len() >= files_per_group || bytes + job.stat.size > BYTES_PER_GROUP
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connector::FileStat;
    use crate::run::prepare::ListedAt;
    use futures::FutureExt;

    fn job(path: &str, size: u64) -> Job {
        let listing: Arc<[FileStat]> = Arc::new([FileStat {
            path: path.into(),
            size,
            modified: 0,
            identity: None,
            real_path: None,
        }]);
        Job {
            stat: ListedAt::new(&listing, 0),
            existing: None,
            refresh_only: false,
        }
    }

    #[test]
    fn the_read_ahead_holds_no_more_files_than_its_bound() {
        let read_ahead = ReadAhead::new((1 << 30, 100));
        let first = read_ahead.share(64, 10).now_or_never();
        let first = first.expect("fits").expect("open");
        assert!(read_ahead.share(64, 10).now_or_never().is_none());
        drop(first);
        assert!(read_ahead.share(64, 10).now_or_never().is_some());
    }

    #[test]
    fn the_read_ahead_holds_no_more_bytes_than_its_bound() {
        let read_ahead = ReadAhead::new((1 << 20, 10_000));
        let first = read_ahead.share(1, 700 * 1024).now_or_never();
        let first = first.expect("fits").expect("open");
        assert!(read_ahead.share(1, 400 * 1024).now_or_never().is_none());
        drop(first);
        // A file larger than the whole bound still reads, alone.
        assert!(read_ahead.share(1, 8 << 20).now_or_never().is_some());
    }

    #[test]
    fn a_group_never_holds_more_files_than_the_read_ahead() {
        let jobs = (0..100).map(|n| job(&format!("f{n}"), 10)).collect();
        let groups = groups(jobs, 16);
        assert!(groups.iter().all(|group| group.len() <= 16));
        assert_eq!(groups.iter().map(Vec::len).sum::<usize>(), 100);
    }
}
