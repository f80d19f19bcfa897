//! The PostgreSQL delete statements of a batch are key lookups whatever the planner's
//! statistics (the real server; `NEURALIS_TEST_DATABASE_URL`, default the local one).
//!
//! The statistics here are the worst a first sync meets: taken while the tables were
//! empty, with autovacuum off for them, and then many rows written. The old
//! `path IN (SELECT json_array_elements_text($3))` was planned, on exactly these
//! statistics, as a scan of every row of the source with `path` as a mere filter.

use super::postgres::{DELETE_CHUNKS, DELETE_FILES};
use crate::SqlIndexStore;
use sqlx::AnyPool;

fn database_url() -> String {
    std::env::var("NEURALIS_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

/// Rows per table: hundreds of pages, far past where any scan could pass for cheap.
const ROWS: i64 = 30_000;

/// A store in a schema of its own whose tables hold `ROWS` rows of one source and
/// statistics that still say "empty".
async fn store_with_stale_statistics(schema: &str) -> SqlIndexStore {
    let store = SqlIndexStore::connect_postgres(&database_url(), schema)
        .await
        .expect("connects");
    for statement in [
        "ALTER TABLE index_chunks SET (autovacuum_enabled = false)",
        "ALTER TABLE index_files SET (autovacuum_enabled = false)",
        "ANALYZE index_chunks",
        "ANALYZE index_files",
    ] {
        sqlx::raw_sql(statement)
            .execute(&store.pool)
            .await
            .expect("set up");
    }
    sqlx::query(
        "INSERT INTO index_chunks (project, source, path, ordinal, body) \
         SELECT 'p', 's', 'dir/file-' || n || '.rs', o, 'fn main() {}' \
         FROM generate_series(1, $1) AS n, generate_series(0, 1) AS o",
    )
    .bind(ROWS / 2)
    .execute(&store.pool)
    .await
    .expect("chunks");
    // Audited: fixed text and a column list.
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO index_files ({}, revision) \
         SELECT 'p', 's', 'dir/file-' || n || '.rs', 'h', 1, 1, 'file', '{{}}', 0, NULL, 1, \
         NULL, '', 1 FROM generate_series(1, $1) AS n",
        crate::sql::codec::file_columns!()
    )))
    .bind(ROWS)
    .execute(&store.pool)
    .await
    .expect("files");
    store
}

async fn plan(pool: &AnyPool, statement: &str) -> String {
    let explain = format!("EXPLAIN {statement}");
    let lines: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(explain))
        .bind("p")
        .bind("s")
        .bind(r#"["dir/file-7.rs", "dir/file-70.rs", "dir/new.rs"]"#)
        .fetch_all(pool)
        .await
        .expect("explained");
    lines.join("\n")
}

/// Every access to `table` in `plan` finds rows by the whole key: an index condition
/// on the path, or a tuple id; never a scan of the table, never `path` as a filter.
fn assert_key_lookups(plan: &str, table: &str) {
    assert!(!plan.contains("Seq Scan"), "a sequential scan:\n{plan}");
    assert!(
        plan.contains("Tid Scan"),
        "rows not deleted by tuple id:\n{plan}"
    );
    assert!(
        plan.contains(&format!("Index Scan using {table}_pkey"))
            && plan.contains("AND (path = wanted.path))"),
        "no primary-key lookup by path:\n{plan}"
    );
    assert!(!plan.contains("Filter: (path"), "path as a filter:\n{plan}");
}

async fn drop_schema(store: &SqlIndexStore, schema: &str) {
    let statement = format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE");
    sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
        .execute(&store.pool)
        .await
        .expect("dropped");
    store.close().await;
}

#[tokio::test]
async fn batch_deletes_are_key_lookups_on_statistics_taken_while_empty() {
    let schema = format!("t_plans_{}", std::process::id());
    let store = store_with_stale_statistics(&schema).await;
    let chunks = plan(&store.pool, DELETE_CHUNKS).await;
    let files = plan(&store.pool, DELETE_FILES).await;
    // The statistics are as stale as intended: the planner believes the source is tiny.
    let estimate = plan(
        &store.pool,
        "SELECT 1 FROM index_chunks WHERE project = $1 AND source = $2 AND $3 <> ''",
    )
    .await;
    drop_schema(&store, &schema).await;
    assert!(
        estimate.contains("rows=1 "),
        "statistics not stale:\n{estimate}"
    );
    assert_key_lookups(&chunks, "index_chunks");
    assert_key_lookups(&files, "index_files");
}
