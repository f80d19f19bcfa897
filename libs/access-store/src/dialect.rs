//! What differs between the two backends, and only that: how a read-then-write
//! transaction starts, how a snapshot read is isolated, how the policy row of a
//! read-then-write is read, and how a batch of source ids is bound. Every operation is
//! written once, over this, in the `operations` module.

use std::future::Future;

use sqlx::{Database, Encode, IntoArguments, Pool, Transaction, Type};

use crate::StoreError;

/// One sqlx backend's fragments (implemented beside each backend's store).
pub(crate) trait Dialect: Database<Arguments: IntoArguments<Self>> {
    /// The stored policy a read-then-write merges floors from (`$1`: the source id),
    /// kept from other writers until the transaction commits.
    const POLICY_FOR_UPDATE: &'static str;

    /// Keeps other writers of one conversation's overrides (`$1`: project, `$2`:
    /// conversation) out until the transaction commits.
    const CONVERSATION_OVERRIDES_LOCK: &'static str;

    /// How many overrides one conversation (`$1`: project, `$2`: conversation) holds,
    /// and the bytes of their package keys and paths.
    const CONVERSATION_OVERRIDE_TOTALS: &'static str;

    /// Keeps other writers of one grantor's grants in one project (`$1`: project, `$2`:
    /// grantor key, or `revocations`) out until the transaction commits.
    const GRANTS_LOCK: &'static str;

    /// Keeps other writers of one of a project's counted sets (`$1`: the set's name,
    /// `$2`: project) out until the transaction commits.
    const PROJECT_LOCK: &'static str;

    /// A transaction for a read-then-write.
    fn begin_write(
        pool: &Pool<Self>,
    ) -> impl Future<Output = Result<Transaction<'static, Self>, sqlx::Error>> + Send;

    /// A read-only transaction whose statements all see one committed state.
    fn begin_snapshot(
        pool: &Pool<Self>,
    ) -> impl Future<Output = Result<Transaction<'static, Self>, sqlx::Error>> + Send;

    /// The rows of a batch's sources (`$1`: the ids, as [`Dialect::source_ids`] binds
    /// them).
    const SOURCES: &'static str;

    /// How the ids of a batch are bound.
    type SourceIds<'a>: Encode<'a, Self> + Type<Self> + Send;

    /// The ids of a batch, ready to bind to [`Dialect::SOURCES`].
    fn source_ids(ids: &[String]) -> Result<Self::SourceIds<'_>, StoreError>;

    /// How many rows a statement changed.
    fn rows_affected(result: &Self::QueryResult) -> u64;
}
