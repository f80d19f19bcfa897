//! The sync plan: given a source's listing and its index rows, which rows to write.
//!
//! A no-change re-sync must read no content and write no row, so the plan compares
//! what the listing gives for free (size and modification time) first; only files
//! whose stat moved are read and hashed, and only a changed hash rewrites a row and
//! its chunks. A row whose stat is unchanged but whose payload is stale (an older
//! payload version, or a privacy marker the source's patterns no longer give) gets a
//! payload-only refresh: no re-chunking, no re-embedding (seed 000, "payload-only
//! refresh on the next regular sync").

use std::collections::HashMap;

/// A file as the connector lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedFile {
    /// The path relative to the source root, `/`-separated.
    pub path: String,
    /// The size in bytes.
    pub size: u64,
    /// The modification time, in milliseconds since the Unix epoch.
    pub modified: i64,
    /// The real path, when the file was reached through an in-root symlink.
    pub real_path: Option<String>,
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
    /// The real path recorded at the last write (a file reached through a symlink).
    pub real_path: Option<String>,
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

/// A listed file as the plan reads it: the connector's own type implements this, so a
/// large listing is compared without being copied.
pub trait Listed {
    /// The path relative to the source root.
    fn path(&self) -> &str;
    /// The size in bytes.
    fn size(&self) -> u64;
    /// The modification time, in milliseconds since the Unix epoch.
    fn modified(&self) -> i64;
    /// The real path, when the file was reached through an in-root symlink.
    fn real_path(&self) -> Option<&str> {
        None
    }
}

impl Listed for ListedFile {
    fn path(&self) -> &str {
        &self.path
    }
    fn size(&self) -> u64 {
        self.size
    }
    fn modified(&self) -> i64 {
        self.modified
    }
    fn real_path(&self) -> Option<&str> {
        self.real_path.as_deref()
    }
}

/// The columns of a stored row the plan compares, borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredStat<'a> {
    /// The path relative to the source root.
    pub path: &'a str,
    /// The size recorded at the last write.
    pub size: u64,
    /// The modification time recorded at the last write.
    pub modified: i64,
    /// The payload version the row's payload was captured with.
    pub payload_version: u32,
    /// The agent the row is private to, if any.
    pub privacy_owner: Option<&'a str>,
    /// The real path recorded at the last write.
    pub real_path: Option<&'a str>,
}

impl<'a> From<&'a ExistingRow> for StoredStat<'a> {
    fn from(row: &'a ExistingRow) -> Self {
        StoredStat {
            path: &row.path,
            size: row.size,
            modified: row.modified,
            payload_version: row.payload_version,
            privacy_owner: row.privacy_owner.as_deref(),
            real_path: row.real_path.as_deref(),
        }
    }
}

/// What the plan decided for one stored row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Same stat, fresh payload: left as it is.
    Unchanged,
    /// Same stat, stale payload (or a new real path): a payload-only refresh.
    RefreshPayload,
    /// The stat moved: read and hash the file.
    Examine,
    /// No longer listed: delete the row.
    Delete,
}

/// Plans a sync one stored row at a time, so a large source's rows can be compared as
/// they stream from the store instead of being held all at once. Feed every stored row
/// of the source to [`Planner::compare`], then [`Planner::finish`].
pub struct Planner<'l, L, P> {
    listing: &'l [L],
    by_path: HashMap<&'l str, usize>,
    verdicts: Vec<Option<Verdict>>,
    deleted: Vec<String>,
    payload_version: u32,
    privacy_owner: P,
    racy_since: Option<i64>,
}

impl<'l, L: Listed, P: Fn(&str) -> Option<String>> Planner<'l, L, P> {
    /// A planner for `listing`. `privacy_owner` gives the agent a path is private to
    /// under the source's current patterns.
    pub fn new(listing: &'l [L], payload_version: u32, privacy_owner: P) -> Self {
        Planner {
            by_path: listing
                .iter()
                .enumerate()
                .map(|(at, file)| (file.path(), at))
                .collect(),
            verdicts: vec![None; listing.len()],
            listing,
            deleted: Vec::new(),
            payload_version,
            privacy_owner,
            racy_since: None,
        }
    }

    /// Racy entries, as git calls them: a stored row whose recorded change time is not
    /// older than `previous_start` (when the previous run began) may have been written
    /// again within the same timestamp tick after that run read it, so an equal stat
    /// proves nothing and the file is examined (re-hashed). Once a run began after the
    /// recorded time, an equal stat is trusted again.
    pub fn with_racy_since(mut self, previous_start: Option<i64>) -> Self {
        self.racy_since = previous_start;
        self
    }

    /// Compares one stored row with the listing.
    pub fn compare(&mut self, row: StoredStat<'_>) -> Verdict {
        let Some(&at) = self.by_path.get(row.path) else {
            self.deleted.push(row.path.to_owned());
            return Verdict::Delete;
        };
        let file = &self.listing[at];
        let racy = self.racy_since.is_some_and(|since| row.modified >= since);
        let verdict = if file.size() == row.size && file.modified() == row.modified && !racy {
            // A link moved to another file of the same stat still rewrites the row: the
            // real path decides access.
            if payload_is_stale(row, self.payload_version, &self.privacy_owner)
                || file.real_path() != row.real_path
            {
                Verdict::RefreshPayload
            } else {
                Verdict::Unchanged
            }
        } else {
            Verdict::Examine
        };
        self.verdicts[at] = Some(verdict);
        verdict
    }

    /// Whether the listed file at `at` (an index into the listing) has a stored row.
    pub fn is_stored(&self, at: usize) -> bool {
        self.verdicts.get(at).is_some_and(Option::is_some)
    }

    /// The plan: examined and refreshed files in listing order (a listed file with no
    /// row is new, hence examined), deleted rows ordered by path.
    pub fn finish(mut self) -> SyncPlan {
        let mut plan = SyncPlan::default();
        for (file, verdict) in self.listing.iter().zip(&self.verdicts) {
            match verdict {
                Some(Verdict::Unchanged) => plan.unchanged += 1,
                Some(Verdict::RefreshPayload) => plan.refresh_payload.push(file.path().to_owned()),
                Some(Verdict::Examine) | None => plan.examine.push(file.path().to_owned()),
                Some(Verdict::Delete) => {}
            }
        }
        self.deleted.sort_unstable();
        plan.delete = self.deleted;
        plan
    }
}

/// Plans a sync from a listing and every stored row at once (see [`Planner`]).
/// `privacy_owner` gives the agent a path is private to under the source's current
/// patterns.
pub fn plan_sync(
    listing: &[ListedFile],
    existing: &[ExistingRow],
    payload_version: u32,
    privacy_owner: impl Fn(&str) -> Option<String>,
) -> SyncPlan {
    let mut planner = Planner::new(listing, payload_version, privacy_owner);
    for row in existing {
        planner.compare(row.into());
    }
    planner.finish()
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
            refresh_payload: payload_is_stale(row.into(), payload_version, &privacy_owner),
        },
    }
}

fn payload_is_stale(
    row: StoredStat<'_>,
    payload_version: u32,
    privacy_owner: &impl Fn(&str) -> Option<String>,
) -> bool {
    row.payload_version != payload_version
        || privacy_owner(row.path).as_deref() != row.privacy_owner
}

#[cfg(test)]
mod tests;
