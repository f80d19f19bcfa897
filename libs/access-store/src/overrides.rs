//! Setting a conversation's file override within [`MAX_CONVERSATION_OVERRIDES`] and
//! [`MAX_CONVERSATION_OVERRIDE_BYTES`]: a new override is refused once the conversation
//! holds that many, or would hold more bytes of names; one it holds can always be
//! changed (and cleared, which needs no check).

use sqlx::{Decode, Encode, Executor, Pool, Type};

use crate::dialect::Dialect;
use crate::store::{MAX_CONVERSATION_OVERRIDE_BYTES, MAX_CONVERSATION_OVERRIDES};
use crate::{FileRef, StoreError, sql};

/// Sets (`enabled`) the override of `file` in conversation `id` of `project`, unless
/// that would take the conversation past the bound.
pub(crate) async fn set_conversation_override<DB>(
    pool: &Pool<DB>,
    project: &str,
    id: &str,
    file: &FileRef,
    enabled: bool,
) -> Result<(), StoreError>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> bool: Encode<'q, DB> + Type<DB>,
    for<'r> i64: Decode<'r, DB> + Type<DB>,
    (i64,): for<'r> sqlx::FromRow<'r, DB::Row>,
    (i64, i64): for<'r> sqlx::FromRow<'r, DB::Row>,
{
    let mut tx = DB::begin_write(pool).await?;
    sqlx::query(DB::CONVERSATION_OVERRIDES_LOCK)
        .bind(project)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    let (held,): (i64,) = sqlx::query_as(sql::CONVERSATION_OVERRIDE_HELD)
        .bind(project)
        .bind(id)
        .bind(file.package_key.as_str())
        .bind(file.path.as_str())
        .fetch_one(&mut *tx)
        .await?;
    if held == 0 {
        let (count, bytes): (i64, i64) = sqlx::query_as(DB::CONVERSATION_OVERRIDE_TOTALS)
            .bind(project)
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
        let adding = i64::try_from(file.package_key.len() + file.path.len()).unwrap_or(i64::MAX);
        if count >= MAX_CONVERSATION_OVERRIDES {
            return Err(limit_reached());
        }
        if bytes.saturating_add(adding) > MAX_CONVERSATION_OVERRIDE_BYTES {
            return Err(bytes_reached());
        }
    }
    sqlx::query(sql::SET_CONVERSATION_OVERRIDE)
        .bind(project)
        .bind(id)
        .bind(file.package_key.as_str())
        .bind(file.path.as_str())
        .bind(enabled)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// The refusal past the bytes: names the field, the bound and the way out.
fn bytes_reached() -> StoreError {
    StoreError::LimitReached {
        field: "file_path",
        message: format!(
            "the conversation's file overrides would name more than \
             {MAX_CONVERSATION_OVERRIDE_BYTES} bytes of package keys and paths, the most \
             they may; clear one (or enable or disable the package) first"
        ),
    }
}

/// The refusal: names the field, the bound and the way out, and nothing stored.
fn limit_reached() -> StoreError {
    StoreError::LimitReached {
        field: "file_path",
        message: format!(
            "the conversation already holds {MAX_CONVERSATION_OVERRIDES} file overrides, \
             the most it may; clear one (or enable or disable the package) first"
        ),
    }
}
