//! A project's raw rows, grouped per source, and how a delta updates them.
//!
//! Each source keeps its files in two parts, split by the layout core's invalidation
//! predicate ([`PackageRoots::can_move_package`]) under the source's current roots:
//! - the *relevant* files, the only ones that can change which packages exist or what
//!   they hold: they are the grouping input, and every file a package holds is one;
//! - every other file (outside every root, unable to form one), kept only so a change
//!   of roots can regroup the whole source without a re-read, by parent folder so a
//!   delta copies one folder, never the source.
//!
//! Grouping only the relevant files gives the packages grouping every file gives (the
//! predicate's contract: no other file can move a package), so a delta regroups a
//! source only when one of its paths is relevant, and then only the relevant files;
//! when the roots themselves move, it splits again only the files below the roots that
//! came or went, and regroups the whole source from the kept payloads only when the
//! source root's own binding changed.
//! Payloads are decoded once, when their row arrives.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use neuralis_inventory::Weigh;
use neuralis_layout::{FilePayload, Layout, PackageRoots};

use crate::base::ports::{IndexRow, ProjectDelta, ProjectRows, RemovedRow, RowSink, SourceInfo};

mod filing;
mod folders;
mod moved;
mod others;
mod relevant;
mod source;

pub use filing::Filing;
use others::Others;
use relevant::Relevant;

/// Per-row facts the answer needs besides the layout. (The privacy marker the sync
/// stored is not kept: privacy is computed per request from the source's current
/// patterns.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowFacts {
    pub size: u64,
    /// When the file was reached through an in-root symlink: its real path.
    pub real_path: Option<String>,
    /// The content flags of its last sync (one byte).
    pub content_flags: neuralis_content_flags::FlagSet,
    /// The first 8 bytes of its content hash: a read serves only these bytes (0: the
    /// hash was unreadable, and the row is never read).
    pub fingerprint: u64,
}

/// One file as the inventory keeps it: decoded once.
#[derive(Debug, Clone, PartialEq)]
struct Kept {
    payload: FilePayload,
    facts: RowFacts,
}

/// Files by path.
type Files = BTreeMap<String, Kept>;

/// Files in path order, one per path: a later row of a path replaces an earlier one,
/// as an insert into [`Files`] would. (Rows come from the store sorted and unique:
/// then this is one pass of comparisons.)
fn sorted_unique(mut files: Vec<(String, Kept)>) -> Vec<(String, Kept)> {
    if files.is_sorted_by(|(a, _), (b, _)| a < b) {
        return files;
    }
    // Stable: the rows of one path stay in the order they came.
    files.sort_by(|(a, _), (b, _)| a.cmp(b));
    let mut unique: Vec<(String, Kept)> = Vec::with_capacity(files.len());
    for file in files {
        match unique.last_mut() {
            Some(last) if last.0 == file.0 => *last = file,
            _ => unique.push(file),
        }
    }
    unique
}

/// One source's rows, grouped. Raw and unfiltered: the same for every caller.
#[derive(Debug, Clone)]
pub struct SourceSnapshot {
    /// The slug the layout was grouped under (it names the source-root package).
    pub slug: String,
    pub layout: Arc<Layout>,
    /// The facts of the relevant files (every file a package holds is one).
    pub rows: Arc<HashMap<String, RowFacts>>,
    relevant: Arc<Relevant>,
    /// Every other file, by parent folder. Shared whole between snapshots: a delta
    /// inside packages (the common one) copies no folder entry, so its cost does not
    /// grow with the files outside every package.
    others: Arc<Others>,
    roots: Arc<PackageRoots>,
    /// Rows held, and the bytes of their paths (for the memory bound).
    count: usize,
    path_bytes: usize,
}

/// A project's raw rows at one revision, grouped per source.
#[derive(Debug, Clone, Default)]
pub struct ProjectSnapshot {
    pub revision: u64,
    /// By source id.
    pub sources: BTreeMap<String, Arc<SourceSnapshot>>,
}

/// What applying a delta cost: sources regrouped (relevant files only; relevant files
/// only after splitting again those below the roots that moved; or whole), and how
/// many times the layout core grouped a source's files for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Regrouped {
    pub relevant_only: u64,
    pub resplit: u64,
    pub whole: u64,
    pub groupings: u64,
}

