//! Store failures. Messages carry no stored value (a path, a pattern, a feature), only
//! what kind of failure it was.

/// A failure of the access store.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The database cannot be reached (connection refused, pool timed out or closed).
    #[error("access store unavailable: {0}")]
    Unavailable(String),
    /// A record the call depends on does not exist (e.g. a parent conversation).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The call contradicts what is stored (e.g. a conversation's lineage).
    #[error("{field}: {message}")]
    Conflict {
        /// The request field at fault.
        field: &'static str,
        /// Why.
        message: &'static str,
    },
    /// The call would store more than a record may hold (e.g. a conversation's file
    /// overrides); removing some makes room, retrying alone does not.
    #[error("{field}: {message}")]
    LimitReached {
        /// The request field whose value would not fit.
        field: &'static str,
        /// Which limit, and what to do.
        message: String,
    },
    /// Bad store configuration, naming the field.
    #[error("invalid store configuration {field}: {message}")]
    Config {
        /// The offending field.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The store's schema does not fit this release (behind in check mode, or holding a
    /// later release's incompatible migration): `neuralis migrate status` tells which.
    #[error("access store schema: {0}")]
    Schema(String),
    /// A defect or a database error; the kind only.
    #[error("access store failure: {0}")]
    Internal(String),
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        match error {
            // A TLS failure is a configuration matter (sslmode, sslrootcert, the
            // server's certificate): say so, with the TLS library's reason.
            sqlx::Error::Tls(tls) => {
                StoreError::Unavailable(format!("TLS to the database failed: {tls}"))
            }
            // rustls reports a refused certificate as invalid data on the socket.
            sqlx::Error::Io(io) if io.kind() == std::io::ErrorKind::InvalidData => {
                StoreError::Unavailable(format!("TLS to the database failed: {io}"))
            }
            sqlx::Error::Io(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed => StoreError::Unavailable("database unreachable".into()),
            // The server is going down or starting up, or the connection was lost:
            // a retry may succeed once it answers again.
            sqlx::Error::Database(db) if db.code().is_some_and(|code| is_transient(&code)) => {
                StoreError::Unavailable("database unreachable".into())
            }
            // The database's own message may quote stored values: keep the code only.
            sqlx::Error::Database(db) => StoreError::Internal(format!(
                "database error {}",
                db.code().as_deref().unwrap_or("without a code")
            )),
            other => StoreError::Internal(format!("database client error ({})", kind(&other))),
        }
    }
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(error: sqlx::migrate::MigrateError) -> Self {
        match error {
            sqlx::migrate::MigrateError::Execute(inner) => StoreError::from(inner),
            other => StoreError::Internal(format!("migration failed: {other}")),
        }
    }
}

/// SQLSTATEs of a server that is not answering now: class 08 (connection exception),
/// 57P01-57P03 (admin or crash shutdown, cannot connect now) and 53300 (too many
/// connections).
fn is_transient(code: &str) -> bool {
    code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03" | "53300")
}

fn kind(error: &sqlx::Error) -> &'static str {
    match error {
        sqlx::Error::Configuration(_) => "configuration",
        sqlx::Error::RowNotFound => "row not found",
        sqlx::Error::ColumnDecode { .. } | sqlx::Error::Decode(_) => "decode",
        sqlx::Error::Protocol(_) => "protocol",
        _ => "other",
    }
}
