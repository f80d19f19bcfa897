//! The embedded store's paged read: one read transaction on a connection of its own,
//! on a blocking thread, each row's columns copied straight from SQLite's values into a
//! raw page (`crate::pages::RawPage`: its strings are made on the reader's side).

use super::ROWS;
use crate::IndexError;
use crate::pages::{Numbers, PAGES_AHEAD, Page, PageBounds, RawPage, RowPages, Sent, TEXT_FIELDS};
use crate::sql::codec::{corrupt, to_u32, to_u64};
use neuralis_blocking_read::Rows;
use rusqlite::types::ValueRef;
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
            pager: RawPager::new(bounds, sender),
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
    pager: RawPager,
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
    pager: &mut RawPager,
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
        if !pager.push_blocking(row)? {
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

/// The columns of [`ROWS`] that are text, in [`TEXT_FIELDS`] order.
const TEXT_COLUMNS: [usize; TEXT_FIELDS.len()] = [0, 1, 2, 5, 6, 8, 10, 11];

fn numbers(row: &Row<'_>) -> Result<Numbers, IndexError> {
    Ok(Numbers {
        size: to_u64(column(row, 3, "size")?, "size")?,
        modified: column(row, 4, "modified")?,
        usable_manifest: column::<i64>(row, 7, "usable_manifest")? != 0,
        payload_version: to_u32(column(row, 9, "payload_version")?, "payload_version")?,
    })
}

/// The row's text columns as SQLite holds them (`None` for a NULL); anything but text
/// or NULL is an error naming the column.
fn texts<'r>(row: &'r Row<'_>) -> Result<[Option<&'r [u8]>; TEXT_FIELDS.len()], IndexError> {
    let mut texts = [None; TEXT_FIELDS.len()];
    for ((text, at), field) in texts.iter_mut().zip(TEXT_COLUMNS).zip(TEXT_FIELDS) {
        *text = match row.get_ref(at) {
            Ok(ValueRef::Text(bytes)) => Some(bytes),
            Ok(ValueRef::Null) => None,
            Ok(other) => {
                return Err(corrupt(
                    field,
                    format!("{} where text is required", other.data_type()),
                ));
            }
            Err(error) => return Err(corrupt(field, error.to_string())),
        };
    }
    Ok(texts)
}

/// Where the rows of a listing go: raw pages under the bounds, sent from the blocking
/// thread, at most [`PAGES_AHEAD`] ahead of the reader.
struct RawPager {
    bounds: PageBounds,
    page: RawPage,
    sender: mpsc::Sender<Sent>,
}

impl RawPager {
    fn new(bounds: PageBounds, sender: mpsc::Sender<Sent>) -> Self {
        let bounds = PageBounds {
            rows: bounds.rows.max(1),
            bytes: bounds.bytes.max(1),
        };
        Self {
            bounds,
            page: RawPage::default(),
            sender,
        }
    }

    /// Adds `row`, sending the page once it is full: `Ok(false)` when the reader is gone.
    fn push_blocking(&mut self, row: &Row<'_>) -> Result<bool, IndexError> {
        self.page.push(numbers(row)?, texts(row)?);
        if !self.bounds.reached(self.page.len(), self.page.text_bytes()) {
            return Ok(true);
        }
        // The next page is sized as this one (grown from nothing, its text was copied at
        // every doubling), but never past the bounds: a page ended by one very large row
        // must not make every page after it reserve that row's size.
        let next = RawPage::with_capacity(
            self.page.len().min(self.bounds.rows),
            self.page.text_bytes().min(self.bounds.bytes),
        );
        let page = std::mem::replace(&mut self.page, next);
        Ok(self.sender.blocking_send(Ok(Some(Page::Raw(page)))).is_ok())
    }

    /// The last page and the end, or the error that ended the read.
    fn finish_blocking(mut self, outcome: Result<(), IndexError>) {
        let sent = match outcome {
            Ok(()) => {
                let last = std::mem::take(&mut self.page);
                last.is_empty() || self.sender.blocking_send(Ok(Some(Page::Raw(last)))).is_ok()
            }
            Err(error) => {
                let _ = self.sender.blocking_send(Err(error));
                return;
            }
        };
        if sent {
            let _ = self.sender.blocking_send(Ok(None));
        }
    }
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
