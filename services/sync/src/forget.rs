//! The port through which a source's access state is forgotten before its rows go
//! (DESIGN.md section 5, "Deleting a source deletes its access state"): policy deletes
//! the source's URI policy, its switch, and every package state and file override keyed
//! under its id. `DeleteSource` calls it first; when it fails, nothing is deleted, so a
//! failed delete can be retried and never leaves access state behind rows that are gone.

/// Why the access state could not be forgotten.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("forgetting the source's access state failed: {0}")]
pub struct ForgetError(pub String);

/// Forgets everything access control keeps for one source.
#[async_trait::async_trait]
pub trait AccessForgetter: Send + Sync + 'static {
    /// Deletes the access state of `source_id` (`<project>/<slug>.<hex>`). Idempotent:
    /// a source with no state is forgotten at once.
    async fn forget_source(&self, source_id: &str) -> Result<(), ForgetError>;
}

/// Forgets nothing and says so: for tools and tests that run sync without policy. A
/// recreated source cannot inherit from it anyway (ids are never reused), but the old
/// state stays in the policy store.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoForget;

#[async_trait::async_trait]
impl AccessForgetter for NoForget {
    async fn forget_source(&self, source_id: &str) -> Result<(), ForgetError> {
        tracing::warn!(
            source_id,
            "source deleted without forgetting its access state (no policy forgetter wired)"
        );
        Ok(())
    }
}
