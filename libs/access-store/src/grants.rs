//! Role grants as stored: one grantor's grants replaced whole, and the default grants of
//! packages no longer installed retired (issue 27: the grantor of a default grant is its
//! package, so a removed package grants nothing).

use std::collections::BTreeSet;

use sqlx::{Decode, Encode, Executor, Type};

use crate::dialect::Dialect;
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
    sqlx::query(DB::GRANTS_LOCK)
        .bind(project)
        .bind(grantor)
        .execute(&mut *connection)
        .await?;
    sqlx::query(sql::DELETE_GRANTS)
        .bind(project)
        .bind(grantor)
        .execute(&mut *connection)
        .await?;
    for (role, features) in roles {
        for feature in features {
            sqlx::query(sql::INSERT_GRANT)
                .bind(project)
                .bind(grantor)
                .bind(role.as_str())
                .bind(feature.as_str())
                .execute(&mut *connection)
                .await?;
        }
    }
    Ok(())
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
    sqlx::query(DB::GRANTS_LOCK)
        .bind(project)
        .bind(REVOCATIONS_LOCK_KEY)
        .execute(&mut *connection)
        .await?;
    sqlx::query(sql::DELETE_REVOCATIONS)
        .bind(project)
        .execute(&mut *connection)
        .await?;
    for (role, features) in revoked {
        for feature in features {
            sqlx::query(sql::INSERT_REVOCATION)
                .bind(project)
                .bind(role.as_str())
                .bind(feature.as_str())
                .execute(&mut *connection)
                .await?;
        }
    }
    Ok(())
}

/// The key the revocations of a project are locked by: no grantor's key (those are
/// `admin` and `package:<id>`).
const REVOCATIONS_LOCK_KEY: &str = "revocations";

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
