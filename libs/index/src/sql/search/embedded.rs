//! Search on the embedded store, full text or nearest vectors, on connections of its own (rusqlite, the
//! same SQLite library sqlx links) under a work budget.
//!
//! Why not the shared sqlx pool: a SQLite statement runs on the connection's worker
//! thread to its end whatever happens to the future that asked for it, so a search
//! whose caller gave up kept its pool connection and its core; eight of them took the
//! pool from every sync, read and health probe (issue 25). Here every search runs on a
//! blocking thread with a progress handler that SQLite calls every
//! [`STEPS_PER_CHECK`] virtual-machine steps; it stops the statement when the caller
//! is gone (its future dropped: deadline passed or connection closed), when the
//! statement has used its step budget, or when its deadline has passed. The
//! connection then goes back to this searcher's own small pool, never the store's.

use super::{SQLITE_TEXT, SearchBudget, nearest};
use crate::{ChunkHit, IndexError};
use rusqlite::{Connection, OpenFlags, ffi::ErrorCode};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::Semaphore;

/// How often (in virtual-machine steps) SQLite asks whether to go on.
pub(crate) const STEPS_PER_CHECK: u64 = 100;

/// A search connection reads only; the pragmas the store's own connections use for
/// reading (`sql/mod.rs`), and `query_only` so it can never write.
const READ_PRAGMAS: &str = "PRAGMA query_only = ON; PRAGMA cache_size = -8192; \
     PRAGMA temp_store = MEMORY; PRAGMA busy_timeout = 1000";

/// The embedded store's searcher: at most `budget.connections` searches at once, each
/// on a connection of its own.
#[derive(Debug)]
pub(crate) struct EmbeddedSearch {
    path: PathBuf,
    budget: SearchBudget,
    slots: Arc<Semaphore>,
    idle: Arc<Mutex<Vec<Connection>>>,
}

/// What one search did: its hits and the virtual-machine steps it took (counted in
/// [`STEPS_PER_CHECK`] units; the measure the cost tests and benches read).
#[derive(Debug)]
pub(crate) struct Searched {
    pub hits: Vec<ChunkHit>,
    pub steps: u64,
}

/// What a search asks of the chunk rows.
#[derive(Debug, Clone)]
pub(crate) enum Plan {
    /// An FTS5 query already made of quoted literal terms.
    Text(String),
    /// The chunks whose stored vectors are nearest this one.
    Nearest(Vec<f32>),
}

/// Set when the caller's future is dropped before the search ended.
struct CallerGone(Arc<AtomicBool>);

impl Drop for CallerGone {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

impl EmbeddedSearch {
    pub(crate) fn new(path: &Path, budget: SearchBudget) -> Self {
        Self {
            path: path.to_owned(),
            slots: Arc::new(Semaphore::new(budget.connections.max(1))),
            budget,
            idle: Arc::default(),
        }
    }

    /// Closes every idle connection; searches asked from now on fail as `Unavailable`,
    /// and a running one closes its connection when it ends.
    pub(crate) fn close(&self) {
        self.slots.close();
        if let Ok(mut idle) = self.idle.lock() {
            idle.clear();
        }
    }

    /// A searcher of the same file with `budget` (and a pool of its own).
    pub(crate) fn with_budget(&self, budget: SearchBudget) -> Self {
        Self::new(&self.path, budget)
    }

    /// Runs `plan` over `project`'s chunks.
    pub(crate) async fn run(
        &self,
        project: &str,
        plan: Plan,
        limit: u32,
    ) -> Result<Searched, IndexError> {
        let gone = Arc::new(AtomicBool::new(false));
        let _stop_when_dropped = CallerGone(Arc::clone(&gone));
        self.run_until(project, plan, limit, gone).await
    }

    /// [`EmbeddedSearch::run`], stopped as soon as `gone` is set.
    async fn run_until(
        &self,
        project: &str,
        plan: Plan,
        limit: u32,
        gone: Arc<AtomicBool>,
    ) -> Result<Searched, IndexError> {
        let started = Instant::now();
        // Waiting for a connection counts against the deadline: a search that cannot
        // start in time gives its place up instead of queueing without bound.
        let slot = tokio::time::timeout(
            self.budget.deadline,
            Arc::clone(&self.slots).acquire_owned(),
        )
        .await
        .map_err(|_| IndexError::Exhausted("every search connection is busy".into()))?
        .map_err(|_| IndexError::Unavailable("the searcher is closed".into()))?;
        let job = Job {
            slots: Arc::clone(&self.slots),
            path: self.path.clone(),
            idle: Arc::clone(&self.idle),
            budget: self.budget,
            started,
            gone,
            project: project.to_owned(),
            plan,
            limit,
        };
        tokio::task::spawn_blocking(move || {
            // The slot is held until the statement has stopped, not until the caller
            // left: an abandoned search counts until its connection is free again.
            let _slot = slot;
            job.run()
        })
        .await
        .map_err(|err| IndexError::Backend(format!("the search thread failed: {err}")))?
    }
}

#[cfg(test)]
impl EmbeddedSearch {
    /// A search whose caller is gone before its first check.
    pub(crate) async fn run_abandoned_for_test(
        &self,
        project: &str,
        plan: Plan,
        limit: u32,
    ) -> Result<Searched, IndexError> {
        let gone = Arc::new(AtomicBool::new(true));
        self.run_until(project, plan, limit, gone).await
    }

