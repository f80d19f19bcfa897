//! Migrations, embedded in the binary and run when a store opens (or, in check mode,
//! only checked: `neuralis migrate up` runs them once per release). They are tracked in
//! a table of their own, so the access store can share a database with other services;
//! beside it, the versions marked compatible with the release before theirs, so a
//! release rolled back to runs on a store one release newer (`neuralis-schema`).

use std::borrow::Cow;

use neuralis_schema::{Applied, Known, Mode, State};
use sqlx::migrate::{Migrate, Migration, MigrationType, Migrator};
use sqlx::{ColumnIndex, Database, Decode, Executor, IntoArguments, Pool, SqlSafeStr, Type};

use crate::StoreError;

/// The table recording applied migrations.
const MIGRATIONS_TABLE: &str = "access_store_migrations";

/// Versions the release before the one that shipped them does not survive (a contract
/// step: keys rewritten, a table replaced). Every other version is an expand step,
/// marked compatible when applied. A new migration is compatible unless listed here.
const INCOMPATIBLE: [i64; 4] = [1, 2, 3, 6];

const MARKS: &str =
    "CREATE TABLE IF NOT EXISTS access_store_migrations_compatible (version BIGINT PRIMARY KEY)";

/// Applies the missing migrations (`Mode::Apply`) or refuses a store that lacks one
/// (`Mode::Check`); either way refuses a store holding a later release's migration that
/// is not marked compatible.
pub(crate) async fn prepare<DB>(
    pool: &Pool<DB>,
    mut migrator: Migrator,
    mode: Mode,
) -> Result<(), StoreError>
where
    DB: Database,
    DB::Connection: Migrate,
    for<'c> &'c Pool<DB>: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    i64: for<'r> Decode<'r, DB> + Type<DB> + for<'q> sqlx::Encode<'q, DB>,
    usize: ColumnIndex<DB::Row>,
{
    let known = known(&migrator);
    let plan = neuralis_schema::plan(&known, &applied(pool).await?, mode)
        .map_err(|refusal| StoreError::Schema(refusal.to_string()))?;
    if plan.apply.is_empty() {
        return Ok(());
    }
    // A later release's versions (already checked compatible) are not ours to judge.
    migrator.set_ignore_missing(true);
    migrator.run(pool).await?;
    sqlx::raw_sql(MARKS).execute(pool).await?;
    for version in plan.apply {
        if known.iter().any(|k| k.version == version && k.compatible) {
            sqlx::query("INSERT INTO access_store_migrations_compatible (version) VALUES ($1)")
                .bind(version)
                .execute(pool)
                .await?;
        }
    }
    Ok(())
}

/// Every version this release or the store knows, with its state (changes nothing).
pub(crate) async fn status<DB>(pool: &Pool<DB>) -> Result<Vec<(i64, State)>, StoreError>
where
    DB: Database,
    for<'c> &'c Pool<DB>: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    i64: for<'r> Decode<'r, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    Ok(status_of(&applied(pool).await?))
}

/// Every version this release knows or `applied` lists, with its state.
pub(crate) fn status_of(applied: &[Applied]) -> Vec<(i64, State)> {
    neuralis_schema::status(&known(&migrator()), applied)
}

fn known(migrator: &Migrator) -> Vec<Known> {
    migrator
        .iter()
        .map(|m| Known {
            version: m.version,
            compatible: !INCOMPATIBLE.contains(&m.version),
        })
        .collect()
}

async fn applied<DB>(pool: &Pool<DB>) -> Result<Vec<Applied>, StoreError>
where
    DB: Database,
    for<'c> &'c Pool<DB>: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    i64: for<'r> Decode<'r, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    let versions = versions_in(pool, "SELECT version FROM access_store_migrations").await?;
    let marked = versions_in(
        pool,
        "SELECT version FROM access_store_migrations_compatible",
    )
    .await?;
    Ok(versions
        .into_iter()
        .map(|version| Applied {
            version,
            compatible: marked.contains(&version),
        })
        .collect())
}

/// The versions a bookkeeping table lists; none when the table does not exist yet (the
/// database answers with an error of its own), unavailable when it does not answer.
async fn versions_in<DB>(pool: &Pool<DB>, query: &'static str) -> Result<Vec<i64>, StoreError>
where
    DB: Database,
    for<'c> &'c Pool<DB>: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    i64: for<'r> Decode<'r, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    match sqlx::query_scalar::<DB, i64>(query).fetch_all(pool).await {
        Ok(versions) => Ok(versions),
        Err(sqlx::Error::Database(_)) => Ok(Vec::new()),
        Err(other) => Err(other.into()),
    }
}

