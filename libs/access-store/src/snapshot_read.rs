//! The embedded store's snapshot read, the one read every evaluation makes: the
//! statements of one read transaction run with the SQLite library itself, on a read
//! connection of the reader's own, on the calling worker where the runtime allows,
//! inline where a slot allows (`neuralis_blocking_read`, `Rows::Few`: no thread woken
//! on the request's path).
//! Through sqlx the same read took a hand-off to its connection's worker thread and
//! back per statement (begin, four queries, commit): six round trips on the path of
//! every request (issue 31, warm `ListPackages`). In the services it now takes none.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use neuralis_access::AccessSnapshot;
use neuralis_blocking_read::Rows;
use rusqlite::{Connection, OpenFlags, ToSql};
use tokio::sync::Semaphore;

use crate::records::SnapshotRows;
use crate::store::MAX_CHAIN_DEPTH;
use crate::{SnapshotQuery, StoreError, sql};

/// The reader only reads; the access store is small, so a modest page cache holds it.
const READ_PRAGMAS: &str = "PRAGMA query_only = ON; PRAGMA cache_size = -1024; \
     PRAGMA busy_timeout = 5000";

/// Snapshot reads at once, as the sqlx pool allowed connections.
const READS_AT_ONCE: usize = 4;

/// Reads snapshots of one SQLite file on connections of its own, kept between reads.
#[derive(Debug)]
pub(crate) struct SnapshotReader {
    path: PathBuf,
    slots: Arc<Semaphore>,
    idle: Arc<Mutex<Vec<Connection>>>,
}

impl SnapshotReader {
    /// A reader of the database at `path`, whose migrations have run.
    pub(crate) fn new(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            slots: Arc::new(Semaphore::new(READS_AT_ONCE)),
            idle: Arc::default(),
        }
    }

    /// Closes the idle connections; reads asked from now on answer unavailable.
    pub(crate) fn close(&self) {
        self.slots.close();
        if let Ok(mut idle) = self.idle.lock() {
            idle.clear();
        }
    }

    /// Everything one evaluation needs, read in one transaction.
    pub(crate) async fn read(&self, query: &SnapshotQuery) -> Result<AccessSnapshot, StoreError> {
        let slot = Arc::clone(&self.slots)
            .acquire_owned()
            .await
            .map_err(|_| StoreError::Unavailable("the store is closed".into()))?;
        let (path, idle, query) = (self.path.clone(), Arc::clone(&self.idle), query.clone());
        let rows = neuralis_blocking_read::run(Rows::Few, move || {
            let _slot = slot;
            read_kept(&path, &idle, &query)
        })
        .await
        .map_err(|_| StoreError::Internal("the snapshot read stopped".into()))??;
        Ok(rows.into_snapshot())
    }
}

/// Reads on a kept connection (or a new one), and keeps it again when it is clean.
fn read_kept(
    path: &Path,
    idle: &Mutex<Vec<Connection>>,
    query: &SnapshotQuery,
) -> Result<SnapshotRows, StoreError> {
    let connection = match idle.lock().ok().and_then(|mut idle| idle.pop()) {
        Some(connection) => connection,
        None => connect(path)?,
    };
    let rows = read(&connection, query);
    keep(idle, connection);
    rows
}

/// Keeps `connection` for the next read. A failed statement may leave the read
/// transaction open: it is ended first, and a connection that cannot end it is closed.
fn keep(idle: &Mutex<Vec<Connection>>, connection: Connection) {
    let clean = connection.is_autocommit() || connection.execute_batch("ROLLBACK").is_ok();
    if clean && let Ok(mut idle) = idle.lock() {
        idle.push(connection);
    }
}

fn connect(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(path, flags).map_err(from_sqlite)?;
    connection
        .execute_batch(READ_PRAGMAS)
        .map_err(from_sqlite)?;
    Ok(connection)
}

