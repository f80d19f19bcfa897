//! Compiled policies reused across requests while the stored policy text is unchanged.
//!
//! Seed 000 ("How current the answer is"): "nothing about it is ever reused. Every
//! request re-reads the source's persisted configuration and re-evaluates whether the
//! source is enabled, whether the caller's scope reaches it, and every URI-policy rule".
//! The policy service still reads the policy afresh for every request and every rule is
//! still evaluated for every path of every request; what is reused is only the parsed
//! and filed form of a policy whose text equals the one just read, compared rule by rule
//! on every lookup. A changed policy is recompiled on the request that first reads it;
//! nothing here depends on a caller or holds a decision (docs/decisions/policy.md).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::{AccessError, CompiledPolicy, UriPolicy};

/// The most policies kept; past it the cache starts over (a bound, not a tuning knob:
/// one entry per source or installed scope a node serves).
pub const MAX_CACHED_POLICIES: usize = 4096;

/// Compiled policies by the key they are stored under (a source id or installed scope).
#[derive(Debug, Default)]
pub struct PolicyCache {
    entries: Mutex<HashMap<String, Arc<CompiledPolicy>>>,
}

impl PolicyCache {
    /// An empty cache.
    pub fn new() -> Self {
        PolicyCache::default()
    }

    /// `policy` (just read from the store under `key`) compiled: the kept compilation
    /// when it was made from an equal policy, else a new one, kept for the next request.
    /// A policy that does not validate is an error and is never kept.
    pub fn compiled(
        &self,
        key: &str,
        policy: &UriPolicy,
    ) -> Result<Arc<CompiledPolicy>, AccessError> {
        let kept = self.lock().get(key).cloned();
        // Compared outside the lock: the entry is immutable once shared.
        if let Some(kept) = kept.filter(|kept| kept.policy() == policy) {
            return Ok(kept);
        }
        let compiled = Arc::new(CompiledPolicy::new(policy)?);
        let mut entries = self.lock();
        if entries.len() >= MAX_CACHED_POLICIES && !entries.contains_key(key) {
            entries.clear();
        }
        entries.insert(key.to_owned(), compiled.clone());
        Ok(compiled)
    }

    /// How many policies are kept.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no policy is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<CompiledPolicy>>> {
        // A panic while holding the lock leaves a map of whole entries: still usable.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
