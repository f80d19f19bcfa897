//! Cutting a run's writes into batches, and building each batch's rows and chunks.
//!
//! Writes that could move a package (the layout core's predicate, under the roots
//! before the run and the roots after it) go in batches of their own, announced on the
//! bus; the rest go in quiet batches that publish nothing.

use super::prepare::{ChunkPlan, PreparedFile, content_hash};
use super::{RunDeps, blocking};
use crate::SyncError;
use crate::connector::{Connector, SkipReason, Skipped};
use crate::layout_rules::LayoutRules;
use neuralis_index::{ChunkRow, FileRow, RowWrite, SourceRecord, WriteBatch};
use neuralis_layout::PackageRoots;
use neuralis_sync_core::chunk_text;
use std::collections::HashSet;
use std::sync::Arc;

/// Texts per embeddings request.
const TEXTS_PER_EMBED_CALL: usize = 64;

/// Can writing this path move a package? Asked under the roots before and after the
/// run, so a package that appears or disappears during the run is covered too.
pub struct MovePredicate {
    before: PackageRoots,
    after: PackageRoots,
}

impl MovePredicate {
    /// The predicate for a run writing `prepared` and deleting `deletes`.
    pub fn new(
        rules: &dyn LayoutRules,
        source: &SourceRecord,
        existing: &[FileRow],
        prepared: &[PreparedFile],
        deletes: &[String],
    ) -> Self {
        if prepared.is_empty() && deletes.is_empty() {
            // Nothing will be asked: skip grouping the whole source.
            return Self {
                before: PackageRoots::default(),
                after: PackageRoots::default(),
            };
        }
        let before_rows: Vec<&FileRow> = existing.iter().collect();
        let replaced: HashSet<&str> = prepared.iter().map(|file| file.row.path.as_str()).collect();
        let deleted: HashSet<&str> = deletes.iter().map(String::as_str).collect();
        let after_rows: Vec<&FileRow> = existing
            .iter()
            .filter(|row| {
                !replaced.contains(row.path.as_str()) && !deleted.contains(row.path.as_str())
            })
            .chain(prepared.iter().map(|file| &file.row))
            .collect();
        Self {
            before: rules.package_roots(&source.slug, &before_rows),
            after: rules.package_roots(&source.slug, &after_rows),
        }
    }

    /// Whether a write of `path` can move a package candidate.
    pub fn moves(&self, path: &str) -> bool {
        self.before.can_move_package(path) || self.after.can_move_package(path)
    }
}

/// One write before its chunks are built.
#[derive(Debug, Clone)]
pub enum PlannedWrite {
    /// Store this row.
    Put(PreparedFile),
    /// Delete this path's row and chunks.
    Delete(String),
}

/// A batch before its chunks are built.
#[derive(Debug)]
pub struct PlannedBatch {
    /// The writes, in order.
    pub writes: Vec<PlannedWrite>,
    /// Whether the batch is announced on the bus.
    pub moves_package: bool,
}

/// Cuts the writes into batches of at most `batch_size`, moving ones apart from quiet ones.
pub fn plan_batches(
    files: &[PreparedFile],
    deletes: &[String],
    moves: &MovePredicate,
    batch_size: usize,
) -> Vec<PlannedBatch> {
    let writes = files
        .iter()
        .map(|file| (file.row.path.as_str(), PlannedWrite::Put(file.clone())))
        .chain(
            deletes
                .iter()
                .map(|path| (path.as_str(), PlannedWrite::Delete(path.clone()))),
        );
    let (moving, quiet): (Vec<_>, Vec<_>) = writes.partition(|(path, _)| moves.moves(path));
    let size = batch_size.max(1);
    let cut = |writes: Vec<(&str, PlannedWrite)>, moves_package: bool| {
        let writes: Vec<PlannedWrite> = writes.into_iter().map(|(_, write)| write).collect();
        writes
            .chunks(size)
            .map(|chunk| PlannedBatch {
                writes: chunk.to_vec(),
                moves_package,
            })
            .collect::<Vec<_>>()
    };
    let mut batches = cut(moving, true);
    batches.extend(cut(quiet, false));
    batches
}

/// A batch ready to commit.
pub struct BuiltBatch {
    /// The rows and chunks.
    pub batch: WriteBatch,
    /// Whether it is announced on the bus.
    pub moves_package: bool,
    /// Rows it stores.
    pub puts: u64,
    /// Rows it deletes.
    pub deletes: u64,
    /// Bytes read again for chunking.
    pub bytes_read: u64,
    /// Files that vanished before their chunks were read.
    pub skipped: Vec<Skipped>,
}

/// Builds a batch: reads what chunking needs, chunks, embeds.
pub async fn build(
    deps: &RunDeps,
    source: &SourceRecord,
    connector: &Arc<dyn Connector>,
    planned: PlannedBatch,
) -> Result<BuiltBatch, SyncError> {
    let mut built = BuiltBatch {
        batch: WriteBatch {
            project: source.project.clone(),
            source: source.slug.clone(),
            writes: Vec::new(),
        },
        moves_package: planned.moves_package,
        puts: 0,
        deletes: 0,
        bytes_read: 0,
        skipped: Vec::new(),
    };
    for write in planned.writes {
        match write {
            PlannedWrite::Delete(path) => push_delete(&mut built, path),
            PlannedWrite::Put(file) => put_file(deps, connector, &mut built, file).await?,
        }
    }
    embed(deps, &mut built.batch).await?;
    Ok(built)
}

