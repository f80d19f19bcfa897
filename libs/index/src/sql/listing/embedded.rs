//! The embedded store's paged read: one read transaction on a connection of its own,
//! on a blocking thread, rows decoded straight from SQLite's values.

use super::{Pager, ROWS};
use crate::IndexError;
use crate::pages::{ListedRow, PAGES_AHEAD, PageBounds, PageFill, RowPages};
use crate::sql::codec::{corrupt, decode_flags, to_u32, to_u64};
use neuralis_blocking_read::Rows;
use rusqlite::{Connection, OpenFlags, OptionalExtension, Row};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::{Semaphore, mpsc, oneshot};

/// A listing connection only reads, each row once, in the order of the rows' index: past
/// the index's inner pages a page cache serves nothing twice, and the connection is
/// kept between listings with what it cached (2 MiB, not the 8 MiB it was: issue 31's
/// peak memory).
const READ_PRAGMAS: &str = "PRAGMA query_only = ON; PRAGMA cache_size = -2048; \
     PRAGMA temp_store = MEMORY; PRAGMA busy_timeout = 10000";

/// Listings run at once: each holds a connection and a blocking thread for as long
/// as its reader takes the pages.
const LISTINGS_AT_ONCE: usize = 4;

/// Short reads at once (a project's sources, `sources.rs`): slots of their own, so a
/// request's short read never waits behind cold fills.
const SHORT_READS_AT_ONCE: usize = 4;

/// The embedded store's lister: connections of its own, kept between listings.
#[derive(Debug)]
pub(crate) struct EmbeddedLister {
    path: PathBuf,
    slots: Arc<Semaphore>,
    short_slots: Arc<Semaphore>,
    idle: Arc<Mutex<Vec<Connection>>>,
}

impl EmbeddedLister {
    pub(crate) fn new(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            slots: Arc::new(Semaphore::new(LISTINGS_AT_ONCE)),
            short_slots: Arc::new(Semaphore::new(SHORT_READS_AT_ONCE)),
            idle: Arc::default(),
        }
    }

    /// Closes the idle connections; reads asked from now on fail as unavailable.
    pub(crate) fn close(&self) {
        self.slots.close();
        self.short_slots.close();
        if let Ok(mut idle) = self.idle.lock() {
            idle.clear();
        }
    }

    /// Runs a short read (`sources.rs`, `changes.rs`) of `rows` in a slot of its own,
    /// with a kept connection (or a new one), on the calling worker where the runtime
    /// allows (`neuralis_blocking_read`), and keeps the connection again once no
    /// transaction is left open.
    pub(super) async fn short_read<T: Send + 'static>(
        &self,
        rows: Rows,
        read: impl FnOnce(&Connection) -> Result<T, IndexError> + Send + 'static,
    ) -> Result<T, IndexError> {
        let _slot = Arc::clone(&self.short_slots)
            .acquire_owned()
            .await
            .map_err(|_| IndexError::Unavailable("the store is closed".into()))?;
        let (path, idle) = (self.path.clone(), Arc::clone(&self.idle));
        neuralis_blocking_read::run(rows, move || {
            let connection = take(&idle, &path)?;
            let read = read(&connection);
            keep(&idle, connection);
            read
        })
        .await
        .map_err(|_| IndexError::Backend("a short read stopped".into()))?
    }

    /// Starts reading `project`'s rows; returns once the revision is read.
    pub(crate) async fn pages(
        &self,
        project: &str,
        bounds: PageBounds,
    ) -> Result<RowPages, IndexError> {
        let slot = Arc::clone(&self.slots)
            .acquire_owned()
            .await
            .map_err(|_| IndexError::Unavailable("the store is closed".into()))?;
        let (sender, receiver) = mpsc::channel(PAGES_AHEAD);
        let (revision_sender, revision) = oneshot::channel();
        let job = Job {
            path: self.path.clone(),
            idle: Arc::clone(&self.idle),
            project: project.to_owned(),
            pager: Pager::new(PageFill::new(bounds), sender),
        };
        tokio::task::spawn_blocking(move || {
            let _slot = slot;
            job.run(revision_sender);
        });
        let revision = revision
            .await
            .map_err(|_| IndexError::Backend("the listing thread stopped".into()))??;
        Ok(RowPages::new(revision, receiver))
    }
}

