//! The access store: everything the policy service persists, behind one trait
//! ([`AccessStore`]) with two backends that pass one conformance suite:
//!
//! - [`EmbeddedStore`]: the default, a single SQLite file, no server;
//! - [`PostgresStore`]: for several replicas sharing one database.
//!
//! Both are one [`SqlStore`]: each operation is written once over the sqlx database
//! ([`operations`]), and each backend adds only what its SQL does differently.
//!
//! Migrations run when a store opens. [`AccessStore::snapshot`] reads everything one
//! evaluation needs in one consistent read; nothing here caches.
#![forbid(unsafe_code)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod config;
pub mod embedded;
pub mod error;
pub mod operations;
pub mod postgres;
pub mod store;
#[cfg(feature = "testing")]
pub mod testing;

mod dialect;
mod grants;
mod overrides;
mod package_states;
mod records;
mod schema;
mod snapshot_read;
mod sql;

use std::sync::Arc;

pub use config::StoreConfig;
pub use embedded::EmbeddedStore;
pub use error::StoreError;
pub use operations::SqlStore;
pub use postgres::PostgresStore;
pub use store::{
    AccessStore, ConversationRecord, FileRef, MAX_CHAIN_DEPTH, MAX_CONVERSATION_OVERRIDE_BYTES,
    MAX_CONVERSATION_OVERRIDES, MAX_PACKAGE_STATES, MAX_PROJECT_GRANTS, OverrideTarget,
    PackageDefaults, PackageKeyMove, RoleFeatures, SnapshotQuery,
};

/// Opens the configured backend and runs its migrations.
pub async fn open(config: &StoreConfig) -> Result<Arc<dyn AccessStore>, StoreError> {
    open_with(config, neuralis_schema::Mode::Apply).await
}

/// Opens the configured backend; PostgreSQL applies its missing migrations, or in
/// `Mode::Check` refuses a store that lacks one. The embedded store, one process's
/// own file, always applies them.
pub async fn open_with(
    config: &StoreConfig,
    mode: neuralis_schema::Mode,
) -> Result<Arc<dyn AccessStore>, StoreError> {
    Ok(match config {
        StoreConfig::Embedded { path } => Arc::new(EmbeddedStore::open(path).await?),
        StoreConfig::Postgres {
            url,
            max_connections,
            schema,
        } => Arc::new(
            PostgresStore::connect_with(url, *max_connections, schema.as_deref(), mode).await?,
        ),
    })
}

/// Every migration version this release or the configured store knows, with its state;
/// changes nothing (`neuralis migrate status`).
pub async fn schema_status(
    config: &StoreConfig,
) -> Result<Vec<(i64, neuralis_schema::State)>, StoreError> {
    match config {
        StoreConfig::Embedded { path } => EmbeddedStore::schema_status_at(path).await,
        StoreConfig::Postgres {
            url,
            max_connections,
            schema,
        } => {
            let (store, _) =
                PostgresStore::unmigrated(url, *max_connections, schema.as_deref()).await?;
            let status = store.schema_status().await;
            store.close().await;
            status
        }
    }
}