fn push_delete(built: &mut BuiltBatch, path: String) {
    built.deletes += 1;
    built.batch.writes.push(RowWrite::Delete { path });
}

async fn put_file(
    deps: &RunDeps,
    connector: &Arc<dyn Connector>,
    built: &mut BuiltBatch,
    file: PreparedFile,
) -> Result<(), SyncError> {
    let PreparedFile { mut row, chunks } = file;
    let content = match chunks {
        ChunkPlan::Keep => {
            built.puts += 1;
            built.batch.writes.push(RowWrite::Put { row, chunks: None });
            return Ok(());
        }
        ChunkPlan::Replace(Some(content)) => content,
        ChunkPlan::Replace(None) => {
            let path = row.path.clone();
            match blocking(Arc::clone(connector), move |c| c.read(&path)).await? {
                Ok(content) => {
                    built.bytes_read += content.len() as u64;
                    content
                }
                Err(_) => {
                    vanished(built, row.path);
                    return Ok(());
                }
            }
        }
    };
    refresh_if_changed(deps.rules.as_ref(), &mut row, &content);
    let chunks = chunks_of(deps, &row.path, &content);
    built.puts += 1;
    built.batch.writes.push(RowWrite::Put {
        row,
        chunks: Some(chunks),
    });
    Ok(())
}

/// Gone since it was prepared: delete its row (a no-op when it had none) and report it.
fn vanished(built: &mut BuiltBatch, path: String) {
    built.skipped.push(Skipped {
        path: path.clone(),
        reason: SkipReason::Unreadable,
        detail: "vanished before it was chunked".into(),
    });
    push_delete(built, path);
}

/// Changed again since it was prepared: the row must describe the bytes chunked.
fn refresh_if_changed(rules: &dyn LayoutRules, row: &mut FileRow, content: &[u8]) {
    let hash = content_hash(content);
    if hash == row.content_hash {
        return;
    }
    let captured = rules.capture(&row.path, rules.needs_content(&row.path).then_some(content));
    row.content_hash = hash;
    row.size = content.len() as u64;
    row.classification = captured.classification;
    row.payload = captured.payload;
    row.usable_manifest = captured.usable_manifest;
}

/// Text is chunked (markdown at its headings); binary content has no chunks.
fn chunks_of(deps: &RunDeps, path: &str, content: &[u8]) -> Vec<ChunkRow> {
    let Ok(text) = std::str::from_utf8(content) else {
        return Vec::new();
    };
    chunk_text(text, deps.rules.is_markdown(path), deps.limits.chunks)
        .into_iter()
        .map(|chunk| ChunkRow {
            ordinal: chunk.ordinal,
            body: chunk.text,
            vector: None,
        })
        .collect()
}

async fn embed(deps: &RunDeps, batch: &mut WriteBatch) -> Result<(), SyncError> {
    let Some(embedder) = &deps.embedder else {
        return Ok(());
    };
    let mut chunks: Vec<&mut ChunkRow> = batch
        .writes
        .iter_mut()
        .filter_map(|write| match write {
            RowWrite::Put {
                chunks: Some(chunks),
                ..
            } => Some(chunks.iter_mut()),
            _ => None,
        })
        .flatten()
        .collect();
    for group in chunks.chunks_mut(TEXTS_PER_EMBED_CALL) {
        let texts: Vec<String> = group.iter().map(|chunk| chunk.body.clone()).collect();
        let vectors = embedder.embed(&texts).await?;
        for (chunk, vector) in group.iter_mut().zip(vectors) {
            chunk.vector = Some(vector);
        }
    }
    Ok(())
}

/// Paths to batch sizes, for the tests of the cut.
#[cfg(test)]
pub(crate) fn sizes(batches: &[PlannedBatch]) -> Vec<(usize, bool)> {
    batches
        .iter()
        .map(|b| (b.writes.len(), b.moves_package))
        .collect()
}

#[cfg(test)]
pub(crate) fn predicate_from(before: PackageRoots, after: PackageRoots) -> MovePredicate {
    MovePredicate { before, after }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str) -> PreparedFile {
        PreparedFile {
            row: FileRow {
                project: "p".into(),
                source: "s".into(),
                path: path.into(),
                content_hash: String::new(),
                size: 0,
                modified: 0,
                classification: "file".into(),
                payload: serde_json::Value::Null,
                usable_manifest: false,
                privacy_owner: None,
                payload_version: 1,
            },
            chunks: ChunkPlan::Keep,
        }
    }

    #[test]
    fn writes_that_can_move_a_package_are_batched_apart_from_quiet_ones() {
        let roots = PackageRoots::new(["pkg"], false);
        let moves = predicate_from(roots.clone(), roots);
        let files = [
            file("pkg/skills/a/SKILL.md"),
            file("src/a.rs"),
            file("src/b.rs"),
            file("pkg/x.txt"),
        ];
        let deletes = ["notes/old.txt".to_owned()];
        let batches = plan_batches(&files, &deletes, &moves, 2);
        assert_eq!(sizes(&batches), [(2, true), (2, false), (1, false)]);
    }

    #[test]
    fn a_package_that_appears_during_the_run_counts_as_moving() {
        let moves = predicate_from(
            PackageRoots::default(),
            PackageRoots::new(["tools/helper"], false),
        );
        assert!(moves.moves("tools/helper/notes.txt"));
        assert!(!moves.moves("src/main.rs"));
    }
}
