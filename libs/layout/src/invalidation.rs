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
    let forms_a_root = |dir: &str| is_marker(dir) || category_folder(dir).is_some();
    let mut formed_above = false;
    if !parent.is_empty() {
        for dir in segments(parent).filter(|dir| !dir.is_empty()) {
            // No root forms under template(s)/ or workflows/, and nothing there is a
            // contribution; but a marker or category folder above one still forms a
            // root (`kit/skills/templates/…` makes `kit` hold `skills/`), or holds a
            // skill whose bundle the file joins (`skills/a/templates/…`).
            if NEVER_CONTRIBUTION_DIRS.contains(&dir) {
                return formed_above;
            }
            formed_above = formed_above || forms_a_root(dir);
        }
    }
    let creates_root = formed_above
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

#[cfg(test)]
mod tests {
    use super::*;

    /// "High-rate writes that cannot affect a package — ... files outside every package
    /// root — cost nothing."
    #[test]
    fn writes_outside_every_root_that_cannot_create_one_do_not_invalidate() {
        let roots = ["", ".claude", "packages/helper"];
        for path in [
            "src/main.rs",
            "notes/todo.md",
            "logs/2024/run.jsonl",
            "x.agent.md",
            "README.md",
            "templates/skills/a/SKILL.md",
        ] {
            assert!(!can_move_package(path, &roots), "{path}");
        }
    }

    #[test]
    fn writes_inside_a_root_invalidate_even_non_markdown_bundle_files() {
        let roots = ["", ".claude", "packages/helper"];
        for path in [
            ".claude/settings.json",
            "packages/helper/skills/deploy/scripts/run.sh",
            "packages/helper",
            // Nothing but the root it lies in makes these count.
            "packages/helper/dist/index.js",
            "packages/helper/notes.txt",
        ] {
            assert!(can_move_package(path, &roots), "{path}");
        }
    }

    #[test]
    fn writes_that_could_create_a_root_or_bind_to_the_source_root_invalidate() {
        for path in [
            "new/package.json",
            "lib/.cursor/rules/x.mdc",
            "app/.github/copilot-instructions.md",
            "tools/x/SKILL.md",
            "x/docs/y.md",
            "x/agents/y.md",
            "AGENTS.md",
            ".cursorrules",
            "rules/style.md",
            "plugins/p/.claude-plugin/plugin.json",
            ".claude",
        ] {
            assert!(can_move_package(path, &[""]), "{path}");
        }
    }

    /// Found by the property `a_write_the_predicate_calls_harmless_never_changes_the_packages`:
    /// a skill folder may be named like a never-contribution folder.
    #[test]
    fn a_skill_named_like_a_template_folder_invalidates() {
        for path in [
            "skills/templates/SKILL.md",
            "skills/workflows/run.sh",
            "skills/x/templates/notes.txt",
            "a/docs/templates/x.md",
            "a/.claude/workflows/x.md",
        ] {
            assert!(can_move_package(path, &[""]), "{path}");
        }
        for path in ["templates/skills/a/SKILL.md", "a/templates/docs/x.md"] {
            assert!(!can_move_package(path, &[""]), "{path}");
        }
    }

    #[test]
    fn a_source_root_skill_makes_every_write_relevant() {
        let roots = PackageRoots::new([""], true);
        assert!(roots.can_move_package("src/main.rs"));
    }

    /// "What moved" names every path whose answer differs between two sets of roots:
    /// a holder that re-splits only the paths below a root that came or went splits
    /// exactly as one that asks of every path.
    #[test]
    fn only_a_path_below_a_root_that_came_or_went_changes_its_answer() {
        use proptest::prelude::*;
        let segment = prop::sample::select(vec![
            "a",
            "b",
            "a-b",
            "skills",
            "rules",
            ".claude",
            "templates",
            "SKILL.md",
            "x.md",
            "run.sh",
        ]);
        let path = prop::collection::vec(segment, 1..5).prop_map(|parts| parts.join("/"));
        let roots = (prop::collection::vec(path.clone(), 0..4), any::<bool>())
            .prop_map(|(roots, all)| PackageRoots::new(roots.iter().map(String::as_str), all));
        proptest!(|(before in roots.clone(), after in roots, asked in path)| {
            let changed = before.can_move_package(&asked) != after.can_move_package(&asked);
            match after.moved_since(&before) {
                None => prop_assert_ne!(before.source_root_binds_all, after.source_root_binds_all),
                Some(moved) => {
                    prop_assert!(!changed || moved.touches(&asked), "{asked}: {moved:?}");
                    prop_assert!(moved.added.iter().all(|r| !before.nested.iter().any(|b| b == r)));
                    prop_assert!(moved.removed.iter().all(|r| !after.nested.iter().any(|a| a == r)));
                }
            }
        });
    }

    /// Only a path at or below a root that came or went is named (the property above
    /// checks that every path whose answer changed is; this, that the others are not).
    #[test]
    fn what_moved_names_only_the_paths_below_a_root_that_came_or_went() {
        let before = PackageRoots::new(["a", "c"], false);
        let after = PackageRoots::new(["a", "a/b"], false);
        let moved = after
            .moved_since(&before)
            .expect("the source root binds the same");
        assert_eq!(
            (moved.added.clone(), moved.removed.clone()),
            (vec!["a/b"], vec!["c"])
        );
        for (path, expected) in [
            ("a/b", true),
            ("a/b/x.sh", true),
            ("c/x.sh", true),
            ("a/x.sh", false),
            ("a/bc/x.sh", false),
            ("cd/x.sh", false),
        ] {
            assert_eq!(moved.touches(path), expected, "{path}");
        }
        assert!(
            PackageRoots::new(["a"], true)
                .moved_since(&before)
                .is_none()
        );
    }

    #[test]
    fn a_path_is_at_or_below_a_folder_only_at_a_segment_boundary() {
        for (path, dir, expected) in [
            ("a/b", "a", true),
            ("a", "a", true),
            ("a-b/c", "a", false),
            ("ab", "a", false),
            ("a/b/c", "a/b", true),
            ("a/bc", "a/b", false),
        ] {
            assert_eq!(at_or_below(path, dir), expected, "{path} under {dir}");
        }
    }

    /// Asking under two layouts at once is asking under each: a sync that asked the
    /// combined question must never call harmless a write one of them calls moving.
    #[test]
    fn asking_under_either_layout_is_asking_under_each() {
        use proptest::prelude::*;
        let segment = prop::sample::select(vec![
            "a",
            "b",
            "skills",
            "rules",
            ".claude",
            "templates",
            "workflows",
            "SKILL.md",
            "AGENTS.md",
            "package.json",
            ".claude-plugin",
            "plugin.json",
            "x.md",
            "",
        ]);
        let path = prop::collection::vec(segment, 0..5).prop_map(|parts| parts.join("/"));
        let roots = (prop::collection::vec(path.clone(), 0..4), any::<bool>())
            .prop_map(|(roots, all)| PackageRoots::new(roots.iter().map(String::as_str), all));
        proptest!(|(before in roots.clone(), after in roots, asked in path)| {
            prop_assert_eq!(
                before.can_move_package_in_either(&after, &asked),
                before.can_move_package(&asked) || after.can_move_package(&asked)
            );
        });
    }
}
