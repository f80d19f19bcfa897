//! One source's snapshot: grouped whole from its files, and changed by a delta: a path
//! no package can see is filed with the other files of its folder, a relevant one
//! regroups the relevant files only, and a move of the roots splits again the files
//! below the roots that came or went (`moved.rs`), or regroups the whole source from
//! the payloads kept when the source root's binding changed.

use std::collections::HashMap;
use std::sync::Arc;

use neuralis_layout::{FilePayload, GroupOptions, IndexedFile, Layout, PackageRoots, group};

use super::folders::{ByFolder, Edited, find as find_other};
use super::relevant::{Copied, Relevant, find};
use super::{Files, Kept, Regrouped, RowFacts, SourceSnapshot, kept};
use crate::base::ports::IndexRow;

impl SourceSnapshot {
    /// Groups every file of a source (`files` in path order, one per path), then
    /// splits them by the roots found.
    pub(super) fn whole(slug: String, files: Vec<(String, Kept)>) -> Self {
        let count = files.len();
        let options = GroupOptions::synced(slug.clone());
        let mut input: Vec<IndexedFile> = Vec::with_capacity(count);
        let mut facts: Vec<RowFacts> = Vec::with_capacity(count);
        for (path, kept) in files {
            let file =
                IndexedFile::new(path, kept.payload).with_real_path(kept.facts.real_path.clone());
            input.push(file);
            facts.push(kept.facts);
        }
        let layout = group(&input, &options);
        let roots = PackageRoots::from_layout(&layout);
        let files = input.into_iter().zip(facts).map(|(file, facts)| {
            let kept = Kept {
                payload: file.payload,
                facts,
            };
            (file.path, kept)
        });
        let mut split = Self::split(slug, std::iter::once(files), roots);
        split.layout = Arc::new(layout);
        split
    }

    /// [`SourceSnapshot::whole`] of the files in `runs` (in path order, one per path),
    /// each run freed once it is read: the roots are found first,
    /// from the few files they can depend on, then the files are split by them and
    /// only the relevant ones grouped. Grouping every file is left for a source whose
    /// relevant files do not find those roots again (as a delta's regroup does).
    ///
    /// `view` is [`view`] of `runs`, which a filing builds as the rows come.
    pub(super) fn grouped(
        slug: String,
        runs: Vec<Vec<(String, Kept)>>,
        view: Vec<IndexedFile>,
    ) -> Self {
        let roots = PackageRoots::of_files(&view, &GroupOptions::synced(slug.clone()));
        drop(view);
        Self::split(slug, runs.into_iter().map(Vec::into_iter), roots).regrouped()
    }

    /// This source's relevant files grouped, when they find the roots they were split
    /// under again; every file grouped whole otherwise.
    fn regrouped(mut self) -> Self {
        let layout = group(&self.relevant, &GroupOptions::synced(self.slug.clone()));
        if PackageRoots::from_layout(&layout) != *self.roots {
            return Self::whole(self.slug.clone(), self.all_files().into_iter().collect());
        }
        self.layout = Arc::new(layout);
        self
    }

    /// The files of `runs` (in path order) split under `roots`, with an empty layout.
    fn split(
        slug: String,
        runs: impl Iterator<Item = impl Iterator<Item = (String, Kept)>>,
        roots: PackageRoots,
    ) -> Self {
        let mut relevant = Relevant::new();
        let mut rows = HashMap::new();
        let (mut held, mut path_bytes) = (0, 0);
        let mut others = ByFolder::default();
        // The rows come in path order: each folder is decided once.
        let mut walk = roots.in_order();
        for (path, kept) in runs.flatten() {
            held += 1;
            path_bytes += path.len();
            if walk.can_move_package(&path) {
                rows.insert(path.clone(), kept.facts.clone());
                let file =
                    IndexedFile::new(path, kept.payload).with_real_path(kept.facts.real_path);
                relevant.push(file); // still sorted: the rows were
            } else {
                others.push(path, kept);
            }
        }
        Self {
            rows: Arc::new(rows),
            slug,
            layout: Arc::new(Layout::default()),
            relevant: Arc::new(relevant),
            others: Arc::new(others.finish()),
            roots: Arc::new(roots),
            count: held,
            path_bytes,
        }
    }

    /// The payload of one row as indexed (relevant or not), by source-relative path.
    pub fn payload(&self, path: &str) -> Option<&FilePayload> {
        match find(&self.relevant, path) {
            Ok(at) => Some(&self.relevant[at].payload),
            Err(_) => find_other(&self.others, path).map(|kept| &kept.payload),
        }
    }

