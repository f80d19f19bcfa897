//! Upgrades and rollbacks on PostgreSQL (issue 26, docs/upgrading.md): a release's
//! migrations never break the release before it, a release starts on a store one
//! release newer when that release marked its steps compatible, and replicas in check
//! mode wait for `neuralis migrate up` instead of migrating.
//!
//! The release before this one is kept as a fixture: the columns its queries read and
//! write (`tests/fixtures/previous-release/postgres-columns.txt`, regenerated with
//! `UPDATE_FIXTURES=1` when a release is cut).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

use neuralis_access_store::StoreConfig;
use neuralis_index::SqlIndexStore;
use neuralis_schema::Mode;

const PREVIOUS_COLUMNS: &str = "fixtures/previous-release/postgres-columns.txt";

/// The last access-store migration of the release before this one. Its migrator
/// refuses a store holding any later version, so this release adds none; from this
/// release on, later versions marked compatible are accepted.
const PREVIOUS_ACCESS_STORE_LAST: i64 = 6;
/// The last index migration of the release before this one (it ignores later ones).
const PREVIOUS_INDEX_LAST: i64 = 8;

fn database() -> String {
    std::env::var("NEURALIS_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

fn psql(sql: &str) -> String {
    let out = Command::new("psql")
        .args([&database(), "-At", "-v", "ON_ERROR_STOP=1", "-c", sql])
        .output()
        .expect("psql runs");
    assert!(
        out.status.success(),
        "psql {sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A pair of fresh schema names (index, access store) for one test.
fn schemas(test: &str) -> (String, String) {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let base = format!("upg_{test}_{}_{n}", std::process::id());
    for schema in [format!("{base}_i"), format!("{base}_a")] {
        psql(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"));
    }
    (format!("{base}_i"), format!("{base}_a"))
}

fn access(schema: &str) -> StoreConfig {
    StoreConfig::Postgres {
        url: database(),
        max_connections: 2,
        schema: Some(schema.to_owned()),
    }
}

async fn migrate_both(index: &str, access_schema: &str, mode: Mode) -> Result<(), String> {
    SqlIndexStore::connect_postgres_with(&database(), index, mode)
        .await
        .map_err(|e| format!("index: {e}"))?;
    neuralis_access_store::open_with(&access(access_schema), mode)
        .await
        .map_err(|e| format!("access store: {e}"))?;
    Ok(())
}

/// `store table column → type nullable has_default` of the two schemas.
fn columns(index: &str, access_schema: &str) -> BTreeMap<String, (String, bool, bool)> {
    let rows = psql(&format!(
        "SELECT CASE table_schema WHEN '{index}' THEN 'index' ELSE 'access' END, table_name, \
         column_name, data_type, is_nullable, column_default IS NOT NULL \
         FROM information_schema.columns WHERE table_schema IN ('{index}', '{access_schema}') \
         AND table_name NOT LIKE '%_migrations_compatible'"
    ));
    rows.lines()
        .map(|line| {
            let f: Vec<&str> = line.split('|').collect();
            (
                format!("{} {} {}", f[0], f[1], f[2]),
                (f[3].to_owned(), f[4] == "YES", f[5] == "t"),
            )
        })
        .collect()
}

#[tokio::test]
async fn the_previous_release_reads_and_writes_every_column_it_knows_after_this_release_migrates() {
    let (index, access_schema) = schemas("columns");
    migrate_both(&index, &access_schema, Mode::Apply)
        .await
        .unwrap();
    let now = columns(&index, &access_schema);
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(PREVIOUS_COLUMNS);
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        let text: String = now
            .iter()
            .map(|(column, (kind, _, _))| format!("{column}\t{kind}\n"))
            .collect();
        std::fs::write(&fixture, text).unwrap();
    }
    let previous = std::fs::read_to_string(&fixture).unwrap();
    let mut tables_before = std::collections::BTreeSet::new();
    for line in previous.lines() {
        let (column, kind) = line.split_once('\t').unwrap();
        tables_before.insert(column.rsplit_once(' ').unwrap().0.to_owned());
        let found = now.get(column);
        assert!(
            found.is_some(),
            "{column} was removed: the previous release reads it"
        );
        assert_eq!(
            found.unwrap().0,
            kind,
            "{column} changed type under the previous release"
        );
    }
    // A column added to a table the previous release writes must not fail its inserts.
    for (column, (_, nullable, has_default)) in &now {
        let table = column.rsplit_once(' ').unwrap().0;
        let known = previous
            .lines()
            .any(|l| l.starts_with(&format!("{column}\t")));
        if tables_before.contains(table) && !known {
            assert!(
                *nullable || *has_default,
                "{column} is NOT NULL without a default: the previous release's inserts fail"
            );
        }
    }
}

#[tokio::test]
async fn the_previous_release_starts_on_a_store_this_release_migrated() {
    let (index, access_schema) = schemas("start");
    migrate_both(&index, &access_schema, Mode::Apply)
        .await
        .unwrap();
    let known = psql(&format!(
        "SELECT count(*) FROM {index}.index_migrations WHERE version <= {PREVIOUS_INDEX_LAST}"
    ));
    assert_eq!(known.trim(), PREVIOUS_INDEX_LAST.to_string());
    let last = psql(&format!(
        "SELECT max(version) FROM {access_schema}.access_store_migrations"
    ));
    assert_eq!(
        last.trim(),
        PREVIOUS_ACCESS_STORE_LAST.to_string(),
        "the previous release's access-store migrator refuses any later version"
    );
}

/// Records a migration a later release applied, marked compatible or not.
fn later_migration(index: &str, access_schema: &str, compatible: bool) {
    psql(&format!(
        "INSERT INTO {index}.index_migrations (version) VALUES (999); \
         INSERT INTO {access_schema}.access_store_migrations \
         (version, description, success, checksum, execution_time) \
         VALUES (999, 'a later release', true, '\\x00', 0)"
    ));
    if compatible {
        psql(&format!(
            "INSERT INTO {index}.index_migrations_compatible (version) VALUES (999); \
             INSERT INTO {access_schema}.access_store_migrations_compatible (version) VALUES (999)"
        ));
    }
}

#[tokio::test]
async fn this_release_starts_on_a_store_with_a_later_compatible_migration() {
    let (index, access_schema) = schemas("rollback");
    migrate_both(&index, &access_schema, Mode::Apply)
        .await
        .unwrap();
    later_migration(&index, &access_schema, true);
    for mode in [Mode::Apply, Mode::Check] {
        migrate_both(&index, &access_schema, mode).await.unwrap();
    }
}

#[tokio::test]
async fn this_release_refuses_a_later_incompatible_migration_and_names_it() {
    let (index, access_schema) = schemas("refuse");
    migrate_both(&index, &access_schema, Mode::Apply)
        .await
        .unwrap();
    later_migration(&index, &access_schema, false);
    let Err(index_error) =
        SqlIndexStore::connect_postgres_with(&database(), &index, Mode::Apply).await
    else {
        panic!("the index opened on a store with a later incompatible migration");
    };
    let index_error = index_error.to_string();
    assert!(index_error.contains("999"), "{index_error}");
    let Err(access_error) =
        neuralis_access_store::open_with(&access(&access_schema), Mode::Apply).await
    else {
        panic!("the access store opened on a store with a later incompatible migration");
    };
    let access_error = access_error.to_string();
    assert!(access_error.contains("999"), "{access_error}");
}

#[tokio::test]
async fn replicas_in_check_mode_wait_for_migrate_up_and_never_migrate() {
    let (index, access_schema) = schemas("check");
    let error = migrate_both(&index, &access_schema, Mode::Check)
        .await
        .unwrap_err();
    assert!(error.contains("neuralis migrate up"), "{error}");
    let tables = psql(&format!(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema IN ('{index}', '{access_schema}')"
    ));
    assert_eq!(tables.trim(), "0", "check mode changed the schema");

    let neuralis = neuralis_tests::process::neuralis_binary(env!("CARGO_BIN_EXE_neuralis-node"));
    let out = Command::new(neuralis)
        .args(["migrate", "up"])
        .env("NEURALIS__SYNC__INDEX__KIND", "postgres")
        .env("NEURALIS__SYNC__INDEX__URL", database())
        .env("NEURALIS__SYNC__INDEX__SCHEMA", &index)
        .env("NEURALIS__POLICY__STORE__BACKEND", "postgres")
        .env("NEURALIS__POLICY__STORE__URL", database())
        .env("NEURALIS__POLICY__STORE__SCHEMA", &access_schema)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    migrate_both(&index, &access_schema, Mode::Check)
        .await
        .unwrap();
}