/// The migrator over every migration of the access store.
pub(crate) fn migrator() -> Migrator {
    let migrations = vec![
        Migration::new(
            1,
            Cow::Borrowed("access store"),
            MigrationType::Simple,
            include_str!("../migrations/0001_access_store.sql").into_sql_str(),
            false,
        ),
        Migration::new(
            2,
            Cow::Borrowed("role grants per project"),
            MigrationType::Simple,
            include_str!("../migrations/0002_role_grants_per_project.sql").into_sql_str(),
            false,
        ),
        Migration::new(
            3,
            Cow::Borrowed("package keys by source id"),
            MigrationType::Simple,
            include_str!("../migrations/0003_package_keys_by_source_id.sql").into_sql_str(),
            false,
        ),
        Migration::new(
            4,
            Cow::Borrowed("package key rekeys"),
            MigrationType::Simple,
            include_str!("../migrations/0004_package_key_rekeys.sql").into_sql_str(),
            false,
        ),
        Migration::new(
            5,
            Cow::Borrowed("package attach"),
            MigrationType::Simple,
            include_str!("../migrations/0005_package_attach.sql").into_sql_str(),
            false,
        ),
        Migration::new(
            6,
            Cow::Borrowed("conversations per project"),
            MigrationType::Simple,
            include_str!("../migrations/0006_conversations_per_project.sql").into_sql_str(),
            false,
        ),
    ];
    let mut migrator = Migrator::with_migrations(migrations);
    migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
    migrator
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use sqlx::sqlite::SqlitePoolOptions;

    use super::*;

    #[tokio::test]
    async fn grants_stored_before_grants_were_per_project_apply_in_every_project() {
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect("sqlite::memory:")
            .await
            .unwrap();
        let mut first = migrator();
        first.migrations = Cow::Owned(first.migrations[..1].to_vec());
        first.run(&pool).await.unwrap();
        sqlx::query("INSERT INTO access_role_features (grantor, role, feature) VALUES ('admin', 'member', 'old.grant')")
            .execute(&pool)
            .await
            .unwrap();
        migrator().run(&pool).await.unwrap();
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT project, feature FROM access_role_grants")
                .fetch_all(&pool)
                .await
                .unwrap();
        assert_eq!(rows, vec![(String::new(), "old.grant".to_owned())]);
    }

    #[tokio::test]
    async fn package_states_stored_by_slug_follow_the_legacy_source_id() {
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect("sqlite::memory:")
            .await
            .unwrap();
        let mut first = migrator();
        first.migrations = Cow::Owned(first.migrations[..2].to_vec());
        first.run(&pool).await.unwrap();
        for (project, key) in [
            ("p", "repo/claude"),
            ("p", "@acme/helper"),
            ("p", "plain-package"),
        ] {
            sqlx::query("INSERT INTO access_package_states (project, package_key, enabled) VALUES ($1, $2, false)")
                .bind(project)
                .bind(key)
                .execute(&pool)
                .await
                .unwrap();
        }
        sqlx::query("INSERT INTO access_conversations (conversation, project) VALUES ('c1', 'p')")
            .execute(&pool)
            .await
            .unwrap();
        sqlx::query("INSERT INTO access_conversation_overrides (conversation, package_key, file_path, enabled) VALUES ('c1', 'repo/claude', 'a.md', false)")
            .execute(&pool)
            .await
            .unwrap();
        migrator().run(&pool).await.unwrap();
        let mut keys: Vec<String> =
            sqlx::query_scalar("SELECT package_key FROM access_package_states")
                .fetch_all(&pool)
                .await
                .unwrap();
        keys.sort();
        assert_eq!(keys, ["@acme/helper", "p/repo/claude", "plain-package"]);
        let overridden: String =
            sqlx::query_scalar("SELECT package_key FROM access_conversation_overrides")
                .fetch_one(&pool)
                .await
                .unwrap();
        assert_eq!(overridden, "p/repo/claude");
    }

    #[tokio::test]
    async fn conversations_stored_before_ids_were_per_project_keep_their_project_and_overrides() {
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect("sqlite::memory:")
            .await
            .unwrap();
        let mut first = migrator();
        first.migrations = Cow::Owned(first.migrations[..5].to_vec());
        first.run(&pool).await.unwrap();
        for statement in [
            "INSERT INTO access_conversations (conversation, project) VALUES ('root', 'p')",
            "INSERT INTO access_conversations (conversation, project, parent) VALUES ('c1', 'p', 'root')",
            "INSERT INTO access_conversation_overrides (conversation, package_key, file_path, enabled) VALUES ('c1', 'p/repo/claude', 'a.md', false)",
        ] {
            sqlx::query(statement).execute(&pool).await.unwrap();
        }
        migrator().run(&pool).await.unwrap();
        let conversations: Vec<(String, String, Option<String>)> = sqlx::query_as(
            "SELECT project, conversation, parent FROM access_conversations ORDER BY conversation",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        assert_eq!(
            conversations,
            vec![
                ("p".into(), "c1".into(), Some("root".into())),
                ("p".into(), "root".into(), None),
            ]
        );
        let overrides: Vec<(String, String)> =
            sqlx::query_as("SELECT project, conversation FROM access_conversation_overrides")
                .fetch_all(&pool)
                .await
                .unwrap();
        assert_eq!(overrides, vec![("p".into(), "c1".into())]);
    }
}
