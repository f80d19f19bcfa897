//! The PostgreSQL backend: one database shared by every replica of the policy service.

use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions, PgQueryResult};
use sqlx::{PgPool, Postgres, Transaction};

use crate::dialect::Dialect;
use crate::{SqlStore, StoreError, schema, sql};

/// How long a call waits for a pooled connection before the store counts as
/// unreachable.
const ACQUIRE_TIMEOUT: Duration = Duration::from_millis(1_500);

/// The access store in PostgreSQL.
pub type PostgresStore = SqlStore<Postgres>;

impl SqlStore<Postgres> {
    /// Connects, creates `schema` when given and missing, and runs the migrations (which
    /// take an advisory lock, so replicas starting together migrate once).
    pub async fn connect(
        url: &str,
        max_connections: u32,
        schema: Option<&str>,
    ) -> Result<Self, StoreError> {
        Self::connect_with(url, max_connections, schema, neuralis_schema::Mode::Apply).await
    }

    /// Connects and applies the missing migrations or, in `Mode::Check`, refuses a
    /// store that lacks one (`neuralis migrate up` applies them once per release).
    pub async fn connect_with(
        url: &str,
        max_connections: u32,
        schema: Option<&str>,
        mode: neuralis_schema::Mode,
    ) -> Result<Self, StoreError> {
        let (store, migrator) = Self::unmigrated(url, max_connections, schema).await?;
        schema::prepare(store.pool(), migrator, mode).await?;
        Ok(store)
    }

    /// Connects without touching the schema (`neuralis migrate status`), with the
    /// migrator that would bring it up to date.
    pub(crate) async fn unmigrated(
        url: &str,
        max_connections: u32,
        schema: Option<&str>,
    ) -> Result<(Self, Migrator), StoreError> {
        let mut options: PgConnectOptions = url.parse().map_err(|_| StoreError::Config {
            field: "url",
            message: "is not a PostgreSQL URL".into(),
        })?;
        let mut migrator = schema::migrator();
        if let Some(schema) = schema {
            check_schema_name(schema)?;
            options = options.options([("search_path", schema)]);
            migrator.create_schema(schema.to_owned());
        }
        let pool = match PgPoolOptions::new()
            .max_connections(max_connections.max(1))
            // Well below a caller's call deadline (5 s by default): during a database
            // outage a decision reads as UNAVAILABLE within this, not as the caller's
            // CANCELLED after its whole deadline (RELIABILITY.md, PostgreSQL restarted).
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options.clone())
            .await
        {
            Ok(pool) => pool,
            Err(sqlx::Error::PoolTimedOut) => return Err(why_unreachable(&options).await),
            Err(other) => return Err(other.into()),
        };
        Ok((SqlStore::new(pool), migrator))
    }

    /// Every migration version this release or the store knows, with its state.
    pub async fn schema_status(&self) -> Result<Vec<(i64, neuralis_schema::State)>, StoreError> {
        schema::status(self.pool()).await
    }
}

/// A pool that timed out keeps no cause; one direct attempt tells a refused TLS
/// handshake (sslmode, sslrootcert) from a server that is down.
async fn why_unreachable(options: &PgConnectOptions) -> StoreError {
    use sqlx::ConnectOptions as _;
    match options.connect().await {
        Err(cause) => cause.into(),
        Ok(_) => sqlx::Error::PoolTimedOut.into(),
    }
}

/// A schema name goes into DDL unquoted: lowercase letters, digits and `_` only.
fn check_schema_name(schema: &str) -> Result<(), StoreError> {
    let valid = schema
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && schema.len() <= 63
        && schema
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if valid {
        Ok(())
    } else {
        Err(StoreError::Config {
            field: "schema",
            message: "must be lowercase letters, digits and `_`".into(),
        })
    }
}

impl Dialect for Postgres {
    /// The row stays locked until the write commits.
    const POLICY_FOR_UPDATE: &'static str = sql::POLICY_FOR_UPDATE_PG;

    /// A transaction-scoped advisory lock on the conversation's key.
    const CONVERSATION_OVERRIDES_LOCK: &'static str = sql::CONVERSATION_OVERRIDES_LOCK_PG;
    const CONVERSATION_OVERRIDE_TOTALS: &'static str = sql::CONVERSATION_OVERRIDE_TOTALS_PG;
    const GRANTS_LOCK: &'static str = sql::GRANTS_LOCK_PG;
    const PROJECT_LOCK: &'static str = sql::PROJECT_LOCK_PG;

    async fn begin_write(pool: &PgPool) -> Result<Transaction<'static, Postgres>, sqlx::Error> {
        pool.begin().await
    }

    /// One repeatable-read transaction: every statement sees the same committed state.
    async fn begin_snapshot(pool: &PgPool) -> Result<Transaction<'static, Postgres>, sqlx::Error> {
        let mut tx = pool.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        Ok(tx)
    }

    /// The ids are bound as one text array.
    const SOURCES: &'static str = sql::SOURCES_PG;

    type SourceIds<'a> = &'a [String];

    fn source_ids(ids: &[String]) -> Result<&[String], StoreError> {
        Ok(ids)
    }

    fn rows_affected(result: &PgQueryResult) -> u64 {
        result.rows_affected()
    }
}
