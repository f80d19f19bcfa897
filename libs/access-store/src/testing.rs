//! A harness for tests (feature `testing`): the same test body runs on a store in a
//! temporary SQLite file or in a fresh PostgreSQL schema, dropped afterwards even when
//! the body panics, so tests run in parallel and leave nothing behind.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use futures::FutureExt;

use crate::{AccessStore, StoreConfig};

/// The variable naming the test database.
pub const DATABASE_URL_VAR: &str = "NEURALIS_TEST_DATABASE_URL";

/// The test database when the variable is unset.
pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

/// Which backend a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A temporary SQLite file.
    Embedded,
    /// A fresh schema in the test PostgreSQL database.
    Postgres,
}

/// The test PostgreSQL URL.
pub fn database_url() -> String {
    std::env::var(DATABASE_URL_VAR).unwrap_or_else(|_| DEFAULT_DATABASE_URL.to_owned())
}

fn fresh_schema() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "access_test_{}_{}_{}",
        std::process::id(),
        nanos % 1_000_000_000,
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Runs `test` with a store of `backend` and the configuration that opens the same
/// store again (for a service under test), then removes the store.
pub async fn with_store<F, Fut>(backend: Backend, test: F)
where
    F: FnOnce(Arc<dyn AccessStore>, StoreConfig) -> Fut,
    Fut: Future<Output = ()>,
{
    let dir = tempfile::tempdir().expect("a temporary folder");
    let config = match backend {
        Backend::Embedded => StoreConfig::Embedded {
            path: dir.path().join("policy.db"),
        },
        Backend::Postgres => StoreConfig::Postgres {
            url: database_url(),
            max_connections: 4,
            schema: Some(fresh_schema()),
        },
    };
    let store = crate::open(&config).await.expect("the test store opens");
    let outcome = AssertUnwindSafe(test(store, config.clone()))
        .catch_unwind()
        .await;
    if let StoreConfig::Postgres {
        url,
        schema: Some(schema),
        ..
    } = &config
    {
        drop_schema(url, schema).await;
    }
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

async fn drop_schema(url: &str, schema: &str) {
    let pool = sqlx::PgPool::connect(url)
        .await
        .expect("the test database answers");
    let statement = format!("DROP SCHEMA IF EXISTS {schema} CASCADE");
    sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
        .execute(&pool)
        .await
        .expect("the test schema drops");
    pool.close().await;
}