struct Job {
    path: PathBuf,
    idle: Arc<Mutex<Vec<Connection>>>,
    project: String,
    pager: Pager,
}

impl Job {
    fn run(self, revision: oneshot::Sender<Result<u64, IndexError>>) {
        let Job {
            path,
            idle,
            project,
            mut pager,
        } = self;
        let connection = match take(&idle, &path) {
            Ok(connection) => connection,
            Err(error) => {
                let _ = revision.send(Err(error));
                return;
            }
        };
        let outcome = read(&connection, &project, revision, &mut pager);
        keep(&idle, connection);
        match outcome {
            Ok(Some(())) => pager.finish_blocking(Ok(())),
            Ok(None) => {} // the reader is gone
            Err(error) => pager.finish_blocking(Err(error)),
        }
    }
}

/// Reads the revision and every row in one read transaction (one WAL snapshot).
/// `Ok(None)` when the reader went away before the end.
fn read(
    connection: &Connection,
    project: &str,
    revision: oneshot::Sender<Result<u64, IndexError>>,
    pager: &mut Pager,
) -> Result<Option<()>, IndexError> {
    let begun = connection.execute_batch("BEGIN").map_err(IndexError::from);
    let read = begun.and_then(|()| read_revision(connection, project));
    match read {
        Ok(value) => {
            if revision.send(Ok(value)).is_err() {
                return Ok(None);
            }
        }
        Err(error) => {
            let _ = revision.send(Err(error));
            return Ok(None);
        }
    }
    let mut statement = connection.prepare_cached(ROWS)?;
    let mut rows = statement.query([project])?;
    while let Some(row) = rows.next()? {
        if !pager.push_blocking(listed(row)?) {
            return Ok(None);
        }
    }
    drop(rows);
    connection.execute_batch("COMMIT")?;
    Ok(Some(()))
}

fn read_revision(connection: &Connection, project: &str) -> Result<u64, IndexError> {
    let revision: Option<i64> = connection
        .query_row(
            "SELECT revision FROM index_projects WHERE project = ?1",
            [project],
            |row| row.get(0),
        )
        .optional()?;
    to_u64(revision.unwrap_or(0), "revision")
}

fn column<T: rusqlite::types::FromSql>(
    row: &Row<'_>,
    at: usize,
    field: &'static str,
) -> Result<T, IndexError> {
    row.get(at).map_err(|err| corrupt(field, err.to_string()))
}

fn listed(row: &Row<'_>) -> Result<ListedRow, IndexError> {
    Ok(ListedRow {
        source: column(row, 0, "source")?,
        path: column(row, 1, "path")?,
        content_hash: column(row, 2, "content_hash")?,
        size: to_u64(column(row, 3, "size")?, "size")?,
        modified: column(row, 4, "modified")?,
        classification: column(row, 5, "classification")?,
        payload_json: column(row, 6, "payload")?,
        usable_manifest: column::<i64>(row, 7, "usable_manifest")? != 0,
        privacy_owner: column(row, 8, "privacy_owner")?,
        payload_version: to_u32(column(row, 9, "payload_version")?, "payload_version")?,
        real_path: column(row, 10, "real_path")?,
        content_flags: decode_flags(&column::<String>(row, 11, "content_flags")?),
    })
}

/// A kept connection, or a new one.
fn take(idle: &Mutex<Vec<Connection>>, path: &Path) -> Result<Connection, IndexError> {
    match idle.lock().ok().and_then(|mut idle| idle.pop()) {
        Some(connection) => Ok(connection),
        None => connect(path),
    }
}

/// Keeps `connection` for the next read. A statement stopped halfway leaves a read
/// transaction open: it is ended first, and a connection that cannot end it is closed.
fn keep(idle: &Mutex<Vec<Connection>>, connection: Connection) {
    let clean = connection.is_autocommit() || connection.execute_batch("ROLLBACK").is_ok();
    if clean && let Ok(mut idle) = idle.lock() {
        idle.push(connection);
    }
}

fn connect(path: &Path) -> Result<Connection, IndexError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(path, flags)?;
    connection.execute_batch(READ_PRAGMAS)?;
    Ok(connection)
}
