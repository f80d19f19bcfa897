//! Rows to access records, written once for both backends.

use neuralis_access::policy::MAX_RULES;
use neuralis_access::{AccessSnapshot, FileOverrides, SourceRecord, UriPolicy};

/// A source row. A stored policy that no longer parses makes the source contribute
/// nothing (fail closed) and is reported.
pub(crate) fn source_record(
    source_id: &str,
    enabled: bool,
    policy: Option<String>,
) -> SourceRecord {
    let policy = policy.and_then(|text| match UriPolicy::from_stored_json(&text) {
        Ok(policy) => Some(policy),
        Err(error) => {
            tracing::warn!(source_id, %error, "stored uri policy is unreadable; the source contributes nothing");
            None
        }
    });
    SourceRecord { enabled, policy }
}

/// The rows of one snapshot read.
pub(crate) struct SnapshotRows {
    pub(crate) sources: Vec<(String, bool, Option<String>)>,
    pub(crate) role_features: Vec<String>,
    pub(crate) packages: Vec<(String, bool)>,
    pub(crate) agent_overrides: Vec<(String, String, bool)>,
    pub(crate) chain_overrides: Vec<(i64, String, String, bool)>,
}

impl SnapshotRows {
    pub(crate) fn into_snapshot(self) -> AccessSnapshot {
        let mut chain: Vec<FileOverrides> = Vec::new();
        for (depth, package, path, enabled) in self.chain_overrides {
            let depth = usize::try_from(depth).unwrap_or(0);
            if chain.len() <= depth {
                chain.resize_with(depth + 1, FileOverrides::default);
            }
            chain[depth].insert(package, path, enabled);
        }
        AccessSnapshot {
            sources: self
                .sources
                .into_iter()
                .map(|(id, enabled, policy)| {
                    let record = source_record(&id, enabled, policy);
                    (id, record)
                })
                .collect(),
            role_features: self.role_features.into_iter().collect(),
            package_enabled: self.packages.into_iter().collect(),
            agent_overrides: self.agent_overrides.into_iter().collect(),
            conversation_chain: chain,
        }
    }
}

/// The stored policy `next` becomes, with every floor of the previous one kept. A
/// previous policy that no longer parses stops the write: its floors cannot be lost.
pub(crate) fn merge_floors(
    previous: Option<String>,
    next: &UriPolicy,
) -> Result<UriPolicy, crate::StoreError> {
    let previous =
        match previous {
            None => None,
            Some(text) => Some(UriPolicy::from_stored_json(&text).map_err(|_| {
                crate::StoreError::Internal("stored uri policy is unreadable".into())
            })?),
        };
    let stored = neuralis_access::floor::keep_floors(previous.as_ref(), next.clone());
    if stored.paths.len() > MAX_RULES {
        return Err(too_many_rules(stored.paths.len() - next.paths.len()));
    }
    Ok(stored)
}

/// The refusal of a policy that fits the bound alone but not with the floors stored
/// before it: stored, it would fail to compile and hide the whole source from every
/// caller, and no later edit could bring it back under the bound (floors are never
/// removed). Restating a stored floor adds no rule, so the way out is fewer rules of
/// the policy's own.
fn too_many_rules(kept_floors: usize) -> crate::StoreError {
    crate::StoreError::LimitReached {
        field: "policy.paths",
        message: format!(
            "with the {kept_floors} floors stored before it (floors are never removed), \
             the policy would hold more than {MAX_RULES} rules; give fewer rules of its own"
        ),
    }
}

/// Checks a new conversation's parent: it must be registered in the same project (it
/// was looked up there, so a parent of another project is simply not found: the answer
/// tells no project whether another uses the id).
pub(crate) fn check_parent(
    parent: Option<(String, Option<String>)>,
) -> Result<(), crate::StoreError> {
    match parent {
        None => Err(crate::StoreError::NotFound("parent conversation")),
        Some(_) => Ok(()),
    }
}

/// Checks that a conversation, once stored, has the lineage being registered: a
/// lineage never changes, which keeps the chain free of cycles.
pub(crate) fn check_lineage(
    stored: Option<(String, Option<String>)>,
    record: &crate::ConversationRecord,
) -> Result<(), crate::StoreError> {
    match stored {
        Some((project, parent)) if project == record.project && parent == record.parent => Ok(()),
        Some(_) => Err(crate::StoreError::Conflict {
            field: "parent",
            message: "the conversation is already registered with another lineage",
        }),
        None => Err(crate::StoreError::Internal(
            "registered conversation is missing".into(),
        )),
    }
}

/// The policy an attach stores for a scope: the baseline at first attach, else the
/// stored policy with the baseline's floors added (an administrator's edit stands, a
/// floor is never lost). `None` when nothing changes.
pub(crate) fn attached_policy(
    stored: Option<String>,
    baseline: &UriPolicy,
) -> Result<Option<UriPolicy>, crate::StoreError> {
    let Some(text) = stored else {
        return Ok(Some(baseline.clone()));
    };
    let stored = UriPolicy::from_stored_json(&text)
        .map_err(|_| crate::StoreError::Internal("stored uri policy is unreadable".into()))?;
    let merged = neuralis_access::floor::keep_floors(Some(baseline), stored.clone());
    Ok((merged != stored).then_some(merged))
}

/// Revocation rows as role to features.
pub(crate) fn role_features(rows: Vec<(String, String)>) -> crate::RoleFeatures {
    let mut out = crate::RoleFeatures::new();
    for (role, feature) in rows {
        out.entry(role).or_default().insert(feature);
    }
    out
}
