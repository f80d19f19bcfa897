//! The index error.

/// Why an index operation failed.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The named thing does not exist.
    #[error("{0} not found")]
    NotFound(String),
    /// The named thing exists already.
    #[error("{0} already exists")]
    AlreadyExists(String),
    /// The store could not be reached (connection, pool or I/O failure).
    #[error("index store unavailable: {0}")]
    Unavailable(String),
    /// A stored value could not be read back (a column named by `field`).
    #[error("index row unreadable ({field}): {message}")]
    Corrupt {
        /// The column or value at fault.
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// A value cannot be stored (for example a size beyond the column range).
    #[error("invalid value for {field}: {message}")]
    InvalidValue {
        /// The field at fault.
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// A call stopped at its work budget (a search past its steps or deadline, or
    /// with no connection free in time): the caller may retry later.
    #[error("index store busy: {0}")]
    Exhausted(String),
    /// The call would store more than a project may hold (its sources): removing
    /// something makes room, retrying soon alone does not.
    #[error("{0}")]
    LimitReached(String),
    /// The store's schema does not fit this release (behind in check mode, or holding a
    /// later release's incompatible migration): see `neuralis migrate status`.
    #[error("index store schema: {0}")]
    Schema(String),
    /// Any other failure reported by the database.
    #[error("index store error: {0}")]
    Backend(String),
}

impl From<sqlx::Error> for IndexError {
    fn from(err: sqlx::Error) -> Self {
        use sqlx::Error as E;
        match err {
            // rustls reports a refused certificate as invalid data on the socket.
            E::Io(ref io) if io.kind() == std::io::ErrorKind::InvalidData => {
                IndexError::Unavailable(format!("TLS to the database failed: {io}"))
            }
            E::Io(_) | E::Tls(_) | E::PoolTimedOut | E::PoolClosed | E::WorkerCrashed => {
                IndexError::Unavailable(err.to_string())
            }
            E::Protocol(_) => IndexError::Unavailable(err.to_string()),
            // The server is going down or starting up, or the connection was lost:
            // answered by the database itself, yet the call may succeed on a retry.
            E::Database(ref db) if db.code().is_some_and(|code| is_transient(&code)) => {
                IndexError::Unavailable(err.to_string())
            }
            E::ColumnDecode { .. } | E::Decode(_) => IndexError::Corrupt {
                field: "column",
                message: err.to_string(),
            },
            other => IndexError::Backend(other.to_string()),
        }
    }
}

/// SQLSTATEs of a server that is not answering now: class 08 (connection exception),
/// 57P01-57P03 (admin or crash shutdown, cannot connect now) and 53300 (too many
/// connections).
pub(crate) fn is_transient(code: &str) -> bool {
    code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03" | "53300")
}

impl From<rusqlite::Error> for IndexError {
    fn from(err: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode as C;
        match err.sqlite_error_code() {
            Some(C::CannotOpen | C::NotADatabase | C::SystemIoFailure | C::DiskFull) => {
                IndexError::Unavailable(err.to_string())
            }
            // Another connection held the write lock past `busy_timeout`.
            Some(C::DatabaseBusy | C::DatabaseLocked) => IndexError::Unavailable(err.to_string()),
            _ => match err {
                rusqlite::Error::FromSqlConversionFailure(..)
                | rusqlite::Error::IntegralValueOutOfRange(..)
                | rusqlite::Error::InvalidColumnType(..) => IndexError::Corrupt {
                    field: "column",
                    message: err.to_string(),
                },
                other => IndexError::Backend(other.to_string()),
            },
        }
    }
}

/// A stored value that could not be read back, its column named.
pub(crate) fn corrupt(field: &'static str, message: impl Into<String>) -> IndexError {
    IndexError::Corrupt {
        field,
        message: message.into(),
    }
}
