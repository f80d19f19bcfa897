//! A source whose roots moved (a skill folder came, a package went): its files split
//! again under the new roots without a regroup of the whole source. Only a file at or
//! below a root that came or went can change sides ([`RootsMoved::touches`]), so the
//! relevant files below a root that went are filed with the others of their folder, the
//! folders below a root that came join the relevant files, and only the relevant files
//! are grouped again. The folders no root touched stay shared with the snapshot before.
//!
//! When no file changes sides (a skill folder made of one new `SKILL.md`, the common
//! new package), the relevant files are the very ones the roots were found from, so
//! that grouping is the answer and they are not grouped a second time.

use std::collections::HashMap;
use std::sync::Arc;

use neuralis_layout::{GroupOptions, IndexedFile, Layout, PackageRoots, RootsMoved, group};

use super::folders::Edited;
use super::others::Others;
use super::{Kept, Regrouped, RowFacts, SourceSnapshot};

impl SourceSnapshot {
    /// This source with its files split under `roots` (moved from the roots they were
    /// split under by `moved`) and its relevant files grouped again: `Ok` when that
    /// grouping finds `roots` again, as it must; `Err` with every file still held
    /// otherwise, for the caller to regroup whole. `grouped` is the grouping of this
    /// source's relevant files that found `roots`: the answer when no file changes
    /// sides (grouping is a function of its files).
    pub(super) fn resplit(
        mut self,
        roots: PackageRoots,
        moved: &RootsMoved<'_>,
        grouped: Layout,
        regrouped: &mut Regrouped,
    ) -> Result<Self, Self> {
        let others = Arc::clone(&self.others);
        let mut folders = Edited::new(&others);
        let mut rows = Arc::unwrap_or_clone(std::mem::take(&mut self.rows));
        let held = Arc::unwrap_or_clone(std::mem::take(&mut self.relevant));
        let (mut relevant, left) = leave(held, &roots, moved, &mut rows, &mut folders);
        let arrived = arrive(&others, moved, &mut relevant, &mut rows, &mut folders);
        folders.apply(&mut self.others);
        self.rows = Arc::new(rows);
        self.relevant = Arc::new(relevant);
        let layout = if left || arrived {
            regrouped.groupings += 1;
            let layout = group(&self.relevant, &GroupOptions::synced(self.slug.clone()));
            if PackageRoots::from_layout(&layout) != roots {
                return Err(self);
            }
            layout
        } else {
            grouped
        };
        self.layout = Arc::new(layout);
        self.roots = Arc::new(roots);
        Ok(self)
    }
}

/// Out: of the relevant files `held` (sorted), those below a root that went which
/// `roots` no longer call relevant are filed with the others of their folder; the rest
/// are returned, still sorted, with whether any left.
fn leave(
    held: Vec<IndexedFile>,
    roots: &PackageRoots,
    moved: &RootsMoved<'_>,
    rows: &mut HashMap<String, RowFacts>,
    folders: &mut Edited<'_>,
) -> (Vec<IndexedFile>, bool) {
    let mut relevant = Vec::with_capacity(held.len());
    let mut left = false;
    for file in held {
        let leaves = moved.touches(&file.path) && !roots.can_move_package(&file.path);
        // (A relevant file always has facts; one without stays where it is.)
        match leaves.then(|| rows.remove(&file.path)).flatten() {
            Some(facts) => {
                let kept = Kept {
                    payload: file.payload,
                    facts,
                };
                folders.insert(file.path, kept);
                left = true;
            }
            None => relevant.push(file),
        }
    }
    (relevant, left)
}

/// In: every file of `others` below a root that came (all of them bound now) joins
/// the relevant files, which stay sorted; whether any came.
fn arrive(
    others: &Others,
    moved: &RootsMoved<'_>,
    relevant: &mut Vec<IndexedFile>,
    rows: &mut HashMap<String, RowFacts>,
    folders: &mut Edited<'_>,
) -> bool {
    let mut arriving: Vec<(String, Kept)> = moved
        .added
        .iter()
        .flat_map(|root| files_at_or_below(others, root))
        .collect();
    if arriving.is_empty() {
        return false;
    }
    arriving.sort_by(|(a, _), (b, _)| a.cmp(b));
    arriving.dedup_by(|(a, _), (b, _)| a == b); // nested roots name a folder twice
    for (path, kept) in arriving {
        folders.remove(&path);
        rows.insert(path.clone(), kept.facts.clone());
        let real_path = kept.facts.real_path;
        relevant.push(IndexedFile::new(path, kept.payload).with_real_path(real_path));
    }
    // Two sorted runs: the sort merges them.
    relevant.sort_by(|a, b| a.path.cmp(&b.path));
    true
}

/// The files of `others` in folders at or below `root` (a folder below it has the key
/// `root/…`: those keys sort together, from `root/` on).
fn files_at_or_below(others: &Others, root: &str) -> Vec<(String, Kept)> {
    let below = format!("{root}/");
    let under = others
        .from(&below)
        .take_while(|(folder, _)| folder.starts_with(&below))
        .map(|(_, files)| files);
    others
        .get(root)
        .into_iter()
        .chain(under)
        .flat_map(|files| files.iter().cloned())
        .collect()
}
