//! Migrations, embedded in the binary and run when a store opens. They are tracked in a
//! table of their own, so the access store can share a database with other services.

use std::borrow::Cow;

use sqlx::SqlSafeStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};

/// The table recording applied migrations.
const MIGRATIONS_TABLE: &str = "access_store_migrations";

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
