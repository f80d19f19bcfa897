//! The sync plan: given a source's listing and its index rows, which rows to write.
//!
//! A no-change re-sync must read no content and write no row, so the plan compares
//! what the listing gives for free (size and modification time) first; only files
//! whose stat moved are read and hashed, and only a changed hash rewrites a row and
//! its chunks. A row whose stat is unchanged but whose payload is stale (an older
//! payload version, or a privacy marker the source's patterns no longer give) gets a
//! payload-only refresh: no re-chunking, no re-embedding (seed 000, "payload-only
//! refresh on the next regular sync").

use std::collections::{HashMap, HashSet};

/// A file as the connector lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedFile {
    /// The path relative to the source root, `/`-separated.
    pub path: String,
    /// The size in bytes.
    pub size: u64,
    /// The modification time, in milliseconds since the Unix epoch.
    pub modified: i64,
}

/// What the index already holds for a path (the columns the plan compares).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExistingRow {
    /// The path relative to the source root.
    pub path: String,
    /// The size recorded at the last write.
    pub size: u64,
    /// The modification time recorded at the last write.
    pub modified: i64,
    /// The content hash recorded at the last write.
    pub content_hash: String,
    /// The payload version the row's payload was captured with.
    pub payload_version: u32,
    /// The agent the row is private to, if any.
    pub privacy_owner: Option<String>,
}

/// What a sync does, before reading any content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncPlan {
    /// New files and files whose stat moved: read and hash them, then ask
    /// [`action_after_read`].
    pub examine: Vec<String>,
    /// Unchanged files whose payload is stale: recapture the payload only.
    pub refresh_payload: Vec<String>,
    /// Rows whose file is gone.
    pub delete: Vec<String>,
    /// Rows left exactly as they are.
    pub unchanged: usize,
}

/// What to write for one examined file, once its content hash is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileAction {
    /// No row yet: insert the row and its chunks.
    Insert,
    /// The content changed: rewrite the row and replace its chunks.
    Rewrite,
    /// Same content, only the stat moved: update the stat, and the payload when it is
    /// stale, but keep the chunks.
    Touch {
        /// The payload must be recaptured too.
        refresh_payload: bool,
    },
}

/// Plans a sync. `privacy_owner` gives the agent a path is private to under the
/// source's current patterns.
pub fn plan_sync(
    listing: &[ListedFile],
    existing: &[ExistingRow],
    payload_version: u32,
    privacy_owner: impl Fn(&str) -> Option<String>,
) -> SyncPlan {
    let rows: HashMap<&str, &ExistingRow> = existing
        .iter()
        .map(|row| (row.path.as_str(), row))
        .collect();
    let mut plan = SyncPlan::default();
    for file in listing {
        match rows.get(file.path.as_str()) {
            Some(row) if row.size == file.size && row.modified == file.modified => {
                if payload_is_stale(row, payload_version, &privacy_owner) {
                    plan.refresh_payload.push(file.path.clone());
                } else {
                    plan.unchanged += 1;
                }
            }
            _ => plan.examine.push(file.path.clone()),
        }
    }
    let listed: HashSet<&str> = listing.iter().map(|file| file.path.as_str()).collect();
    plan.delete = existing
        .iter()
        .filter(|row| !listed.contains(row.path.as_str()))
        .map(|row| row.path.clone())
        .collect();
    plan
}

/// Decides the write for an examined file from its freshly computed content hash.
pub fn action_after_read(
    existing: Option<&ExistingRow>,
    content_hash: &str,
    payload_version: u32,
    privacy_owner: impl Fn(&str) -> Option<String>,
) -> FileAction {
    match existing {
        None => FileAction::Insert,
        Some(row) if row.content_hash != content_hash => FileAction::Rewrite,
        Some(row) => FileAction::Touch {
            refresh_payload: payload_is_stale(row, payload_version, privacy_owner),
        },
    }
}

fn payload_is_stale(
    row: &ExistingRow,
    payload_version: u32,
    privacy_owner: impl Fn(&str) -> Option<String>,
) -> bool {
    row.payload_version != payload_version || privacy_owner(&row.path) != row.privacy_owner
}

#[cfg(test)]
mod tests;
