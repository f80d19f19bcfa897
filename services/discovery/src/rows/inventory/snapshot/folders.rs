//! A source's files outside every package, by parent folder: each folder's files in one
//! exact-size slice in path order, shared whole between snapshots; and a delta's copies
//! of the folders it touches, put back as slices when it is applied.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::others::{Folder, Others};
use super::{Files, Kept, parent};

/// The file at `path`, when it is held outside every package.
pub(super) fn find<'a>(others: &'a Others, path: &str) -> Option<&'a Kept> {
    let folder = others.get(parent(path))?;
    let at = folder
        .binary_search_by(|(held, _)| held.as_str().cmp(path))
        .ok()?;
    Some(&folder[at].1)
}

/// Files in path order, filed by folder. (A folder's files are in path order but not
/// always adjacent: a subfolder's files can sort between them, as `a/b/x` between `a/a`
/// and `a/c`.)
pub(super) fn by_folder(mut files: Vec<(String, Kept)>) -> Others {
    // Stable: each folder's files stay in path order. Mostly sorted already: one pass.
    files.sort_by(|(a, _), (b, _)| parent(a).cmp(parent(b)));
    let mut folders = Vec::new();
    let mut files = files.into_iter().peekable();
    while let Some(first) = files.next() {
        let folder = parent(&first.0).to_owned();
        let mut held = vec![first];
        while let Some(next) = files.next_if(|(path, _)| parent(path) == folder) {
            held.push(next);
        }
        folders.push((folder, Folder::from(held)));
    }
    // In folder order: each run's map is built in one pass, with no key compared.
    Others::from_sorted(folders)
}

/// A delta's changes to the folders of one source: each folder copied once, on its
/// first change; the folders it never touches stay shared.
pub(super) struct Edited<'a> {
    held: &'a Others,
    copies: BTreeMap<String, Files>,
}

impl<'a> Edited<'a> {
    pub(super) fn new(held: &'a Others) -> Self {
        Self {
            held,
            copies: BTreeMap::new(),
        }
    }

    fn copy(&mut self, folder: &str) -> &mut Files {
        let held = self.held;
        self.copies.entry(folder.to_owned()).or_insert_with(|| {
            held.get(folder)
                .map(|files| files.iter().cloned().collect())
                .unwrap_or_default()
        })
    }

    /// Drops `path` when it is held here; whether it was.
    pub(super) fn remove(&mut self, path: &str) -> bool {
        let folder = parent(path);
        let held = match self.copies.get(folder) {
            Some(files) => files.contains_key(path),
            None => find(self.held, path).is_some(),
        };
        if held {
            self.copy(folder).remove(path);
        }
        held
    }

    pub(super) fn insert(&mut self, path: String, kept: Kept) {
        self.copy(parent(&path)).insert(path, kept);
    }

    /// Puts the changed folders into `others` (left as it was, shared, when no folder
    /// changed).
    pub(super) fn apply(self, others: &mut Arc<Others>) {
        if self.copies.is_empty() {
            return;
        }
        let others = Arc::make_mut(others);
        for (folder, files) in self.copies {
            if files.is_empty() {
                others.remove(&folder);
            } else {
                others.insert(folder, files.into_iter().collect());
            }
        }
    }
}
