//! The persisted configuration that bears on one request, read afresh for every request
//! by the policy service (seed 000: "Every request re-reads the source's persisted
//! configuration").

use std::collections::{BTreeSet, HashMap};

use crate::{FileOverrides, UriPolicy};

/// A source's persisted switch and policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRecord {
    /// The per-source enabled flag; a disabled source contributes nothing.
    pub enabled: bool,
    /// The persisted URI policy; a source without one contributes nothing.
    pub policy: Option<UriPolicy>,
}

/// Everything evaluation reads, for one caller and one batch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessSnapshot {
    /// The batch's sources known to the store; an unknown source is not visible.
    pub sources: HashMap<String, SourceRecord>,
    /// The features granted to the caller's role by every grantor.
    pub role_features: BTreeSet<String>,
    /// Package enable states in the project, by package key; absent means enabled.
    pub package_enabled: HashMap<String, bool>,
    /// The caller's agent's per-file overrides.
    pub agent_overrides: FileOverrides,
    /// Conversation overrides along the delegate chain, child first.
    pub conversation_chain: Vec<FileOverrides>,
}

impl AccessSnapshot {
    /// The package's enable state: enabled unless switched off.
    pub fn package_enabled(&self, key: &str) -> bool {
        self.package_enabled.get(key).copied().unwrap_or(true)
    }
}

/// The URI scope an installed package's own files live under (`packages://<id>`; seed
/// 002, "uriPolicies"): the key its attached baseline policy is stored under, read like
/// a source's. An installed package with no policy there has no path gate.
pub fn installed_scope(package_key: &str) -> String {
    format!("packages://{package_key}")
}