    pub(crate) fn idle_connections(&self) -> usize {
        self.idle.lock().map(|idle| idle.len()).unwrap_or(0)
    }

    pub(crate) fn free_slots(&self) -> usize {
        self.slots.available_permits()
    }

    /// Every search slot, held until the answer is dropped.
    pub(crate) async fn take_every_slot_for_test(&self) -> tokio::sync::OwnedSemaphorePermit {
        let all = u32::try_from(self.budget.connections.max(1)).unwrap_or(u32::MAX);
        Arc::clone(&self.slots)
            .acquire_many_owned(all)
            .await
            .expect("the searcher is open")
    }
}

/// One search on a blocking thread.
struct Job {
    slots: Arc<Semaphore>,
    path: PathBuf,
    idle: Arc<Mutex<Vec<Connection>>>,
    budget: SearchBudget,
    started: Instant,
    gone: Arc<AtomicBool>,
    project: String,
    plan: Plan,
    limit: u32,
}

/// Why the progress handler stopped a statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    CallerGone,
    Budget,
}

impl Job {
    fn run(self) -> Result<Searched, IndexError> {
        let connection = match self.idle.lock().ok().and_then(|mut idle| idle.pop()) {
            Some(connection) => connection,
            None => connect(&self.path)?,
        };
        let checks = Arc::new(AtomicU64::new(0));
        let stopped = Arc::new(Mutex::new(None::<Stop>));
        install_budget(
            &connection,
            &self,
            Arc::clone(&checks),
            Arc::clone(&stopped),
        )?;
        let outcome = match &self.plan {
            Plan::Text(fts_query) => text(&connection, &self.project, fts_query, self.limit),
            Plan::Nearest(vector) => {
                nearest::scan_embedded(&connection, &self.project, vector, self.limit)
            }
        };
        connection.progress_handler(0, None::<fn() -> bool>)?;
        let steps = checks.load(Ordering::Acquire) * STEPS_PER_CHECK;
        // A closed searcher keeps no connection.
        if let (false, Ok(mut idle)) = (self.slots.is_closed(), self.idle.lock()) {
            idle.push(connection);
        }
        match outcome {
            Ok(hits) => Ok(Searched { hits, steps }),
            Err(err) if err.sqlite_error_code() == Some(ErrorCode::OperationInterrupted) => {
                let why = stopped.lock().ok().and_then(|why| *why);
                Err(match why {
                    Some(Stop::CallerGone) => {
                        IndexError::Unavailable("the search was abandoned by its caller".into())
                    }
                    _ => IndexError::Exhausted("the search used up its work budget".into()),
                })
            }
            Err(err) => Err(err.into()),
        }
    }
}

/// The progress handler: counts checks and stops the statement when the caller is
/// gone, the steps are spent or the deadline has passed.
fn install_budget(
    connection: &Connection,
    job: &Job,
    checks: Arc<AtomicU64>,
    stopped: Arc<Mutex<Option<Stop>>>,
) -> Result<(), IndexError> {
    let gone = Arc::clone(&job.gone);
    let (started, deadline) = (job.started, job.budget.deadline);
    let max_checks = job.budget.max_steps.div_ceil(STEPS_PER_CHECK);
    let handler = move || {
        let done = checks.fetch_add(1, Ordering::AcqRel) + 1;
        let why = if gone.load(Ordering::Acquire) {
            Some(Stop::CallerGone)
        } else if done > max_checks || started.elapsed() > deadline {
            Some(Stop::Budget)
        } else {
            None
        };
        if let (Some(why), Ok(mut slot)) = (why, stopped.lock()) {
            *slot = Some(why);
        }
        why.is_some()
    };
    let every = i32::try_from(STEPS_PER_CHECK).unwrap_or(i32::MAX);
    connection.progress_handler(every, Some(handler))?;
    Ok(())
}

fn text(
    connection: &Connection,
    project: &str,
    fts_query: &str,
    limit: u32,
) -> rusqlite::Result<Vec<ChunkHit>> {
    let mut statement = connection.prepare_cached(SQLITE_TEXT)?;
    let rows = statement.query_map(
        rusqlite::params![fts_query, project, i64::from(limit)],
        |row| {
            let ordinal: i64 = row.get(2)?;
            let score: f64 = row.get(4)?;
            Ok(ChunkHit {
                source: row.get(0)?,
                path: row.get(1)?,
                ordinal: u32::try_from(ordinal).unwrap_or(u32::MAX),
                body: row.get(3)?,
                score: score as f32,
            })
        },
    )?;
    rows.collect()
}

fn connect(path: &Path) -> Result<Connection, IndexError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(path, flags)?;
    connection.execute_batch(READ_PRAGMAS)?;
    Ok(connection)
}
