//! Role grants as stored: one grantor's grants replaced whole, and the default grants of
//! packages no longer installed retired (issue 27: the grantor of a default grant is its
//! package, so a removed package grants nothing).

use std::collections::BTreeSet;

use sqlx::{Decode, Encode, Executor, Type};

use crate::dialect::Dialect;
use crate::store::MAX_PROJECT_GRANTS;
use crate::{RoleFeatures, StoreError, sql};

/// Replaces every grant of `grantor` in `project` ('' for every project) by `roles`.
pub(crate) async fn replace_grants<DB>(
    connection: &mut DB::Connection,
    project: &str,
    grantor: &str,
    roles: &RoleFeatures,
) -> Result<(), StoreError>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
{
    let set = RoleSet {
        lock_key: grantor,
        grantor: Some(grantor),
        delete: sql::DELETE_GRANTS,
        insert: sql::INSERT_GRANT,
    };
    replace_set::<DB>(connection, project, &set, roles).await
}

/// Replaces the administrator's revocations of package default grants in `project`
/// ('' for every project) by `revoked`.
pub(crate) async fn replace_revocations<DB>(
    connection: &mut DB::Connection,
    project: &str,
    revoked: &RoleFeatures,
) -> Result<(), StoreError>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
{
    let set = RoleSet {
        lock_key: REVOCATIONS_LOCK_KEY,
        grantor: None,
        delete: sql::DELETE_REVOCATIONS,
        insert: sql::INSERT_REVOCATION,
    };
    replace_set::<DB>(connection, project, &set, revoked).await
}

/// The key the revocations of a project are locked by: no grantor's key (those are
/// `admin` and `package:<id>`).
const REVOCATIONS_LOCK_KEY: &str = "revocations";

/// One set of (role, feature) rows of a project, replaced whole: a grantor's grants
/// (its statements bind the grantor after the project) or the project's revocations.
struct RoleSet<'a> {
    lock_key: &'a str,
    grantor: Option<&'a str>,
    delete: &'static str,
    insert: &'static str,
}

/// Replaces `set` in `project` by `roles`, under the set's lock: two replacements at
/// once would otherwise leave both (PostgreSQL's READ COMMITTED delete does not see the
/// other's new rows).
async fn replace_set<DB>(
    connection: &mut DB::Connection,
    project: &str,
    set: &RoleSet<'_>,
    roles: &RoleFeatures,
) -> Result<(), StoreError>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
{
    // The project's lock first, then the set's: every replacement takes them in this
    // order, so none waits on another in a circle.
    lock_project::<DB>(connection, project).await?;
    sqlx::query(DB::GRANTS_LOCK)
        .bind(project)
        .bind(set.lock_key)
        .execute(&mut *connection)
        .await?;
    let mut delete = sqlx::query(set.delete).bind(project);
    if let Some(grantor) = set.grantor {
        delete = delete.bind(grantor);
    }
    delete.execute(&mut *connection).await?;
    for (role, features) in roles {
        for feature in features {
            let mut insert = sqlx::query(set.insert).bind(project);
            if let Some(grantor) = set.grantor {
                insert = insert.bind(grantor);
            }
            insert
                .bind(role.as_str())
                .bind(feature.as_str())
                .execute(&mut *connection)
                .await?;
        }
    }
    Ok(())
}

/// The name of a project's grants in [`Dialect::PROJECT_LOCK`].
const PROJECT_GRANTS: &str = "grants";

/// The rows `project`'s own grants and revocations hold now, under the project's lock
/// (held until the transaction ends): what [`within_bound`] compares the call's
/// outcome with.
pub(crate) async fn held_before<DB>(
    connection: &mut DB::Connection,
    project: &str,
) -> Result<i64, StoreError>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'r> i64: Decode<'r, DB> + Type<DB>,
    (i64,): for<'r> sqlx::FromRow<'r, DB::Row>,
{
    lock_project::<DB>(connection, project).await?;
    project_rows::<DB>(connection, project).await
}

/// Keeps other writers of `project`'s grants out until the transaction ends (taken
/// again by the same transaction, it is already held).
async fn lock_project<DB>(connection: &mut DB::Connection, project: &str) -> Result<(), StoreError>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
{
    sqlx::query(DB::PROJECT_LOCK)
        .bind(PROJECT_GRANTS)
        .bind(project)
        .execute(&mut *connection)
        .await?;
    Ok(())
}

/// Refuses, before its transaction commits, a replacement that leaves `project`'s own
/// grants and revocations holding more than [`MAX_PROJECT_GRANTS`] rows and more than
/// `before` ([`held_before`]): a project over the bound (from before it, say) may still
/// shrink. Counted once every set of the call is replaced (an administrator's grants
/// may grow while their revocations shrink).
pub(crate) async fn within_bound<DB>(
    connection: &mut DB::Connection,
    project: &str,
    before: i64,
) -> Result<(), StoreError>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'r> i64: Decode<'r, DB> + Type<DB>,
    (i64,): for<'r> sqlx::FromRow<'r, DB::Row>,
{
    if project == sql::EVERY_PROJECT {
        return Ok(());
    }
    let held = project_rows::<DB>(connection, project).await?;
    if held <= MAX_PROJECT_GRANTS || held <= before {
        return Ok(());
    }
    Err(StoreError::LimitReached {
        field: "grants",
        message: format!(
            "the project's own grants and revocations would hold {held} role features, \
             more than the {MAX_PROJECT_GRANTS} they may; replace a grantor's grants with \
             fewer first"
        ),
    })
}

async fn project_rows<DB>(connection: &mut DB::Connection, project: &str) -> Result<i64, StoreError>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'r> i64: Decode<'r, DB> + Type<DB>,
    (i64,): for<'r> sqlx::FromRow<'r, DB::Row>,
{
    let (held,): (i64,) = sqlx::query_as(sql::PROJECT_GRANT_ROWS)
        .bind(project)
        .fetch_one(&mut *connection)
        .await?;
    Ok(held)
}

/// Forgets the default grants (in every project) of every package not in `installed`;
/// what an administrator granted or revoked is another grantor's, and stays.
pub(crate) async fn retire_packages<DB>(
    connection: &mut DB::Connection,
    installed: &BTreeSet<String>,
) -> Result<(), StoreError>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'r> String: Decode<'r, DB> + Type<DB>,
    usize: sqlx::ColumnIndex<DB::Row>,
{
    let grantors: Vec<String> = sqlx::query_scalar(sql::ATTACHED_GRANTORS)
        .fetch_all(&mut *connection)
        .await?;
    let removed = grantors.iter().filter(|grantor| {
        let id = grantor.strip_prefix("package:").unwrap_or(grantor.as_str());
        !installed.contains(id)
    });
    for grantor in removed {
        sqlx::query(sql::DELETE_GRANTS)
            .bind(sql::EVERY_PROJECT)
            .bind(grantor.as_str())
            .execute(&mut *connection)
            .await?;
    }
    Ok(())
}
