//! The invalidation predicate the sync uses around writes (seed 000, "How current the
//! answer is"): can a write of this path move a package candidate? High-rate writes
//! that cannot (files outside every package root that cannot create one) cost
//! nothing. Chunk rows never move a package; the sync does not ask about them.
//!
//! Conservative by design: a false "no" would let discovery serve stale packages, so
//! anything inside a root, and anything outside that could form or feed one, is "yes".

mod in_order;

pub use in_order::InOrder;

use crate::frontmatter::FrontmatterStatus;
use crate::layout::{GroupOptions, IndexedFile, Layout, RootRule};
use crate::manifest::manifest_kind;
use crate::vocabulary::{
    COPILOT_IDENTITY, IDENTITY_BASENAMES, NEVER_CONTRIBUTION_DIRS, ROOT_RULE_FILES, SKILL_FILE,
    category_folder, is_marker, segments, split_parent,
};

/// The package roots of a project's current layout, for [`PackageRoots::can_move_package`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackageRoots {
    /// Every detected root other than the source root.
    nested: Vec<String>,
    /// Whether the source root binds everything below it: a manifest package, or a
    /// root `SKILL.md` whose bundle spans the whole source. Then every write counts.
    source_root_binds_all: bool,
}

impl PackageRoots {
    /// The roots of a layout: every detected root, including those in which nothing
    /// loaded, since they still claim their files.
    pub fn from_layout(layout: &Layout) -> Self {
        let source_root_skill = layout
            .packages
            .iter()
            .filter(|p| p.root.is_empty())
            .flat_map(|p| &p.files)
            .any(|f| f.path == SKILL_FILE);
        let source_root_manifest = layout
            .detected_roots
            .iter()
            .any(|r| r.root.is_empty() && r.rule != RootRule::SourceRoot);
        Self::new(
            layout.detected_roots.iter().map(|r| r.root.as_str()),
            source_root_skill || source_root_manifest,
        )
    }

    /// The roots of the layout `files` group into: the same as
    /// `PackageRoots::from_layout(&group(files, options))`, without recognizing,
    /// admitting or bundling a single file (a sync asks this of a whole source around
    /// every run that writes).
    pub fn of_files(files: &[IndexedFile], options: &GroupOptions) -> Self {
        let mut text = crate::rows::PathText::default();
        let files = crate::rows::sorted_unique(files, &mut text, &mut Vec::new());
        let folders = crate::roots::scan(&files);
        let roots = crate::roots::detect(&folders, options);
        // A root SKILL.md binds the source root's package whenever it is admitted, and a
        // skill is admitted unless its frontmatter cannot be read.
        let source_root_skill = files.iter().any(|row| {
            row.path == SKILL_FILE
                && row.file.payload.frontmatter_status != FrontmatterStatus::Malformed
        });
        let source_root_manifest = roots
            .iter()
            .any(|root| root.dir.is_empty() && root.rule != RootRule::SourceRoot);
        Self::new(
            roots.iter().map(|root| root.dir),
            source_root_skill || source_root_manifest,
        )
    }

    /// Whether [`PackageRoots::of_files`] can depend on a file at `path` whose payload
    /// has no usable manifest. Files with distinct paths for which this is false can be
    /// left out of its input without changing its answer: such a file is no `SKILL.md`
    /// and lies in no marker or category folder, so it says nothing about any folder.
    /// Most files of a tree are such files; a sync leaves them out of the two views of
    /// the source its move predicate is built from.
    pub fn depend_on_path(path: &str) -> bool {
        crate::roots::path_signals(path)
    }

