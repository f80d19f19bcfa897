//! The PostgreSQL backend: one database shared by every replica of the policy service.

use std::time::Duration;

use async_trait::async_trait;
use neuralis_access::{AccessSnapshot, RoleGrants, SourceRecord, UriPolicy};
use sqlx::PgPool;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use crate::records::{self, SnapshotRows};
use crate::store::{MAX_CHAIN_DEPTH, PackageKeyMove};
use crate::{
    AccessStore, ConversationRecord, FileRef, OverrideTarget, PackageDefaults, RoleFeatures,
    SnapshotQuery, StoreError, schema, sql,
};

/// How long a call waits for a pooled connection before the store counts as
/// unreachable.
const ACQUIRE_TIMEOUT: Duration = Duration::from_millis(1_500);

/// The access store in PostgreSQL.
#[derive(Debug, Clone)]
pub struct PostgresStore {
    pool: PgPool,
}

impl PostgresStore {
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
        schema::prepare(&store.pool, migrator, mode).await?;
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
        Ok((PostgresStore { pool }, migrator))
    }

    /// Every migration version this release or the store knows, with its state.
    pub async fn schema_status(&self) -> Result<Vec<(i64, neuralis_schema::State)>, StoreError> {
        schema::status(&self.pool).await
    }

    /// Closes the pool (at shutdown): every later call answers unavailable.
    pub async fn close(&self) {
        self.pool.close().await;
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

#[async_trait]
impl AccessStore for PostgresStore {
    async fn put_source_policy(
        &self,
        source_id: &str,
        policy: &UriPolicy,
    ) -> Result<UriPolicy, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(sql::ENSURE_SOURCE)
            .bind(source_id)
            .execute(&mut *tx)
            .await?;
        let previous: Option<String> = sqlx::query_scalar(sql::POLICY_FOR_UPDATE_PG)
            .bind(source_id)
            .fetch_one(&mut *tx)
            .await?;
        let stored = records::merge_floors(previous, policy)?;
        sqlx::query(sql::WRITE_POLICY)
            .bind(source_id)
            .bind(stored.to_json())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(stored)
    }

    async fn source(&self, source_id: &str) -> Result<Option<SourceRecord>, StoreError> {
        let row: Option<(bool, Option<String>)> = sqlx::query_as(sql::SOURCE)
            .bind(source_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|(enabled, policy)| records::source_record(source_id, enabled, policy)))
    }

    async fn set_source_enabled(&self, source_id: &str, enabled: bool) -> Result<(), StoreError> {
        sqlx::query(sql::SET_SOURCE_ENABLED)
            .bind(source_id)
            .bind(enabled)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn forget_source(&self, source_id: &str) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(sql::FORGET_SOURCE)
            .bind(source_id)
            .execute(&mut *tx)
            .await?;
        let prefix = sql::source_key_prefix(source_id);
        for statement in sql::FORGET_SOURCE_KEYS {
            sqlx::query(statement)
                .bind(&prefix)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn rekey_packages(
        &self,
        source_id: &str,
        moves: &[PackageKeyMove],
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let marked = sqlx::query(sql::MARK_REKEYED)
            .bind(source_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if marked == 0 {
            return Ok(false);
        }
        let prefix = sql::source_key_prefix(source_id);
        for PackageKeyMove { legacy, key } in moves {
            let (legacy, key) = (format!("{prefix}{legacy}"), format!("{prefix}{key}"));
            for statement in sql::REKEY {
                sqlx::query(statement)
                    .bind(&legacy)
                    .bind(&key)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn put_role_grants(
        &self,
        project: Option<&str>,
        grants: &RoleGrants,
    ) -> Result<(), StoreError> {
        let grantor = grants.grantor.key();
        let project = project.unwrap_or(sql::EVERY_PROJECT);
        let mut tx = self.pool.begin().await?;
        sqlx::query(sql::DELETE_GRANTS)
            .bind(project)
            .bind(&grantor)
            .execute(&mut *tx)
            .await?;
        for (role, features) in &grants.roles {
            for feature in features {
                sqlx::query(sql::INSERT_GRANT)
                    .bind(project)
                    .bind(&grantor)
                    .bind(role)
                    .bind(feature)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    async fn attach_package(&self, defaults: &PackageDefaults) -> Result<(), StoreError> {
        let grantor = neuralis_access::Grantor::Package(defaults.package_id.clone()).key();
        let mut tx = self.pool.begin().await?;
        sqlx::query(sql::DELETE_GRANTS)
            .bind(sql::EVERY_PROJECT)
            .bind(&grantor)
            .execute(&mut *tx)
            .await?;
        for (role, features) in &defaults.default_role_grants {
            for feature in features {
                sqlx::query(sql::INSERT_GRANT)
                    .bind(sql::EVERY_PROJECT)
                    .bind(&grantor)
                    .bind(role)
                    .bind(feature)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        for (scope, baseline) in &defaults.baselines {
            sqlx::query(sql::ENSURE_SOURCE)
                .bind(scope)
                .execute(&mut *tx)
                .await?;
            let stored: Option<String> = sqlx::query_scalar(sql::POLICY_FOR_UPDATE_PG)
                .bind(scope)
                .fetch_one(&mut *tx)
                .await?;
            if let Some(policy) = records::attached_policy(stored, baseline)? {
                sqlx::query(sql::WRITE_POLICY)
                    .bind(scope)
                    .bind(policy.to_json())
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    async fn put_grant_revocations(
        &self,
        project: Option<&str>,
        revoked: &RoleFeatures,
    ) -> Result<(), StoreError> {
        let project = project.unwrap_or(sql::EVERY_PROJECT);
        let mut tx = self.pool.begin().await?;
        sqlx::query(sql::DELETE_REVOCATIONS)
            .bind(project)
            .execute(&mut *tx)
            .await?;
        for (role, features) in revoked {
            for feature in features {
                sqlx::query(sql::INSERT_REVOCATION)
                    .bind(project)
                    .bind(role)
                    .bind(feature)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    async fn grant_revocations(&self, project: Option<&str>) -> Result<RoleFeatures, StoreError> {
        let rows: Vec<(String, String)> = sqlx::query_as(sql::REVOCATIONS)
            .bind(project.unwrap_or(sql::EVERY_PROJECT))
            .fetch_all(&self.pool)
            .await?;
        Ok(records::role_features(rows))
    }

    async fn set_package_enabled(
        &self,
        project: &str,
        package_key: &str,
        enabled: bool,
    ) -> Result<(), StoreError> {
        sqlx::query(sql::SET_PACKAGE)
            .bind(project)
            .bind(package_key)
            .bind(enabled)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn set_file_override(
        &self,
        target: &OverrideTarget,
        file: &FileRef,
        state: Option<bool>,
    ) -> Result<(), StoreError> {
        let set = state.is_some();
        let query = match target {
            OverrideTarget::Agent(agent) => sqlx::query(if set {
                sql::SET_AGENT_OVERRIDE
            } else {
                sql::CLEAR_AGENT_OVERRIDE
            })
            .bind(agent),
            OverrideTarget::Conversation { project, id } => sqlx::query(if set {
                sql::SET_CONVERSATION_OVERRIDE
            } else {
                sql::CLEAR_CONVERSATION_OVERRIDE
            })
            .bind(project)
            .bind(id),
        };
        let query = query.bind(&file.package_key).bind(&file.path);
        match state {
            Some(enabled) => query.bind(enabled).execute(&self.pool).await?,
            None => query.execute(&self.pool).await?,
        };
        Ok(())
    }

    async fn register_conversation(&self, record: &ConversationRecord) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        if let Some(parent) = &record.parent {
            // Looked up in the record's own project: a parent registered in another
            // project is as unknown here as one never registered.
            let row = sqlx::query_as(sql::CONVERSATION)
                .bind(&record.project)
                .bind(parent)
                .fetch_optional(&mut *tx)
                .await?;
            records::check_parent(row)?;
        }
        sqlx::query(sql::INSERT_CONVERSATION)
            .bind(&record.project)
            .bind(&record.conversation)
            .bind(&record.parent)
            .execute(&mut *tx)
            .await?;
        let stored = sqlx::query_as(sql::CONVERSATION)
            .bind(&record.project)
            .bind(&record.conversation)
            .fetch_optional(&mut *tx)
            .await?;
        records::check_lineage(stored, record)?;
        tx.commit().await?;
        Ok(())
    }

    async fn conversation(
        &self,
        project: &str,
        id: &str,
    ) -> Result<Option<ConversationRecord>, StoreError> {
        let row: Option<(String, Option<String>)> = sqlx::query_as(sql::CONVERSATION)
            .bind(project)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|(project, parent)| ConversationRecord {
            conversation: id.to_owned(),
            project,
            parent,
        }))
    }

    async fn snapshot(&self, query: &SnapshotQuery) -> Result<AccessSnapshot, StoreError> {
        // One repeatable-read transaction: every statement sees the same committed state.
        let mut tx = self.pool.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        let rows = SnapshotRows {
            sources: sqlx::query_as(sql::SOURCES_PG)
                .bind(query.source_ids.as_slice())
                .fetch_all(&mut *tx)
                .await?,
            role_features: sqlx::query_scalar(sql::ROLE_FEATURES)
                .bind(&query.role)
                .bind(&query.project)
                .fetch_all(&mut *tx)
                .await?,
            packages: sqlx::query_as(sql::PACKAGES)
                .bind(&query.project)
                .fetch_all(&mut *tx)
                .await?,
            agent_overrides: match &query.agent {
                Some(agent) => {
                    sqlx::query_as(sql::AGENT_OVERRIDES)
                        .bind(agent)
                        .fetch_all(&mut *tx)
                        .await?
                }
                None => Vec::new(),
            },
            chain_overrides: match &query.conversation {
                Some(id) => {
                    sqlx::query_as(sql::CHAIN_OVERRIDES)
                        .bind(id)
                        .bind(MAX_CHAIN_DEPTH)
                        .bind(&query.project)
                        .fetch_all(&mut *tx)
                        .await?
                }
                None => Vec::new(),
            },
        };
        tx.commit().await?;
        Ok(rows.into_snapshot())
    }
}
