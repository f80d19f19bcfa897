//! General rules proved over generated trees: order independence, deepest-root
//! binding, and the soundness of the invalidation predicate.
#![allow(clippy::unwrap_used)]

mod support;

use neuralis_layout::{GroupOptions, IndexedFile, Layout, PackageRoots, group};
use proptest::prelude::*;
use support::*;

const DIRS: [&str; 16] = [
    "a",
    "b",
    ".claude",
    ".cursor",
    ".github",
    "skills",
    "rules",
    "docs",
    "agents",
    "commands",
    "s1",
    "templates",
    "template",
    "workflows",
    "pkg",
    "scripts",
];
const FILES: [&str; 11] = [
    "SKILL.md",
    "x.md",
    "y.md",
    "AGENTS.md",
    "r.agent.md",
    "package.json",
    "README.md",
    "c.mdc",
    "run.sh",
    ".cursorrules",
    "copilot-instructions.md",
];
const CONTENTS: [&str; 5] = [
    NAMED,
    PLAIN,
    NEURALIS_PACKAGE,
    "{}",
    "---\nname: broken\nglobs: **/*\n---\n",
];

fn path() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(proptest::sample::select(&DIRS[..]), 0..4),
        proptest::sample::select(&FILES[..]),
    )
        .prop_map(|(dirs, file)| {
            let mut parts: Vec<&str> = dirs;
            parts.push(file);
            parts.join("/")
        })
}

fn file() -> impl Strategy<Value = IndexedFile> {
    (path(), proptest::sample::select(&CONTENTS[..])).prop_map(|(p, c)| row(&p, c))
}

fn tree() -> impl Strategy<Value = Vec<IndexedFile>> {
    proptest::collection::vec(file(), 0..40).prop_map(|mut files| {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files.dedup_by(|a, b| a.path == b.path);
        files
    })
}

