//! The embedded store's batch writer: one SQLite connection, driven directly (rusqlite,
//! the same SQLite library sqlx links) on a thread of its own that takes batches in
//! the order they are handed to it.
//!
//! Why not sqlx here: a sync is bound by this one writer (SQLite has one), and through
//! sqlx a batch paid three costs the connection does not need. Every text value was
//! copied into an owned argument list on the async side before the worker copied it
//! again, so the next batch could not be bound while one committed; a batch of several
//! statements was one cached text, parsed whole (a few million instructions per
//! `VALUES` statement) each time a batch of a new shape came; and dropping the argument
//! lists freed every copy on the worker. Here the thread binds each value straight
//! from the batch's rows into a statement prepared once per connection
//! (`BENCHMARKS.md`, "Issue 13").
//!
//! A write the caller stops waiting for (a timeout drops its future) is abandoned: the
//! thread checks between statements and before `COMMIT`, and rolls the batch back. A
//! batch already committing commits, as it did through sqlx.

mod batch;

use crate::{IndexError, WriteBatch};
use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc;
use tokio::sync::oneshot;

/// The handle every clone of the store shares; the thread ends when the last goes.
#[derive(Debug)]
pub(crate) struct EmbeddedWriter {
    jobs: mpsc::Sender<Message>,
}

/// What the thread is asked.
enum Message {
    Write(Job),
    /// Close the connection and stop; answered once it is closed.
    Close(oneshot::Sender<()>),
}

/// One batch for the thread, and where its outcome goes (with the batch, which the
/// caller frees: a batch of thousands of rows takes a millisecond to free, time the
/// thread spends on the next batch instead).
struct Job {
    batch: WriteBatch,
    progress: Arc<Progress>,
    outcome: oneshot::Sender<(Result<u64, IndexError>, WriteBatch)>,
}

impl EmbeddedWriter {
    /// Opens the writer's connection to the store at `path` (already created and
    /// migrated) with `pragmas`, and starts its thread.
    pub(crate) async fn open(path: &Path, pragmas: Arc<str>) -> Result<Self, IndexError> {
        let path = path.to_owned();
        let connection = tokio::task::spawn_blocking(move || connect(&path, &pragmas))
            .await
            .map_err(|err| IndexError::Unavailable(format!("opening the writer: {err}")))??;
        let (jobs, queue) = mpsc::channel();
        std::thread::Builder::new()
            .name("index-writer".into())
            .spawn(move || serve(connection, queue))
            .map_err(|err| IndexError::Unavailable(format!("starting the writer: {err}")))?;
        Ok(Self { jobs })
    }

    /// Applies `batch` in one transaction; the new revision.
    pub(crate) async fn write(&self, batch: WriteBatch) -> Result<u64, IndexError> {
        // Refused before it queues: the thread only applies batches that are whole.
        batch::check(&batch)?;
        let progress = Arc::new(Progress::default());
        let (outcome, answer) = oneshot::channel();
        let job = Job {
            batch,
            progress: Arc::clone(&progress),
            outcome,
        };
        self.jobs.send(Message::Write(job)).map_err(|_| stopped())?;
        let _abandon_unless_answered = Abandon(&progress);
        let (outcome, batch) = answer.await.map_err(|_| stopped())?;
        free_elsewhere(batch);
        outcome
    }

    /// Closes the connection once the batches queued before are done; later writes
    /// fail as `Unavailable`.
    pub(crate) async fn close(&self) {
        let (closed, answer) = oneshot::channel();
        if self.jobs.send(Message::Close(closed)).is_ok() {
            // The thread answers after the connection is closed, or is gone already.
            let _ = answer.await;
        }
    }
}

/// Writes a batch holds at least before freeing it is worth a blocking task: a sync's
/// batches (thousands of rows, about a millisecond to free) go to one, a single-file
/// write is freed at once (the hand-over would cost more than the freeing).
const FREED_ASIDE_FROM: usize = 256;

/// Frees a written batch, a large one on a blocking thread: the caller goes on at once.
fn free_elsewhere(batch: WriteBatch) {
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) if batch.writes.len() >= FREED_ASIDE_FROM => {
            drop(runtime.spawn_blocking(move || drop(batch)));
        }
        _ => drop(batch),
    }
}

fn stopped() -> IndexError {
    IndexError::Unavailable("the embedded store's writer stopped".into())
}

fn connect(path: &Path, pragmas: &str) -> Result<Connection, IndexError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(path, flags)?;
    connection.execute_batch(pragmas)?;
    // Room for every statement a batch uses (see `batch.rs`), with a margin.
    connection.set_prepared_statement_cache_capacity(32);
    Ok(connection)
}

/// The thread: applies jobs one at a time, in order, until every handle is gone or one
/// asks it to close.
fn serve(mut connection: Connection, queue: mpsc::Receiver<Message>) {
    for message in queue {
        let job = match message {
            Message::Write(job) => job,
            Message::Close(closed) => {
                drop(connection);
                let _ = closed.send(());
                return;
            }
        };
        let outcome = if job.progress.start() {
            batch::apply(&mut connection, &job.batch, &job.progress)
        } else {
            Err(abandoned())
        };
        // A caller that stopped waiting gets nothing; its batch was rolled back.
        let _ = job.outcome.send((outcome, job.batch));
    }
}

fn abandoned() -> IndexError {
    IndexError::Unavailable("the write was abandoned before it committed".into())
}

/// Where a job stands, shared by the caller and the thread.
#[derive(Default)]
pub(super) struct Progress(AtomicU8);

const QUEUED: u8 = 0;
const WRITING: u8 = 1;
const COMMITTING: u8 = 2;
const ABANDONED: u8 = 3;

impl Progress {
    /// The thread takes the job, unless its caller is gone.
    fn start(&self) -> bool {
        self.advance(QUEUED, WRITING)
    }

    /// Between statements: stop when the caller is gone.
    fn still_wanted(&self) -> Result<(), IndexError> {
        if self.0.load(Ordering::Acquire) == ABANDONED {
            Err(abandoned())
        } else {
            Ok(())
        }
    }

    /// Right before `COMMIT`: from here the batch commits whatever the caller does.
    fn commit(&self) -> Result<(), IndexError> {
        if self.advance(WRITING, COMMITTING) {
            Ok(())
        } else {
            Err(abandoned())
        }
    }

    /// The caller stops waiting: a job not yet committing is rolled back.
    fn abandon(&self) {
        if !self.advance(QUEUED, ABANDONED) {
            self.advance(WRITING, ABANDONED);
        }
    }

    fn advance(&self, from: u8, to: u8) -> bool {
        self.0
            .compare_exchange(from, to, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

/// Abandons the job when the caller's future is dropped before its answer (after the
/// answer the job is committed or failed, and abandoning changes nothing).
struct Abandon<'a>(&'a Progress);

impl Drop for Abandon<'_> {
    fn drop(&mut self) {
        self.0.abandon();
    }
}

#[cfg(test)]
mod tests {
    use super::Progress;

    #[test]
    fn an_abandoned_job_never_starts_or_commits() {
        let queued = Progress::default();
        queued.abandon();
        assert!(!queued.start());

        let writing = Progress::default();
        assert!(writing.start());
        writing.abandon();
        assert!(writing.still_wanted().is_err());
        assert!(writing.commit().is_err());
    }

    #[test]
    fn a_committing_job_is_not_abandoned() {
        let progress = Progress::default();
        assert!(progress.start());
        assert!(progress.still_wanted().is_ok());
        assert!(progress.commit().is_ok());
        progress.abandon();
        assert!(progress.still_wanted().is_ok());
    }
}
