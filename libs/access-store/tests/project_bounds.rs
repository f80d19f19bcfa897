//! What an administrator of one project grows is bounded per project, on both backends:
//! its package states (`MAX_PACKAGE_STATES`) and its own grants and
//! revocations (`MAX_PROJECT_GRANTS`). Every evaluation in the project reads them all;
//! before these bounds any key and any new package id as grantor were stored without
//! end. Two writes at once never both take the last room.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use neuralis_access::{Grantor, RoleGrants};
use neuralis_access_store::config::StoreConfig;
use neuralis_access_store::testing::{Backend, with_store};
use neuralis_access_store::{
    AccessStore, MAX_PACKAGE_STATES, MAX_PROJECT_GRANTS, RoleFeatures, SnapshotQuery, StoreError,
};

type Store = Arc<dyn AccessStore>;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_holds_at_most_its_package_states_embedded() {
    with_store(
        Backend::Embedded,
        a_project_holds_at_most_its_package_states,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_holds_at_most_its_package_states_postgres() {
    with_store(
        Backend::Postgres,
        a_project_holds_at_most_its_package_states,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_projects_own_grants_hold_at_most_the_bound_embedded() {
    with_store(
        Backend::Embedded,
        a_projects_own_grants_hold_at_most_the_bound,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_projects_own_grants_hold_at_most_the_bound_postgres() {
    with_store(
        Backend::Postgres,
        a_projects_own_grants_hold_at_most_the_bound,
    )
    .await
}

/// Runs one statement on the store's database, outside the store: seeding rows in
/// bulk, which the store's one-row calls would take minutes to write.
async fn seed(config: &StoreConfig, sqlite: &str, postgres: &str) {
    match config {
        StoreConfig::Embedded { path } => {
            let url = format!("sqlite://{}", path.display());
            let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
            sqlx::raw_sql(sqlx::AssertSqlSafe(sqlite.to_owned()))
                .execute(&pool)
                .await
                .unwrap();
            pool.close().await;
        }
        StoreConfig::Postgres { url, schema, .. } => {
            let schema = schema.as_deref().unwrap();
            let pool = sqlx::PgPool::connect(url).await.unwrap();
            let statement = format!("SET search_path TO {schema}; {postgres}");
            sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
                .execute(&pool)
                .await
                .unwrap();
            pool.close().await;
        }
    }
}

/// `rows` rows `(project, i, ...)` for `i` in `1..=rows`, as each backend writes them.
async fn seed_rows(config: &StoreConfig, rows: i64, table_and_select: (&str, &str)) {
    let (table, select) = table_and_select;
    let sqlite = format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows}) \
         INSERT INTO {table} {select} FROM n"
    );
    let postgres = format!("INSERT INTO {table} {select} FROM generate_series(1, {rows}) AS n(i)");
    seed(config, &sqlite, &postgres).await;
}

fn refused_naming(outcome: Result<(), StoreError>, field: &str) {
    match outcome {
        Err(StoreError::LimitReached { field: named, .. }) => assert_eq!(named, field),
        other => panic!("{other:?}"),
    }
}

async fn a_project_holds_at_most_its_package_states(store: Store, config: StoreConfig) {
    // One place left in p1.
    let select = "SELECT 'p1', 'seed/' || CAST(i AS TEXT), false";
    seed_rows(
        &config,
        MAX_PACKAGE_STATES - 1,
        ("access_package_states", select),
    )
    .await;
    let off = |key: &'static str| {
        let store = Arc::clone(&store);
        tokio::spawn(async move { store.set_package_enabled("p1", key, false).await })
    };
    let (first, second) = tokio::join!(off("new/a"), off("new/b"));
    let mut outcomes = [first.unwrap(), second.unwrap()];
    outcomes.sort_by_key(Result::is_err);
    let [taken, refused] = outcomes;
    taken.unwrap();
    refused_naming(refused, "package_key");
    // A state the project holds can still be set either way; a state switched on
    // still counts (it wins over a legacy key's at a rekey); forgetting one makes room.
    store
        .set_package_enabled("p1", "seed/7", true)
        .await
        .unwrap();
    refused_naming(
        store.set_package_enabled("p1", "new/c", true).await,
        "package_key",
    );
    store.forget_package_state("p1", "seed/7").await.unwrap();
    store
        .set_package_enabled("p1", "new/c", false)
        .await
        .unwrap();
    // Another project has room of its own.
    store
        .set_package_enabled("p2", "new/a", false)
        .await
        .unwrap();
    let snapshot = store.snapshot(&query("p1")).await.unwrap();
    assert!(!snapshot.package_enabled.contains_key("seed/7"));
    assert!(!snapshot.package_enabled("new/c"));
    assert_eq!(
        snapshot.package_enabled.len(),
        usize::try_from(MAX_PACKAGE_STATES).unwrap()
    );
}

fn query(project: &str) -> SnapshotQuery {
    SnapshotQuery {
        project: project.into(),
        role: "member".into(),
        agent: None,
        conversation: None,
        source_ids: Vec::new(),
    }
}

/// `count` features of role `member`.
fn features(prefix: &str, count: usize) -> RoleFeatures {
    let features: BTreeSet<String> = (0..count).map(|i| format!("{prefix}.f{i}")).collect();
    BTreeMap::from([("member".to_owned(), features)])
}

fn package(id: &str, roles: RoleFeatures) -> RoleGrants {
    RoleGrants {
        grantor: Grantor::Package(id.into()),
        roles,
    }
}

async fn a_projects_own_grants_hold_at_most_the_bound(store: Store, config: StoreConfig) {
    // Room for 20 more rows in p1.
    let select = "SELECT 'p1', 'package:seed', 'member', 'seed.f' || CAST(i AS TEXT)";
    let table = "access_role_grants (project, grantor, role, feature)";
    seed_rows(&config, MAX_PROJECT_GRANTS - 20, (table, select)).await;
    // Two new grantors at once, 15 rows each: one fits, the other would not.
    let put = |id: &'static str| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            store
                .put_role_grants(Some("p1"), &package(id, features(id, 15)))
                .await
        })
    };
    let (first, second) = tokio::join!(put("a"), put("b"));
    let mut outcomes = [first.unwrap(), second.unwrap()];
    outcomes.sort_by_key(Result::is_err);
    let [taken, refused] = outcomes;
    taken.unwrap();
    refused_naming(refused, "grants");
    // The administrator's revocations count too; exactly at the bound is allowed.
    let revoked = features("x", 5);
    store
        .put_administrator_grants(Some("p1"), &RoleFeatures::new(), &revoked)
        .await
        .unwrap();
    refused_naming(
        store
            .put_administrator_grants(Some("p1"), &features("y", 1), &revoked)
            .await,
        "grants",
    );
    // Replacing a grantor's grants with fewer makes room; a refused call stored nothing.
    let before = store.snapshot(&query("p1")).await.unwrap().role_features;
    assert!(!before.contains("y.f0"));
    let first = if before.contains("a.f0") { "a" } else { "b" };
    store
        .put_role_grants(Some("p1"), &package(first, features(first, 14)))
        .await
        .unwrap();
    store
        .put_administrator_grants(Some("p1"), &features("y", 1), &revoked)
        .await
        .unwrap();
    // A project over the bound (seeded past it, as one could be from before the bound)
    // may still shrink while it stays over it; it may not grow.
    let seeded = |grantor: &str| {
        format!("SELECT 'p3', 'package:{grantor}', 'member', '{grantor}.f' || CAST(i AS TEXT)")
    };
    seed_rows(&config, MAX_PROJECT_GRANTS + 100, (table, &seeded("seed"))).await;
    seed_rows(&config, 20, (table, &seeded("other"))).await;
    let other = |count| package("other", features("other", count));
    store.put_role_grants(Some("p3"), &other(10)).await.unwrap();
    refused_naming(
        store.put_role_grants(Some("p3"), &other(15)).await,
        "grants",
    );
    store.put_role_grants(Some("p3"), &other(0)).await.unwrap();
    // Grants for every project and another project's are not this project's.
    let wide = features("wide", 300);
    store
        .put_role_grants(None, &package("wide", wide.clone()))
        .await
        .unwrap();
    store
        .put_role_grants(Some("p2"), &package("wide", wide))
        .await
        .unwrap();
}
