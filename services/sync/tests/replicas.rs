//! Several sync replicas on one PostgreSQL store and one Redis channel: what one
//! replica writes, the other reads at the same revision, and concurrent syncs from both
//! each raise the revision once per batch.

mod support;

use neuralis_index::SqlIndexStore;
use std::sync::Arc;
use support::{CountingStore, Setup, tree};

const PROJECT: &str = "project-replicas";

fn database_url() -> String {
    std::env::var("NEURALIS_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

async fn replica(schema: &str, channel: &str) -> support::Harness {
    let store = SqlIndexStore::connect_postgres(&database_url(), schema)
        .await
        .expect("postgres");
    let mut setup = Setup::redis(channel).await;
    setup.store = Some(Arc::new(CountingStore::new(Arc::new(store))));
    support::start(setup).await
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_share_one_index_and_one_revision() {
    let schema = format!("sync_replicas_{}", std::process::id());
    let channel = support::unique_channel("replicas");
    let (first, second) = (
        replica(&schema, &channel).await,
        replica(&schema, &channel).await,
    );
    let (repo_a, repo_b) = (tree::repository(), tree::repository());
    support::create(
        &first.client,
        support::local_spec(PROJECT, "a", repo_a.path(), "manual"),
    )
    .await;
    support::create(
        &second.client,
        support::local_spec(PROJECT, "b", repo_b.path(), "manual"),
    )
    .await;

    let (done_a, done_b) = tokio::join!(
        support::synced(&first.client, PROJECT, "a"),
        support::synced(&second.client, PROJECT, "b"),
    );
    let batches = |done: &neuralis_proto::sync::v1::SyncSourceResponse| {
        done.progress.expect("progress").batches_committed
    };
    let revision = support::revision(&first.client, PROJECT).await;
    assert_eq!(
        revision,
        batches(&done_a) + batches(&done_b),
        "one revision per batch, whichever replica wrote it"
    );
    assert_eq!(support::revision(&second.client, PROJECT).await, revision);
    let (read_revision, entries) = support::entries(&second.client, PROJECT).await;
    assert_eq!(read_revision, revision);
    assert_eq!(
        entries.iter().filter(|e| e.source == "a").count(),
        entries.iter().filter(|e| e.source == "b").count()
    );

    drop(first);
    drop(second);
    drop_schema(&schema).await;
}
