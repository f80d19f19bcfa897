//! The conformance suite on PostgreSQL (NEURALIS_TEST_DATABASE_URL, default the local
//! server); one schema per case, dropped afterwards, so cases run in parallel.

mod conformance;

use neuralis_index::{IndexStore, SqlIndexStore};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

fn database_url() -> String {
    std::env::var("NEURALIS_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

struct PostgresFixture {
    store: Arc<SqlIndexStore>,
    schema: String,
}

impl conformance::Fixture for PostgresFixture {
    fn store(&self) -> Arc<dyn IndexStore> {
        self.store.clone()
    }

    async fn cleanup(self) {
        self.store.close().await;
        drop_schema(&self.schema).await;
    }
}

async fn drop_schema(schema: &str) {
    use sqlx::Connection;
    let mut connection = sqlx::PgConnection::connect(&database_url())
        .await
        .expect("connects");
    let statement = format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE");
    sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
        .execute(&mut connection)
        .await
        .expect("dropped");
}

fn unique_schema(case: &str) -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let short: String = case
        .chars()
        .filter(char::is_ascii_lowercase)
        .take(20)
        .collect();
    format!(
        "t_{short}_{}_{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

async fn fresh(case: &str) -> PostgresFixture {
    let schema = unique_schema(case);
    let store = SqlIndexStore::connect_postgres(&database_url(), &schema)
        .await
        .expect("connects");
    PostgresFixture {
        store: Arc::new(store),
        schema,
    }
}

all_conformance_cases!(fresh);

#[tokio::test]
async fn replicas_starting_together_migrate_once() {
    let schema = unique_schema("replicas");
    let url = database_url();
    let (first, second) = tokio::join!(
        SqlIndexStore::connect_postgres(&url, &schema),
        SqlIndexStore::connect_postgres(&url, &schema),
    );
    let (first, second) = (first.expect("first"), second.expect("second"));
    let batch = neuralis_index::WriteBatch {
        project: "p".into(),
        source: "s".into(),
        source_id: None,
        writes: vec![],
    };
    first.write_batch(batch).await.expect("commits");
    assert_eq!(second.revision("p").await.expect("read"), 1);
    first.close().await;
    second.close().await;
    drop_schema(&schema).await;
}

#[tokio::test]
async fn a_schema_name_that_is_not_plain_names_the_field() {
    let err = SqlIndexStore::connect_postgres(&database_url(), "bad-name")
        .await
        .expect_err("refused");
    assert!(err.to_string().contains("index.postgres.schema"), "{err}");
}

#[tokio::test]
async fn a_vector_search_past_its_deadline_stops_and_says_so() {
    // Unbudgeted, the scan read every chunk of the project into memory on the shared
    // pool for as long as it took.
    let fixture = fresh("vector deadline").await;
    let chunks = (0..60_000u32)
        .map(|ordinal| neuralis_index::ChunkRow {
            ordinal,
            body: format!("chunk {ordinal}"),
            vector: Some(match ordinal {
                7_777 => vec![1.0, 0.0],
                123 => vec![1.0, 0.5],
                _ => vec![0.0, 1.0],
            }),
        })
        .collect();
    let batch = neuralis_index::WriteBatch {
        project: "p".into(),
        source: "s".into(),
        source_id: None,
        writes: vec![neuralis_index::RowWrite::Put {
            row: conformance::cases::row("p", "s", "big.md"),
            chunks: Some(chunks),
        }],
    };
    fixture.store.write_batch(batch).await.expect("writes");
    let started = std::time::Instant::now();
    let hits = fixture
        .store
        .search_vector("p", &[1.0, 0.0], 2)
        .await
        .expect("searched");
    let scan = started.elapsed();
    assert_eq!(
        hits.iter().map(|hit| hit.ordinal).collect::<Vec<_>>(),
        [7_777, 123]
    );
    // The same pool, its connection open already: the deadline falls in the scan (a
    // tenth of it, and at most 20 ms: the scan of 60,000 rows took 390 ms on a quiet
    // machine, and a first, cold one may take ten times a warm one), not in the wait for
    // a connection. Were it to fall before the scan, the search still stops and says so.
    let tight = neuralis_index::SearchBudget {
        deadline: (scan / 10).min(std::time::Duration::from_millis(20)),
        ..neuralis_index::SearchBudget::default()
    };
    let store = (*fixture.store).clone().with_search_budget(tight);
    match store.search_vector("p", &[1.0, 0.0], 2).await {
        Err(neuralis_index::IndexError::Exhausted(message)) => {
            assert!(message.contains("budget"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    conformance::Fixture::cleanup(fixture).await;
}