    /// Roots given as folder paths relative to the source root ("" is the source
    /// root); `source_root_binds_all` when the source root is a manifest package or
    /// holds a root `SKILL.md`.
    pub fn new<'a>(roots: impl IntoIterator<Item = &'a str>, source_root_binds_all: bool) -> Self {
        let mut nested: Vec<String> = roots
            .into_iter()
            .filter(|r| !r.is_empty())
            .map(str::to_owned)
            .collect();
        nested.sort_unstable();
        nested.dedup();
        Self {
            nested,
            source_root_binds_all,
        }
    }

    /// Whether writing (creating, changing or deleting) the file at `path` can change
    /// which packages exist or what they hold.
    pub fn can_move_package(&self, path: &str) -> bool {
        self.binds(path) || could_form_or_feed_a_package(path)
    }

    /// Whether a write of `path` can move a package under either layout (a sync asks
    /// under the roots before its run and after it): the same answer as asking each,
    /// with the part that does not depend on the roots worked out once.
    pub fn can_move_package_in_either(&self, other: &PackageRoots, path: &str) -> bool {
        self.binds(path) || other.binds(path) || could_form_or_feed_a_package(path)
    }

    /// What moved from `before` to these roots, for a holder of files split by
    /// [`PackageRoots::can_move_package`] that wants to re-split only the files whose
    /// answer can have changed: `None` when whether the source root binds every file
    /// changed (then any file's answer can have changed).
    ///
    /// A file's answer differs under the two only when it is bound by one and not the
    /// other, so it lies at or below a root of [`RootsMoved::added`] or
    /// [`RootsMoved::removed`] (the part that does not depend on the roots is the same).
    pub fn moved_since<'a>(&'a self, before: &'a PackageRoots) -> Option<RootsMoved<'a>> {
        if self.source_root_binds_all != before.source_root_binds_all {
            return None;
        }
        let only_in = |these: &'a [String], other: &PackageRoots| -> Vec<&'a str> {
            these
                .iter()
                .filter(|root| other.nested.binary_search(root).is_err())
                .map(String::as_str)
                .collect()
        };
        Some(RootsMoved {
            added: only_in(&self.nested, before),
            removed: only_in(&before.nested, self),
        })
    }

    /// Whether these roots bind `path`: the source root binds everything, or the path
    /// is a root or lies inside one (deleting a root's own folder entry is a write at
    /// the root path itself). The roots are sorted, so each of the path's few folders
    /// is a binary search, whatever the number of roots.
    fn binds(&self, path: &str) -> bool {
        if self.source_root_binds_all || path.is_empty() {
            return true;
        }
        if self.nested.is_empty() {
            return false;
        }
        let slashes = path.bytes().enumerate().filter(|(_, b)| *b == b'/');
        slashes
            .map(|(at, _)| at)
            .any(|at| self.is_root(&path[..at]))
            || self.is_root(path)
    }
}

/// The roots that came and went between two [`PackageRoots`] (see
/// [`PackageRoots::moved_since`]), each list sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootsMoved<'a> {
    pub added: Vec<&'a str>,
    pub removed: Vec<&'a str>,
}

impl RootsMoved<'_> {
    /// Whether `path` lies at or below a root that came or went: only such a path can
    /// be answered differently by [`PackageRoots::can_move_package`] under the two.
    pub fn touches(&self, path: &str) -> bool {
        self.added
            .iter()
            .chain(&self.removed)
            .any(|root| at_or_below(path, root))
    }
}

/// Whether `path` is `dir` or lies below it.
fn at_or_below(path: &str, dir: &str) -> bool {
    path.strip_prefix(dir)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The free-function form: `roots` are every detected root of the current layout
/// ([`Layout::detected_roots`], not only the roots of packages that formed), with the
/// source root taken as the restricted rule-5 root. When the source root is a manifest
/// package or holds a root `SKILL.md`, use [`PackageRoots::from_layout`], which
/// knows it and answers yes to every write.
pub fn can_move_package(path: &str, roots: &[&str]) -> bool {
    PackageRoots::new(roots.iter().copied(), false).can_move_package(path)
}

/// Outside every nested root: could this file create a root, remove one, or bind to
/// the source-root package? One pass over the path's folders (a sync asks this of
/// every file it writes).
fn could_form_or_feed_a_package(path: &str) -> bool {
    let (parent, base) = split_parent(path);
    let mut above = FoldersAbove::default();
    if !parent.is_empty() {
        above = segments(parent).fold(above, FoldersAbove::enter);
    }
    above.could_form_or_feed(parent, base, path)
}

/// What the folders above a file say of it, whatever the roots: read one folder at a
/// time from the source root, so a walk in path order ([`InOrder`]) reads each folder
/// once and not once per file below it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct FoldersAbove {
    /// A marker or category folder above forms a root.
    formed: bool,
    /// A template(s)/ or workflows/ folder was entered: nothing below it forms a root
    /// or is a contribution, so only what formed above it counts.
    closed: bool,
}

impl FoldersAbove {
    /// These folders and `dir` below them.
    fn enter(self, dir: &str) -> Self {
        if self.closed || dir.is_empty() {
            return self;
        }
        // No root forms under template(s)/ or workflows/, and nothing there is a
        // contribution; but a marker or category folder above one still forms a
        // root (`kit/skills/templates/…` makes `kit` hold `skills/`), or holds a
        // skill whose bundle the file joins (`skills/a/templates/…`).
        if NEVER_CONTRIBUTION_DIRS.contains(&dir) {
            return Self {
                closed: true,
                ..self
            };
        }
        Self {
            formed: self.formed || is_marker(dir) || category_folder(dir).is_some(),
            closed: false,
        }
    }

    /// [`could_form_or_feed_a_package`] of the file `base` in `parent` (`path`), these
    /// being the folders of `parent`.
    fn could_form_or_feed(self, parent: &str, base: &str, path: &str) -> bool {
        if self.closed {
            return self.formed;
        }
        let creates_root = self.formed
            || base == SKILL_FILE
            || manifest_kind(path).is_some()
            || is_marker(base)
            || category_folder(base).is_some();
        let binds_at_source_root = parent.is_empty()
            && (IDENTITY_BASENAMES.contains(&base)
                || ROOT_RULE_FILES.contains(&base)
                || base == COPILOT_IDENTITY);
        creates_root || binds_at_source_root
    }
}

#[cfg(test)]
mod tests;
