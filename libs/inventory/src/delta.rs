//! Applying a delta (DESIGN.md section 3): the rows changed since the revision a
//! holder read at, and the tombstones of what was deleted since, turn the holder's rows
//! into the rows of the delta's revision. Pure, and generic over what a row carries,
//! so a holder keeps its decoded payloads and decodes only the rows that changed.

use std::collections::{BTreeMap, BTreeSet};

/// Rows per source slug, then per path.
pub type SourceRows<V> = BTreeMap<String, BTreeMap<String, V>>;

/// What was deleted since the holder's revision and is still gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tombstone {
    /// Every row of the source (the source was deleted).
    Source(String),
    /// One row (a delete, or the old path of a rename).
    File { source: String, path: String },
}

/// A delta as the index answers it.
#[derive(Debug, Clone, PartialEq)]
pub struct Changes<V> {
    /// The revision the rows were read at.
    pub revision: u64,
    /// Every row written after the holder's revision, as it is now: (source, path, row).
    pub rows: Vec<(String, String, V)>,
    /// Applied before `rows`: a source deleted and created again brings its rows back
    /// in the same delta.
    pub removed: Vec<Tombstone>,
}

/// What a delta touched, per source: the paths written or deleted, and whether the
/// whole source went (its rows are then only what the delta brought back).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Touched {
    pub paths: BTreeSet<String>,
    pub source_removed: bool,
}

/// Applies `changes` to `rows`; returns what each touched source saw, so the holder
/// regroups only those (and, inside them, can tell whether any touched path can move
/// a package at all).
pub fn apply<V>(rows: &mut SourceRows<V>, changes: Changes<V>) -> BTreeMap<String, Touched> {
    let mut touched: BTreeMap<String, Touched> = BTreeMap::new();
    for tombstone in changes.removed {
        match tombstone {
            Tombstone::Source(source) => {
                let gone = rows.remove(&source);
                let seen = touched.entry(source).or_default();
                seen.source_removed = true;
                seen.paths
                    .extend(gone.into_iter().flat_map(BTreeMap::into_keys));
            }
            Tombstone::File { source, path } => {
                if let Some(files) = rows.get_mut(&source) {
                    files.remove(&path);
                    if files.is_empty() {
                        rows.remove(&source);
                    }
                }
                touched.entry(source).or_default().paths.insert(path);
            }
        }
    }
    for (source, path, row) in changes.rows {
        rows.entry(source.clone())
            .or_default()
            .insert(path.clone(), row);
        touched.entry(source).or_default().paths.insert(path);
    }
    touched
}