fn layout(files: &[IndexedFile]) -> Layout {
    group(files, &GroupOptions::synced("source"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// "output that does not depend on the order files are given in"
    #[test]
    fn grouping_does_not_depend_on_input_order(files in tree(), seed in any::<u64>()) {
        let mut shuffled = files.clone();
        // a deterministic shuffle from the seed
        let mut state = seed | 1;
        for i in (1..shuffled.len()).rev() {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            let j = (state % (i as u64 + 1)) as usize;
            shuffled.swap(i, j);
        }
        prop_assert_eq!(layout(&files), layout(&shuffled));
    }

    /// Repeated rows change nothing but a diagnostic.
    #[test]
    fn repeated_rows_do_not_change_the_packages(files in tree()) {
        let mut doubled = files.clone();
        doubled.extend(files.iter().rev().cloned());
        prop_assert_eq!(layout(&files).packages, layout(&doubled).packages);
    }

    /// "every contribution binds to the deepest detected root that encloses it"
    #[test]
    fn every_contribution_binds_to_the_deepest_enclosing_root(files in tree()) {
        let layout = layout(&files);
        for package in &layout.packages {
            for file in &package.files {
                let deepest = layout
                    .detected_roots
                    .iter()
                    .map(|r| r.root.as_str())
                    .filter(|root| root.is_empty() || file.path.starts_with(&format!("{root}/")))
                    .max_by_key(|root| root.len())
                    .unwrap();
                prop_assert_eq!(package.root.as_str(), deepest, "{}", file.path);
            }
        }
    }

    /// The sync reads exactly the files recognition needs: when every file names
    /// itself, no file is left out for lack of an id or name.
    #[test]
    fn the_sync_reads_every_file_admission_needs(paths in proptest::collection::vec(path(), 0..40)) {
        let files: Vec<IndexedFile> = paths.iter().map(|p| row(p, NAMED)).collect();
        let layout = layout(&files);
        let missed: Vec<_> = layout
            .unloaded
            .iter()
            .filter(|u| u.reason == neuralis_layout::UnloadedReason::NoIdOrName)
            .collect();
        prop_assert!(missed.is_empty(), "{:?}", missed);
    }

    /// Package keys are unique within a layout (they name packages in collision ids).
    #[test]
    fn package_keys_are_unique(files in tree()) {
        let layout = layout(&files);
        let mut keys: Vec<&str> = layout.packages.iter().map(|p| p.key.as_str()).collect();
        keys.sort_unstable();
        let before = keys.len();
        keys.dedup();
        prop_assert_eq!(before, keys.len());
    }

    /// Issue 10, stable keys: a package's key is a function of its own root and name,
    /// so adding or removing any other package (here a second generated tree placed
    /// beside it, which forms packages of the same names elsewhere) never changes it.
    #[test]
    fn adding_or_removing_another_package_never_changes_a_key(
        files in tree(),
        others in tree(),
        prefix in proptest::sample::select(&["a", "b", "zz", ".claude", "a/b"][..]),
    ) {
        let alone = layout(&files);
        let mut both: Vec<IndexedFile> = files.clone();
        let taken: std::collections::BTreeSet<String> = files.iter().map(|f| f.path.clone()).collect();
        for other in others {
            let mut moved = other.clone();
            moved.path = format!("{prefix}/{}", other.path);
            if !taken.contains(&moved.path) {
                both.push(moved);
            }
        }
        both.sort_by(|a, b| a.path.cmp(&b.path));
        let together = layout(&both);
        for package in &alone.packages {
            prop_assert_eq!(&package.key, &neuralis_layout::naming::package_key(&package.root, &package.name));
            if let Some(same) = together.packages.iter().find(|p| p.root == package.root && p.name == package.name) {
                prop_assert_eq!(&same.key, &package.key, "root {:?}", package.root);
            }
        }
        for package in &together.packages {
            prop_assert_eq!(&package.key, &neuralis_layout::naming::package_key(&package.root, &package.name));
        }
    }

    /// "a false no would let discovery serve stale packages": when the predicate says
    /// a write cannot move a package, adding, changing or removing that file leaves
    /// the packages exactly as they were.
    #[test]
    fn a_write_the_predicate_calls_harmless_never_changes_the_packages(files in tree(), extra in file()) {
        let before = layout(&files);
        let roots = PackageRoots::from_layout(&before);
        if !roots.can_move_package(&extra.path) {
            let mut with: Vec<IndexedFile> = files.iter().filter(|f| f.path != extra.path).cloned().collect();
            let without = with.clone();
            with.push(extra.clone());
            prop_assert_eq!(&layout(&with).packages, &before.packages, "adding {}", extra.path);
            prop_assert_eq!(&layout(&without).packages, &before.packages, "removing {}", extra.path);
        }
    }

    /// The sync's shortcut to the roots (no recognition, admission or bundles) gives
    /// exactly the roots of a full grouping, for synced and installed trees alike.
    #[test]
    fn roots_of_the_files_equal_the_roots_of_their_layout(files in tree(), repeated in any::<bool>()) {
        let mut files = files;
        if repeated {
            let again: Vec<IndexedFile> = files.iter().rev().cloned().collect();
            files.extend(again);
        }
        for options in [
            GroupOptions::synced("source"),
            GroupOptions::installed("pkg", neuralis_layout::Trust::Untrusted),
        ] {
            prop_assert_eq!(
                PackageRoots::of_files(&files, &options),
                PackageRoots::from_layout(&group(&files, &options))
            );
        }
    }

    /// The roots read nothing of a file without a usable manifest that is no
    /// `SKILL.md` and lies in no marker or category folder: leaving every such file
    /// out (as the sync's move predicate does) gives the same roots.
    #[test]
    fn roots_do_not_depend_on_files_whose_path_signals_nothing(files in tree()) {
        let kept: Vec<IndexedFile> = files
            .iter()
            .filter(|file| {
                let manifest = file.payload.manifest.as_ref().is_some_and(|m| m.usable);
                manifest || PackageRoots::depend_on_path(&file.path)
            })
            .cloned()
            .collect();
        for options in [
            GroupOptions::synced("source"),
            GroupOptions::installed("pkg", neuralis_layout::Trust::Untrusted),
        ] {
            prop_assert_eq!(
                PackageRoots::of_files(&kept, &options),
                PackageRoots::of_files(&files, &options)
            );
        }
    }
}
