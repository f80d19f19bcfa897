//! A project's package states within [`MAX_PACKAGE_STATES`]: a state under a new key is
//! refused once the project holds that many; one it holds can always be changed, and
//! forgetting one makes room.

use sqlx::{Decode, Encode, Executor, Pool, Type};

use crate::dialect::Dialect;
use crate::store::MAX_PACKAGE_STATES;
use crate::{StoreError, sql};

/// The name of a project's package states in [`Dialect::PROJECT_LOCK`].
const PACKAGE_STATES: &str = "package-states";

/// Sets `package_key`'s state in `project`, unless a new state would take the project
/// past the bound.
pub(crate) async fn set<DB>(
    pool: &Pool<DB>,
    project: &str,
    package_key: &str,
    enabled: bool,
) -> Result<(), StoreError>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> bool: Encode<'q, DB> + Type<DB>,
    for<'r> i64: Decode<'r, DB> + Type<DB>,
    (i64,): for<'r> sqlx::FromRow<'r, DB::Row>,
{
    let mut tx = DB::begin_write(pool).await?;
    sqlx::query(DB::PROJECT_LOCK)
        .bind(PACKAGE_STATES)
        .bind(project)
        .execute(&mut *tx)
        .await?;
    let (held,): (i64,) = sqlx::query_as(sql::PACKAGE_STATE_HELD)
        .bind(project)
        .bind(package_key)
        .fetch_one(&mut *tx)
        .await?;
    if held == 0 {
        let (count,): (i64,) = sqlx::query_as(sql::PACKAGE_STATES_HELD)
            .bind(project)
            .fetch_one(&mut *tx)
            .await?;
        if count >= MAX_PACKAGE_STATES {
            return Err(StoreError::LimitReached {
                field: "package_key",
                message: format!(
                    "the project already holds {MAX_PACKAGE_STATES} package states, the most \
                     it may; reset one first"
                ),
            });
        }
    }
    sqlx::query(sql::SET_PACKAGE)
        .bind(project)
        .bind(package_key)
        .bind(enabled)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}
