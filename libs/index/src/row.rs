//! The rows of the index and the batches that write them.

use serde::{Deserialize, Serialize};

/// One indexed file (DESIGN.md section 1: "one file row per indexed file with its payload").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRow {
    /// The project the source belongs to.
    pub project: String,
    /// The source slug.
    pub source: String,
    /// The path relative to the source root, `/`-separated.
    pub path: String,
    /// The SHA-256 of the content, lowercase hex.
    pub content_hash: String,
    /// The size in bytes.
    pub size: u64,
    /// The modification time, in milliseconds since the Unix epoch.
    pub modified: i64,
    /// The layout core's classification of the path, as its stable text form.
    pub classification: String,
    /// The whitelisted frontmatter payload captured by the layout core (JSON).
    pub payload: serde_json::Value,
    /// For a manifest: whether it can anchor a package.
    pub usable_manifest: bool,
    /// The agent this file is private to, when it sits in an agent-private subtree.
    pub privacy_owner: Option<String>,
    /// The payload schema version the payload was captured with.
    pub payload_version: u32,
    /// When the file was reached through an in-root symlink: its real path relative to
    /// the source root (access is decided under both paths).
    pub real_path: Option<String>,
    /// The content flags found in the file at its last read (`neuralis-content-flags`
    /// names, sorted); empty for a clean file and for a file the flags do not apply to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content_flags: Vec<String>,
}

/// What a sync compares a listed file against: a file row without the columns a
/// comparison never needs. The payload comes only where grouping reads it (rows the
/// layout core classified as a manifest or a contribution candidate); a plain file's
/// payload is the layout core's default, so it is left out.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredFile {
    /// The path relative to the source root, `/`-separated.
    pub path: String,
    /// The size in bytes.
    pub size: u64,
    /// The modification time, in milliseconds since the Unix epoch.
    pub modified: i64,
    /// The SHA-256 of the content, lowercase hex.
    pub content_hash: String,
    /// The payload schema version the payload was captured with.
    pub payload_version: u32,
    /// The agent this file is private to, when it sits in an agent-private subtree.
    pub privacy_owner: Option<String>,
    /// The payload, for every row whose classification is not `file`.
    pub payload: Option<serde_json::Value>,
    /// The real path when the file was reached through an in-root symlink.
    pub real_path: Option<String>,
}

/// The classification of a file the layout core reads by path alone.
pub const PLAIN_FILE: &str = "file";

impl StoredFile {
    /// The comparison view of a full row.
    pub fn of(row: FileRow) -> Self {
        let payload = (row.classification != PLAIN_FILE).then_some(row.payload);
        StoredFile {
            path: row.path,
            size: row.size,
            modified: row.modified,
            content_hash: row.content_hash,
            payload_version: row.payload_version,
            privacy_owner: row.privacy_owner,
            payload,
            real_path: row.real_path,
        }
    }
}

/// One chunk of a file, for search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkRow {
    /// The position of the chunk in its file, from 0.
    pub ordinal: u32,
    /// The chunk text.
    pub body: String,
    /// The embedding, when an embedder is configured.
    pub vector: Option<Vec<f32>>,
}

/// One write of a batch.
#[derive(Debug, Clone, PartialEq)]
// A batch is mostly puts: boxing every row would cost an allocation per file written
// to spare the few deletes their size.
#[allow(clippy::large_enum_variant)]
pub enum RowWrite {
    /// Inserts or replaces the file row. `chunks: Some` replaces the file's chunk rows;
    /// `None` leaves them as they are (a stat or payload-only update).
    Put {
        /// The row to store.
        row: FileRow,
        /// The file's new chunks, when its content changed.
        chunks: Option<Vec<ChunkRow>>,
    },
    /// Deletes the file row and its chunks.
    Delete {
        /// The path relative to the source root.
        path: String,
    },
}

/// Writes to one source of one project, applied in one transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteBatch {
    /// The project whose revision the batch raises.
    pub project: String,
    /// The source every write belongs to.
    pub source: String,
    /// The id of the source record the batch was made for (`SourceRecord::id`): the
    /// batch commits only while the project's source under `source` still has it, so a
    /// run whose source was deleted (or deleted and created again under its slug)
    /// writes nothing. `None` skips the check (the store's own tests write rows of no
    /// source).
    pub source_id: Option<String>,
    /// The writes, applied in order.
    pub writes: Vec<RowWrite>,
}

impl WriteBatch {
    /// How many chunk rows the batch writes.
    pub fn chunk_rows(&self) -> usize {
        self.writes
            .iter()
            .map(|write| match write {
                RowWrite::Put {
                    chunks: Some(chunks),
                    ..
                } => chunks.len(),
                _ => 0,
            })
            .sum()
    }
}

/// A project's rows read in one snapshot, with the revision they were read at.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectSnapshot {
    /// The revision the rows were read at.
    pub revision: u64,
    /// The rows, ordered by source then path.
    pub rows: Vec<FileRow>,
}

/// What changed in a project between two revisions (DESIGN.md section 3, deltas).
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectChanges {
    /// The revision the changes start after.
    pub since: u64,
    /// The revision they were read at: applying them to the rows of `since` gives the
    /// rows of `revision`.
    pub revision: u64,
    /// Every row written after `since`, as it is now; ordered by source then path.
    pub rows: Vec<FileRow>,
    /// What was deleted after `since` and is still gone, sources first.
    pub removed: Vec<Removed>,
}

/// A tombstone of a delta.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Removed {
    /// Every row of the source is gone (the source was deleted; a source created again
    /// under its slug brings its rows back in the same delta).
    Source {
        /// The source slug.
        source: String,
    },
    /// One file row is gone (a delete, or the old path of a rename).
    File {
        /// The source slug.
        source: String,
        /// The path relative to the source root.
        path: String,
    },
}

/// A search result.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkHit {
    /// The source slug.
    pub source: String,
    /// The file path relative to the source root.
    pub path: String,
    /// The chunk's position in its file.
    pub ordinal: u32,
    /// The chunk text.
    pub body: String,
    /// Higher is better; comparable only within one answer.
    pub score: f32,
}
