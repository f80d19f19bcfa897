//! Conversions between rows as stored and rows as typed. Every failure names the
//! column, so a damaged row is reported, never a panic.

use crate::{FileRow, IndexError, ScopeKind, SourceKind, SourceRecord, StoredFile, SyncStatus};
use sqlx::Row;
use sqlx::any::AnyRow;

/// The columns of `index_files`, in the order the statements bind them. A macro, not a
/// constant: sqlx takes only literal SQL, and `concat!` keeps the statements literal.
macro_rules! file_columns {
    () => {
        "project, source, path, content_hash, size, modified, classification, payload, \
         usable_manifest, privacy_owner, payload_version, real_path, content_flags"
    };
}
pub(crate) use file_columns;

/// The columns of `index_sources`, in the order the statements bind them.
macro_rules! source_columns {
    () => {
        "project, slug, kind, root, machine_uri, scope, owner, sync_trigger, \
         privacy_patterns, status, created_at, updated_at, source_id, exclude_globs, \
         recognizes_packages"
    };
}
pub(crate) use source_columns;

pub(crate) fn to_i64(value: u64, field: &'static str) -> Result<i64, IndexError> {
    i64::try_from(value).map_err(|_| IndexError::InvalidValue {
        field,
        message: format!("{value} is beyond the stored range"),
    })
}

pub(crate) fn to_u64(value: i64, field: &'static str) -> Result<u64, IndexError> {
    u64::try_from(value).map_err(|_| corrupt(field, format!("negative value {value}")))
}

pub(crate) fn to_u32(value: i64, field: &'static str) -> Result<u32, IndexError> {
    u32::try_from(value).map_err(|_| corrupt(field, format!("{value} is out of range")))
}

pub(crate) use crate::error::corrupt;

pub(crate) fn column<'r, T>(row: &'r AnyRow, field: &'static str) -> Result<T, IndexError>
where
    T: sqlx::Decode<'r, sqlx::Any> + sqlx::Type<sqlx::Any>,
{
    row.try_get(field)
        .map_err(|err| corrupt(field, err.to_string()))
}

pub(crate) fn file_row(row: &impl Columns) -> Result<FileRow, IndexError> {
    let payload = row.text("payload")?;
    Ok(FileRow {
        project: row.text("project")?,
        source: row.text("source")?,
        path: row.text("path")?,
        content_hash: row.text("content_hash")?,
        size: to_u64(row.integer("size")?, "size")?,
        modified: row.integer("modified")?,
        classification: row.text("classification")?,
        payload: serde_json::from_str(&payload)
            .map_err(|err| corrupt("payload", err.to_string()))?,
        usable_manifest: row.integer("usable_manifest")? != 0,
        privacy_owner: row.optional_text("privacy_owner")?,
        payload_version: to_u32(row.integer("payload_version")?, "payload_version")?,
        real_path: row.optional_text("real_path")?,
        content_flags: decode_flags(&row.text("content_flags")?),
    })
}

pub(crate) use crate::stored_flags::{decode_flags, encode_flags};

/// One stored row as a page of `rows::visit_source_files` carries it: path, size,
/// modified, content hash, payload version, privacy owner, payload, real path.
pub(crate) type StoredColumns = (
    String,
    i64,
    i64,
    String,
    i64,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// A row of a page of stored files (see `rows::visit_source_files`).
pub(crate) fn stored_file(
    (path, size, modified, content_hash, payload_version, privacy_owner, payload, real_path): StoredColumns,
) -> Result<StoredFile, IndexError> {
    let payload = payload
        .map(|text| serde_json::from_str(&text))
        .transpose()
        .map_err(|err| corrupt("payload", err.to_string()))?;
    Ok(StoredFile {
        path,
        size: to_u64(size, "size")?,
        modified,
        content_hash,
        payload_version: to_u32(payload_version, "payload_version")?,
        privacy_owner,
        payload,
        real_path,
    })
}

/// A stored row's columns by name, whichever driver read it: a source or file row is
/// decoded once, here, from the pool's rows and from the embedded lister's
/// (`listing/sources.rs`, `listing/changes.rs`).
pub(crate) trait Columns {
    fn text(&self, field: &'static str) -> Result<String, IndexError>;
    fn optional_text(&self, field: &'static str) -> Result<Option<String>, IndexError>;
    fn integer(&self, field: &'static str) -> Result<i64, IndexError>;
}

impl Columns for AnyRow {
    fn text(&self, field: &'static str) -> Result<String, IndexError> {
        column(self, field)
    }
    fn optional_text(&self, field: &'static str) -> Result<Option<String>, IndexError> {
        column(self, field)
    }
    fn integer(&self, field: &'static str) -> Result<i64, IndexError> {
        column(self, field)
    }
}

impl Columns for rusqlite::Row<'_> {
    fn text(&self, field: &'static str) -> Result<String, IndexError> {
        self.get(field)
            .map_err(|err| corrupt(field, err.to_string()))
    }
    fn optional_text(&self, field: &'static str) -> Result<Option<String>, IndexError> {
        self.get(field)
            .map_err(|err| corrupt(field, err.to_string()))
    }
    fn integer(&self, field: &'static str) -> Result<i64, IndexError> {
        self.get(field)
            .map_err(|err| corrupt(field, err.to_string()))
    }
}

pub(crate) fn source_record(row: &impl Columns) -> Result<SourceRecord, IndexError> {
    let kind = row.text("kind")?;
    let scope = row.text("scope")?;
    let patterns = row.text("privacy_patterns")?;
    let excludes = row.text("exclude_globs")?;
    let status = row.text("status")?;
    Ok(SourceRecord {
        id: row.text("source_id")?,
        project: row.text("project")?,
        slug: row.text("slug")?,
        kind: SourceKind::parse(&kind).ok_or_else(|| corrupt("kind", kind.clone()))?,
        root: row.text("root")?,
        machine_uri: row.optional_text("machine_uri")?,
        scope: ScopeKind::parse(&scope).ok_or_else(|| corrupt("scope", scope.clone()))?,
        owner: row.optional_text("owner")?,
        trigger: row.text("sync_trigger")?,
        privacy_patterns: serde_json::from_str(&patterns)
            .map_err(|err| corrupt("privacy_patterns", err.to_string()))?,
        exclude_globs: serde_json::from_str(&excludes)
            .map_err(|err| corrupt("exclude_globs", err.to_string()))?,
        recognizes_packages: row.integer("recognizes_packages")? != 0,
        status: decode_status(&status)?,
        created_at: row.integer("created_at")?,
        updated_at: row.integer("updated_at")?,
    })
}

pub(crate) fn encode_status(status: &SyncStatus) -> String {
    // A struct of integers and strings always serializes.
    serde_json::to_string(status).unwrap_or_default()
}

fn decode_status(text: &str) -> Result<SyncStatus, IndexError> {
    serde_json::from_str(text).map_err(|err| corrupt("status", err.to_string()))
}

pub(crate) fn encode_patterns(patterns: &[String]) -> String {
    serde_json::to_string(patterns).unwrap_or_default()
}
