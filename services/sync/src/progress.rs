//! Run progress, rows and hits as the API shows them.

use crate::connector::{SkipReason, Skipped};
use crate::run::RunUpdate;
use neuralis_index::{ChunkHit, FileRow, ListedRow};
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as pb;

/// One progress message; `done` marks the last one of a successful run.
pub fn to_proto(update: &RunUpdate, done: bool) -> pb::SyncSourceResponse {
    let counters = update.counters;
    pb::SyncSourceResponse {
        progress: Some(pb::SyncProgress {
            files_seen: counters.files_seen,
            files_indexed: counters.files_indexed,
            files_unchanged: counters.files_unchanged,
            files_deleted: counters.files_deleted,
            files_skipped: counters.files_skipped,
            bytes_read: counters.bytes_read,
            batches_committed: counters.batches_committed,
        }),
        skipped: update.skipped.iter().map(skipped).collect(),
        done,
        revision: update.revision,
    }
}

fn skipped(skipped: &Skipped) -> pb::SkippedFile {
    let reason = match skipped.reason {
        SkipReason::SymlinkEscape => pb::SkipReason::SymlinkEscape,
        SkipReason::SymlinkLoop => pb::SkipReason::SymlinkLoop,
        SkipReason::TooLarge => pb::SkipReason::TooLarge,
        SkipReason::NonUtf8Name => pb::SkipReason::NonUtf8Name,
        SkipReason::NonUtf8Content => pb::SkipReason::NonUtf8Content,
        SkipReason::Unreadable => pb::SkipReason::Unreadable,
        SkipReason::Excluded => pb::SkipReason::Excluded,
        SkipReason::TooDeep => pb::SkipReason::TooDeep,
        SkipReason::FileLimitReached => pb::SkipReason::FileLimit,
    };
    pb::SkippedFile {
        path: skipped.path.clone(),
        reason: reason as i32,
        detail: skipped.detail.clone(),
    }
}

/// A row as the feed sends it, its strings moved, not copied.
pub fn entry_of(row: FileRow) -> feed::Entry {
    entry_of_listed(ListedRow::of(row))
}

/// A listed row as the feed sends it: the payload's stored text as it is.
pub fn entry_of_listed(row: ListedRow) -> feed::Entry {
    feed::Entry {
        source: row.source,
        path: row.path,
        content_hash: row.content_hash,
        size: row.size,
        modified_ms: row.modified,
        classification: row.classification,
        payload_json: row.payload_json,
        usable_manifest: row.usable_manifest,
        privacy_owner: row.privacy_owner.unwrap_or_default(),
        payload_version: row.payload_version,
        real_path: row.real_path.unwrap_or_default(),
        content_flags: row.content_flags,
    }
}

/// One search hit.
pub fn hit(hit: &ChunkHit) -> feed::ChunkHit {
    feed::ChunkHit {
        source: hit.source.clone(),
        path: hit.path.clone(),
        ordinal: hit.ordinal,
        text: hit.body.clone(),
        score: hit.score,
    }
}
