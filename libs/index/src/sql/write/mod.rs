//! Applying a batch: one transaction, a few statements per table, the revision raised
//! once at the end.
//!
//! The statements differ by backend, for speed only:
//! - SQLite (`sqlite.rs`): multi-row `VALUES` statements with anonymous `?`
//!   placeholders, on the SQLite driver, a batch in five round trips to its worker.
//!   SQLite finds a named parameter (`$N`) by a linear scan and the driver asks for
//!   every parameter's name, so binding a 2,000-parameter statement was quadratic (the
//!   largest cost of a full sync before this). A JSON record set (`json_each`) was
//!   tried too: SQLite re-parses a row's JSON for every column it extracts, which cost
//!   more than binding. Paths to delete do travel as one JSON array, one statement per
//!   batch. Chunk rows reach the full-text index in one statement per batch (see
//!   `schema.rs`).
//! - PostgreSQL: one statement per table and batch, whatever its size: the rows travel
//!   as one JSON array parameter, expanded server-side by `json_to_recordset` (the
//!   `UNNEST` idea without array binds, which the driver layer shared by both backends
//!   cannot carry), so the server parses and plans a few short statements per batch.

#[cfg(test)]
mod plans;
mod postgres;
pub(crate) mod sqlite;

use super::codec;
use super::rows::raise_revision;
use crate::{ChunkRow, FileRow, IndexError, RowWrite, WriteBatch};
use sqlx::AnyPool;

/// Applies a batch on PostgreSQL: chunk deletes, row deletes, row upserts, chunk
/// inserts, then the revision. Each path appears at most once, so the grouping cannot
/// reorder two writes of one path.
pub(crate) async fn write_batch(pool: &AnyPool, batch: &WriteBatch) -> Result<u64, IndexError> {
    let writes = BatchWrites::of(batch)?;
    let scope = Scope {
        project: &batch.project,
        source: &batch.source,
    };
    let mut tx = pool.begin().await?;
    // The source is held first, as deleting it holds it before the revision: the two
    // take their locks in one order.
    if let Some(id) = &batch.source_id {
        hold_source(&mut tx, &batch.project, &batch.source, id).await?;
    }
    // The revision is raised next: every row and tombstone of the batch carries it,
    // and the project's row lock, held to the commit, makes the writes of one project
    // commit in revision order, so a delta read at revision R never misses a write that
    // later commits with a revision at or below R.
    let revision = raise_revision(&mut tx, &batch.project).await?;
    let revision_value = codec::to_i64(revision, "revision")?;
    postgres::apply(&mut tx, scope, &writes, revision_value).await?;
    tx.commit().await?;
    Ok(revision)
}

/// Holds the project's source `slug` (a share lock to the commit) when it still is the
/// record `id`: a run whose source was deleted meanwhile, or deleted and created again
/// under its slug, writes nothing ([`WriteBatch::source_id`]).
async fn hold_source(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    project: &str,
    slug: &str,
    id: &str,
) -> Result<(), IndexError> {
    let current: Option<String> = sqlx::query_scalar(
        "SELECT source_id FROM index_sources WHERE project = $1 AND slug = $2 FOR SHARE",
    )
    .bind(project)
    .bind(slug)
    .fetch_optional(&mut **tx)
    .await?;
    is_current(current.as_deref(), id, project, slug)
}

/// Whether the source found under the batch's slug is the one it was made for.
fn is_current(
    current: Option<&str>,
    id: &str,
    project: &str,
    slug: &str,
) -> Result<(), IndexError> {
    match current {
        Some(current) if current == id => Ok(()),
        _ => Err(IndexError::NotFound(format!(
            "source {slug:?} of project {project:?} (deleted during the run)"
        ))),
    }
}

/// The project and source every write of a batch belongs to.
#[derive(Clone, Copy)]
struct Scope<'a> {
    project: &'a str,
    source: &'a str,
}

/// A batch sorted into what each statement needs.
struct BatchWrites<'a> {
    rows: Vec<&'a FileRow>,
    chunks: Vec<(&'a str, &'a ChunkRow)>,
    chunk_replacing: Vec<&'a str>,
    deleted: Vec<&'a str>,
}

impl<'a> BatchWrites<'a> {
    /// Checks that the batch is whole ([`check`]) and sorts it.
    fn of(batch: &'a WriteBatch) -> Result<Self, IndexError> {
        check(batch)?;
        Ok(Self::sorted(batch))
    }

    /// Sorts a batch [`check`] accepted.
    fn sorted(batch: &'a WriteBatch) -> Self {
        let mut writes = BatchWrites {
            rows: Vec::with_capacity(batch.writes.len()),
            chunks: Vec::new(),
            chunk_replacing: Vec::with_capacity(batch.writes.len()),
            deleted: Vec::new(),
        };
        for write in &batch.writes {
            match write {
                RowWrite::Put { row, chunks } => {
                    writes.rows.push(row);
                    if let Some(chunks) = chunks {
                        writes.chunk_replacing.push(&row.path);
                        writes
                            .chunks
                            .extend(chunks.iter().map(|chunk| (row.path.as_str(), chunk)));
                    }
                }
                RowWrite::Delete { path } => {
                    writes.chunk_replacing.push(path);
                    writes.deleted.push(path);
                }
            }
        }
        writes
    }
}

/// A batch is whole when each path appears once (so grouping the writes by statement
/// cannot reorder two writes of one path), every row belongs to the batch's source and
/// every size fits its column.
fn check(batch: &WriteBatch) -> Result<(), IndexError> {
    let mut seen = std::collections::HashSet::with_capacity(batch.writes.len());
    for write in &batch.writes {
        let path = match write {
            RowWrite::Put { row, .. } => {
                check_belongs(batch, row)?;
                codec::to_i64(row.size, "size")?;
                row.path.as_str()
            }
            RowWrite::Delete { path } => path.as_str(),
        };
        if !seen.insert(path) {
            return Err(IndexError::InvalidValue {
                field: "batch.writes",
                message: format!("{path:?} is written twice in one batch"),
            });
        }
    }
    Ok(())
}

/// A batch writes one source of one project; a row of another would raise the wrong
/// project's revision.
fn check_belongs(batch: &WriteBatch, row: &FileRow) -> Result<(), IndexError> {
    if row.project == batch.project && row.source == batch.source {
        Ok(())
    } else {
        Err(IndexError::InvalidValue {
            field: "row.source",
            message: format!(
                "row {:?} of {}/{} in a batch for {}/{}",
                row.path, row.project, row.source, batch.project, batch.source
            ),
        })
    }
}

/// The payload column's text.
fn payload_text(row: &FileRow) -> String {
    // A JSON value always serializes.
    serde_json::to_string(&row.payload).unwrap_or_default()
}

/// Lowercase hex, how a vector's bytes travel inside a JSON record set.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    text
}

/// The update half of both backends' upsert.
const ON_CONFLICT_UPDATE: &str = "ON CONFLICT (project, source, path) DO UPDATE SET \
     content_hash = excluded.content_hash, size = excluded.size, \
     modified = excluded.modified, classification = excluded.classification, \
     payload = excluded.payload, usable_manifest = excluded.usable_manifest, \
     privacy_owner = excluded.privacy_owner, payload_version = excluded.payload_version, \
     real_path = excluded.real_path, content_flags = excluded.content_flags, \
     revision = excluded.revision";

#[cfg(test)]
mod tests {
    use super::hex;

    #[test]
    fn hex_is_lowercase_two_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        assert_eq!(hex(&[]), "");
    }
}