/// The statements of `operations`' snapshot, in one read transaction (one WAL snapshot).
fn read(connection: &Connection, query: &SnapshotQuery) -> Result<SnapshotRows, StoreError> {
    connection.execute_batch("BEGIN").map_err(from_sqlite)?;
    let ids = serde_json::to_string(&query.source_ids)
        .map_err(|_| StoreError::Internal("source ids".into()))?;
    let rows = SnapshotRows {
        sources: select(connection, sql::SOURCES_SQLITE, &[("$1", &ids)], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })?,
        role_features: select(
            connection,
            sql::ROLE_FEATURES,
            &[("$1", &query.role), ("$2", &query.project)],
            |row| row.get(0),
        )?,
        packages: select(
            connection,
            sql::PACKAGES,
            &[("$1", &query.project)],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?,
        agent_overrides: match &query.agent {
            Some(agent) => select(connection, sql::AGENT_OVERRIDES, &[("$1", agent)], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })?,
            None => Vec::new(),
        },
        chain_overrides: match &query.conversation {
            Some(id) => select(
                connection,
                sql::CHAIN_OVERRIDES,
                &[("$1", id), ("$2", &MAX_CHAIN_DEPTH), ("$3", &query.project)],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
            )?,
            None => Vec::new(),
        },
    };
    connection.execute_batch("COMMIT").map_err(from_sqlite)?;
    Ok(rows)
}

/// Every row of one statement, its parameters bound by name (`$1`, `$2`, … as the
/// statements are written for both backends).
fn select<T>(
    connection: &Connection,
    statement: &str,
    parameters: &[(&str, &dyn ToSql)],
    row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> Result<Vec<T>, StoreError> {
    let mut statement = connection.prepare_cached(statement).map_err(from_sqlite)?;
    let rows = statement.query_map(parameters, row).map_err(from_sqlite)?;
    rows.collect::<Result<_, _>>().map_err(from_sqlite)
}

/// As for sqlx's errors: the code only (SQLite's message may quote stored values), and
/// a busy or locked database is unavailable (a retry may succeed).
fn from_sqlite(error: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode as C;
    match error.sqlite_error_code() {
        Some(C::DatabaseBusy | C::DatabaseLocked | C::CannotOpen) => {
            StoreError::Unavailable("database unreachable".into())
        }
        Some(code) => StoreError::Internal(format!("database error {code:?}")),
        None => StoreError::Internal("database client error (decode)".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query() -> SnapshotQuery {
        SnapshotQuery {
            project: "p1".into(),
            role: "member".into(),
            agent: None,
            conversation: None,
            source_ids: vec!["s1".into()],
        }
    }

    /// A clean read keeps its connection, and the next read takes it again rather than
    /// opening another: one connection serves any number of reads in a row.
    #[tokio::test]
    async fn a_read_keeps_its_connection_for_the_next() {
        reads_keep_one_connection().await;
    }

    /// The same where the read runs in place on a worker (a spawned task on a
    /// multi-thread runtime, as the services' handlers run), not on a blocking thread.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_read_in_place_keeps_its_connection_for_the_next() {
        tokio::spawn(async {
            assert_ne!(
                neuralis_blocking_read::place(Rows::Few),
                neuralis_blocking_read::Place::BlockingThread
            );
            reads_keep_one_connection().await;
        })
        .await
        .unwrap();
    }

    async fn reads_keep_one_connection() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("access.db");
        crate::EmbeddedStore::open(&path).await.unwrap();
        let reader = SnapshotReader::new(&path);
        for _ in 0..3 {
            reader.read(&query()).await.unwrap();
            assert_eq!(reader.idle.lock().unwrap().len(), 1);
        }
    }

    /// A read that fails inside its transaction leaves it open: the connection is
    /// kept only once the transaction is rolled back, so the next read starts afresh.
    #[test]
    fn a_connection_left_in_a_transaction_is_rolled_back_before_it_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("access.db");
        rusqlite::Connection::open(&path).unwrap(); // creates the file
        let idle = Mutex::new(Vec::new());
        let connection = connect(&path).unwrap();
        connection.execute_batch("BEGIN").unwrap();
        keep(&idle, connection);
        let kept = idle.lock().unwrap().pop().unwrap();
        assert!(kept.is_autocommit(), "kept with its transaction open");
    }
}
