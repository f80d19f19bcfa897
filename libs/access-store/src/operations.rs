//! Every operation of the access store, written once for both backends: the statements
//! agree (the `sql` module), so each operation is generic over the sqlx database, and
//! the few places where the backends differ are asked of its [`Dialect`].

use std::collections::BTreeSet;
use std::sync::Arc;

use async_trait::async_trait;
use neuralis_access::{AccessSnapshot, RoleGrants, SourceRecord, UriPolicy};
use sqlx::{ColumnIndex, Database, Decode, Encode, Executor, Pool, Type};

use crate::dialect::Dialect;
use crate::grants;
use crate::overrides;
use crate::package_states;
use crate::records::{self, SnapshotRows};
use crate::snapshot_read::SnapshotReader;
use crate::store::{MAX_CHAIN_DEPTH, PackageKeyMove};
use crate::{
    AccessStore, ConversationRecord, FileRef, OverrideTarget, PackageDefaults, RoleFeatures,
    SnapshotQuery, StoreError, sql,
};

/// The access store over one sqlx database: `EmbeddedStore` (SQLite) or
/// `PostgresStore`. Every read goes to the database; nothing is cached.
#[derive(Debug)]
pub struct SqlStore<DB: Database> {
    pool: Pool<DB>,
    /// The embedded store's snapshot read, beside the pool (`snapshot_read.rs`);
    /// `None` on PostgreSQL, which reads snapshots through the pool.
    snapshots: Option<Arc<SnapshotReader>>,
}

impl<DB: Database> Clone for SqlStore<DB> {
    fn clone(&self) -> Self {
        SqlStore {
            pool: self.pool.clone(),
            snapshots: self.snapshots.clone(),
        }
    }
}

impl<DB: Database> SqlStore<DB> {
    /// A store over a pool whose migrations have run.
    pub(crate) fn new(pool: Pool<DB>) -> Self {
        SqlStore {
            pool,
            snapshots: None,
        }
    }

    /// The store, its snapshots read by `reader` rather than through the pool.
    pub(crate) fn with_snapshots(self, reader: SnapshotReader) -> Self {
        SqlStore {
            snapshots: Some(Arc::new(reader)),
            ..self
        }
    }

    /// The pool (the schema's bookkeeping reads it).
    pub(crate) fn pool(&self) -> &Pool<DB> {
        &self.pool
    }

    /// Closes the pool (at shutdown): every later call answers unavailable.
    pub async fn close(&self) {
        if let Some(reader) = &self.snapshots {
            reader.close();
        }
        self.pool.close().await;
    }
}

/// The stored policy of `scope` for a read-then-write, its row created first (enabled,
/// without a policy) so that PostgreSQL has a row to lock.
async fn policy_for_update<DB>(
    connection: &mut DB::Connection,
    scope: &str,
) -> Result<Option<String>, StoreError>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'r> String: Decode<'r, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    sqlx::query(sql::ENSURE_SOURCE)
        .bind(scope)
        .execute(&mut *connection)
        .await?;
    Ok(sqlx::query_scalar(DB::POLICY_FOR_UPDATE)
        .bind(scope)
        .fetch_one(&mut *connection)
        .await?)
}

#[async_trait]
impl<DB> AccessStore for SqlStore<DB>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> String: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<String>: Encode<'q, DB>,
    for<'q> bool: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    async fn put_source_policy(
        &self,
        source_id: &str,
        policy: &UriPolicy,
    ) -> Result<UriPolicy, StoreError> {
        let mut tx = DB::begin_write(&self.pool).await?;
        let previous = policy_for_update::<DB>(&mut tx, source_id).await?;
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
        let mut tx = DB::begin_write(&self.pool).await?;
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
        let mut tx = DB::begin_write(&self.pool).await?;
        let marked = sqlx::query(sql::MARK_REKEYED)
            .bind(source_id)
            .execute(&mut *tx)
            .await?;
        if DB::rows_affected(&marked) == 0 {
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
        let mut tx = DB::begin_write(&self.pool).await?;
        let before = grants::held_before::<DB>(&mut tx, project).await?;
        grants::replace_grants::<DB>(&mut tx, project, &grantor, &grants.roles).await?;
        grants::within_bound::<DB>(&mut tx, project, before).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn attach_package(&self, defaults: &PackageDefaults) -> Result<(), StoreError> {
        let grantor = neuralis_access::Grantor::Package(defaults.package_id.clone()).key();
        let mut tx = DB::begin_write(&self.pool).await?;
        grants::replace_grants::<DB>(
            &mut tx,
            sql::EVERY_PROJECT,
            &grantor,
            &defaults.default_role_grants,
        )
        .await?;
        for (scope, baseline) in &defaults.baselines {
            let stored = policy_for_update::<DB>(&mut tx, scope).await?;
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

    async fn retire_packages(&self, installed: &BTreeSet<String>) -> Result<(), StoreError> {
        let mut tx = DB::begin_write(&self.pool).await?;
        grants::retire_packages::<DB>(&mut tx, installed).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn put_grant_revocations(
        &self,
        project: Option<&str>,
        revoked: &RoleFeatures,
    ) -> Result<(), StoreError> {
        let project = project.unwrap_or(sql::EVERY_PROJECT);
        let mut tx = DB::begin_write(&self.pool).await?;
        let before = grants::held_before::<DB>(&mut tx, project).await?;
        grants::replace_revocations::<DB>(&mut tx, project, revoked).await?;
        grants::within_bound::<DB>(&mut tx, project, before).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn put_administrator_grants(
        &self,
        project: Option<&str>,
        granted: &RoleFeatures,
        revoked: &RoleFeatures,
    ) -> Result<(), StoreError> {
        let grantor = neuralis_access::Grantor::Administrator.key();
        let project = project.unwrap_or(sql::EVERY_PROJECT);
        let mut tx = DB::begin_write(&self.pool).await?;
        let before = grants::held_before::<DB>(&mut tx, project).await?;
        grants::replace_grants::<DB>(&mut tx, project, &grantor, granted).await?;
        grants::replace_revocations::<DB>(&mut tx, project, revoked).await?;
        grants::within_bound::<DB>(&mut tx, project, before).await?;
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
        package_states::set::<DB>(&self.pool, project, package_key, enabled).await
    }

    async fn forget_package_state(
        &self,
        project: &str,
        package_key: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(sql::CLEAR_PACKAGE)
            .bind(project)
            .bind(package_key)
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
        if let (OverrideTarget::Conversation { project, id }, Some(enabled)) = (target, state) {
            return overrides::set_conversation_override(&self.pool, project, id, file, enabled)
                .await;
        }
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
        let mut tx = DB::begin_write(&self.pool).await?;
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
        if let Some(reader) = &self.snapshots {
            return reader.read(query).await;
        }
        let mut tx = DB::begin_snapshot(&self.pool).await?;
        let rows = SnapshotRows {
            sources: sqlx::query_as(DB::SOURCES)
                .bind(DB::source_ids(&query.source_ids)?)
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
