//! A source's files outside every package, by parent folder: each folder's files in one
//! exact-size slice in path order, shared whole between snapshots; and a delta's copies
//! of the folders it touches, put back as slices when it is applied.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::others::{Folder, Others};
use super::{Files, Kept, parent, sorted_unique};

/// The file at `path`, when it is held outside every package.
pub(super) fn find<'a>(others: &'a Others, path: &str) -> Option<&'a Kept> {
    let folder = others.get(parent(path))?;
    let at = folder
        .binary_search_by(|(held, _)| held.as_str().cmp(path))
        .ok()?;
    Some(&folder[at].1)
}

/// Files filed by folder as they come in path order, without holding them all first
/// (sorting a vector of every file by folder, as this did before, held 12 MB beside
/// the 13.6 MB of folders it made for a cold fill of 100,000 rows, heaptrack). In path order a folder's files are
/// interrupted only by its own subfolders' (`a/b/x` between `a/a` and `a/c`), so a
/// folder is complete once a path outside it comes: the open folders are a stack.
#[derive(Default)]
pub(super) struct ByFolder {
    /// Each folder open, below the one before it.
    open: Vec<(String, Vec<(String, Kept)>)>,
    done: Vec<(String, Folder)>,
}

impl ByFolder {
    pub(super) fn push(&mut self, path: String, kept: Kept) {
        let folder = parent(&path);
        while let Some((top, _)) = self.open.last() {
            if top == folder || within(folder, top) {
                break;
            }
            self.close_top();
        }
        match self.open.last_mut() {
            Some((top, files)) if top == folder => files.push((path, kept)),
            _ => self.open.push((folder.to_owned(), vec![(path, kept)])),
        }
    }

    fn close_top(&mut self) {
        if let Some((folder, files)) = self.open.pop() {
            // In path order already, unless the files came out of it.
            self.done.push((folder, Folder::from(sorted_unique(files))));
        }
    }

    /// The folders filed. Files that came out of path order are still filed right: a
    /// folder closed and opened again is merged, and its files sorted.
    pub(super) fn finish(mut self) -> Others {
        while !self.open.is_empty() {
            self.close_top();
        }
        let mut done = self.done;
        // Stable: a folder met twice keeps its files in the order they came.
        done.sort_by(|(a, _), (b, _)| a.cmp(b));
        let mut folders: Vec<(String, Folder)> = Vec::with_capacity(done.len());
        for (folder, files) in done {
            match folders.last_mut() {
                Some((last, held)) if *last == folder => *held = merged(held, &files),
                _ => folders.push((folder, files)),
            }
        }
        Others::from_sorted(folders)
    }
}

/// Whether `folder` lies below `ancestor` (`""`: the top folder, above every other).
fn within(folder: &str, ancestor: &str) -> bool {
    ancestor.is_empty()
        || folder
            .strip_prefix(ancestor)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// A folder's files and `later` ones, in path order, one per path (the later kept).
fn merged(held: &Folder, later: &Folder) -> Folder {
    let mut files: Files = held.iter().cloned().collect();
    files.extend(later.iter().cloned());
    files.into_iter().collect()
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

#[cfg(test)]
#[path = "folders_tests.rs"]
mod tests;