    /// The facts of one row as indexed (relevant or not), by source-relative path.
    pub fn facts(&self, path: &str) -> Option<&RowFacts> {
        match self.rows.get(path) {
            Some(facts) => Some(facts),
            None => find_other(&self.others, path).map(|kept| &kept.facts),
        }
    }

    fn all_files(&self) -> Files {
        let mut files: Files = self
            .relevant
            .iter()
            .filter_map(|file| {
                let facts = self.rows.get(&file.path)?.clone();
                let kept = Kept {
                    payload: file.payload.clone(),
                    facts,
                };
                Some((file.path.clone(), kept))
            })
            .collect();
        let others = self.others.iter().flat_map(|(_, folder)| folder.iter());
        files.extend(others.map(|(path, kept)| (path.clone(), kept.clone())));
        files
    }

    /// This source after `removed` paths went and `puts` came (`gone`: the whole
    /// source went first). `None` when nothing is left.
    pub(super) fn changed(
        &self,
        gone: bool,
        removed: Vec<String>,
        puts: Vec<IndexRow>,
        regrouped: &mut Regrouped,
    ) -> Option<Self> {
        if gone {
            let files: Files = puts.into_iter().map(kept).collect();
            if files.is_empty() {
                return None;
            }
            regrouped.whole += 1;
            regrouped.groupings += 1;
            return Some(Self::whole(self.slug.clone(), files.into_iter().collect()));
        }
        let mut next = self.clone();
        let mut copied = Copied {
            held: self,
            relevant: None,
            rows: None,
        };
        let mut folders = Edited::new(&self.others);
        let mut moved = false;
        for path in removed
            .iter()
            .map(String::as_str)
            .chain(puts.iter().map(|r| r.path.as_str()))
        {
            moved |= self.roots.can_move_package(path);
        }
        for path in removed {
            next.forget(&path, &mut copied, &mut folders);
        }
        for row in puts {
            next.forget(&row.path, &mut copied, &mut folders);
            let (path, kept) = kept(row);
            next.count += 1;
            next.path_bytes += path.len();
            if self.roots.can_move_package(&path) {
                copied.insert(path, kept);
            } else {
                folders.insert(path, kept);
            }
        }
        folders.apply(&mut next.others);
        let Copied { relevant, rows, .. } = copied;
        if let Some(relevant) = relevant {
            next.relevant = Arc::new(relevant);
        }
        if let Some(rows) = rows {
            next.rows = Arc::new(rows);
        }
        if next.count == 0 {
            return None;
        }
        if !moved {
            return Some(next);
        }
        let layout = group(&next.relevant, &GroupOptions::synced(self.slug.clone()));
        regrouped.groupings += 1;
        let roots = PackageRoots::from_layout(&layout);
        if roots == *self.roots {
            regrouped.relevant_only += 1;
            next.layout = Arc::new(layout);
            return Some(next);
        }
        // The roots moved: which files are relevant changed too, but only below a
        // root that came or went (unless the source root's binding changed).
        let next = match roots.moved_since(&self.roots) {
            Some(moved) => match next.resplit(roots.clone(), &moved, layout, regrouped) {
                Ok(resplit) => {
                    regrouped.resplit += 1;
                    return Some(resplit);
                }
                Err(next) => next,
            },
            None => next,
        };
        regrouped.whole += 1;
        regrouped.groupings += 1;
        Some(Self::whole(
            self.slug.clone(),
            next.all_files().into_iter().collect(),
        ))
    }

    /// Drops `path` wherever it is held.
    fn forget(&mut self, path: &str, copied: &mut Copied<'_>, folders: &mut Edited<'_>) {
        if copied.remove(path) || folders.remove(path) {
            self.count -= 1;
            self.path_bytes -= path.len();
        }
    }
}

/// The files of `runs` the roots can depend on (`PackageRoots::depend_on_path`, or a
/// usable manifest): of a tree of code, a few thousand of 100,000.
pub(super) fn view(runs: &[Vec<(String, Kept)>]) -> Vec<IndexedFile> {
    runs.iter()
        .flatten()
        .filter_map(|(path, kept)| in_view(path, kept))
        .collect()
}

/// The file at `path` as [`view`] holds it, when the roots can depend on it.
pub(super) fn in_view(path: &str, kept: &Kept) -> Option<IndexedFile> {
    let manifest = kept.payload.manifest.as_ref().is_some_and(|m| m.usable);
    (manifest || PackageRoots::depend_on_path(path)).then(|| {
        IndexedFile::new(path.to_owned(), kept.payload.clone())
            .with_real_path(kept.facts.real_path.clone())
    })
}

#[cfg(test)]
#[path = "source_tests.rs"]
mod tests;
