//! Run progress, rows and hits as the API shows them.

use crate::connector::{SkipReason, Skipped};
use crate::run::RunUpdate;
use neuralis_index::{ChunkHit, FileRow};
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

/// One raw row for `ListEntries`.
pub fn entry(row: &FileRow) -> feed::Entry {
    feed::Entry {
        source: row.source.clone(),
        path: row.path.clone(),
        content_hash: row.content_hash.clone(),
        size: row.size,
        modified_ms: row.modified,
        classification: row.classification.clone(),
        payload_json: row.payload.to_string(),
        usable_manifest: row.usable_manifest,
        privacy_owner: row.privacy_owner.clone().unwrap_or_default(),
        payload_version: row.payload_version,
        real_path: row.real_path.clone().unwrap_or_default(),
        content_flags: row.content_flags.clone(),
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