/// Estimated bytes per held row besides its path and payload text: the map entries,
/// the facts (the fingerprint's 8 bytes included) and the decoded payload's fixed part.
const ROW_OVERHEAD: usize = 168;

fn parent(path: &str) -> &str {
    // A byte scan: `rsplit_once` searches for a `char` (a cold fill asks this of every
    // file outside a package, and the char search showed in its profile).
    let slash = path.as_bytes().iter().rposition(|byte| *byte == b'/');
    slash.map_or("", |at| &path[..at])
}

fn kept(row: IndexRow) -> (String, Kept) {
    let facts = RowFacts {
        size: row.size,
        real_path: row.real_path,
        content_flags: row.content_flags,
        fingerprint: row.fingerprint,
    };
    (
        row.path,
        Kept {
            payload: row.payload,
            facts,
        },
    )
}

impl ProjectSnapshot {
    /// Groups `rows` per source with the layout core (as a [`Filing`] they are put
    /// into, in order, would).
    pub fn build(rows: ProjectRows, sources: &[SourceInfo]) -> Self {
        let mut filing = Filing::default();
        for mut row in rows.rows {
            let source_id = std::mem::take(&mut row.source_id);
            filing.put(&source_id, row);
        }
        filing.snapshot(rows.revision, sources)
    }

    /// This snapshot with `delta` applied: untouched sources are shared, a touched
    /// source is regrouped only when a path it saw can move a package.
    pub fn apply(&self, delta: ProjectDelta, sources: &[SourceInfo]) -> (Self, Regrouped) {
        #[derive(Default)]
        struct Touch {
            gone: bool,
            removed: Vec<String>,
            puts: Vec<IndexRow>,
        }
        let by_slug: HashMap<&str, &str> = self
            .sources
            .iter()
            .map(|(id, s)| (s.slug.as_str(), id.as_str()))
            .collect();
        let mut touched: BTreeMap<String, Touch> = BTreeMap::new();
        for removed in delta.removed {
            let (slug, path) = match removed {
                RemovedRow::Source { slug } => (slug, None),
                RemovedRow::File { slug, path } => (slug, Some(path)),
            };
            // A tombstone of a source this snapshot never held removes nothing.
            let Some(id) = by_slug.get(slug.as_str()) else {
                continue;
            };
            let touch = touched.entry((*id).to_owned()).or_default();
            match path {
                None => touch.gone = true,
                Some(path) => touch.removed.push(path),
            }
        }
        for row in delta.rows {
            touched
                .entry(row.source_id.clone())
                .or_default()
                .puts
                .push(row);
        }
        let mut next = self.sources.clone();
        let mut regrouped = Regrouped::default();
        for (id, touch) in touched {
            let changed = match self.sources.get(&id) {
                Some(held) => held.changed(touch.gone, touch.removed, touch.puts, &mut regrouped),
                None => {
                    let slug = sources
                        .iter()
                        .find(|s| s.id == id)
                        .map_or_else(|| id.clone(), |s| s.slug.clone());
                    let files: Files = touch.puts.into_iter().map(kept).collect();
                    (!files.is_empty()).then(|| {
                        regrouped.whole += 1;
                        regrouped.groupings += 1;
                        SourceSnapshot::whole(slug, files.into_iter().collect())
                    })
                }
            };
            match changed {
                Some(source) => next.insert(id, Arc::new(source)),
                None => next.remove(&id),
            };
        }
        (
            Self {
                revision: delta.revision,
                sources: next,
            },
            regrouped,
        )
    }

    /// Rows held across sources.
    pub fn row_count(&self) -> usize {
        self.sources.values().map(|s| s.count).sum()
    }
}

impl Weigh for ProjectSnapshot {
    /// An estimate: the paths (twice for the relevant files, whose facts are keyed by
    /// path again) and a fixed overhead per row. Payloads are not walked (whitelisted
    /// frontmatter, bounded per file), so weighing costs nothing per row. What is kept
    /// beside the snapshot is weighed with it by the inventory (see `Beside`).
    fn bytes(&self) -> usize {
        self.sources
            .values()
            .map(|s| {
                s.path_bytes
                    + s.relevant.iter().map(|f| f.path.len()).sum::<usize>()
                    + s.count * ROW_OVERHEAD
            })
            .sum::<usize>()
    }
}

#[cfg(test)]
#[path = "snapshot_tests.rs"]
mod tests;
