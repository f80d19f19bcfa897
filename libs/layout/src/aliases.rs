//! One load per real file (issue 27): a file the walk reached through an in-root link
//! (`.agents/skills -> ../skills`) is an alias of its real path, and a real file loads
//! at most once per source, whatever links reach it:
//! - where the real path is itself a recognized location, it loads there, exactly as it
//!   would with no link at all, and every alias contributes nothing;
//! - where only aliases are recognized, the first alias in path order loads.
//!
//! The same holds for a skill folder, a package root and a manifest reached through a
//! linked directory: each of their files is an alias row, so a linked package root
//! whose every contribution loads elsewhere forms no package.
//!
//! How: the real rows are grouped alone, so a link never changes what a real file
//! contributes (not even by forming a root around it); then every row is grouped, and
//! only the aliases whose real file did not load are taken from that second answer.
//! A skill keeps the bundle the full grouping gives it, so a linked `scripts/` folder
//! inside a real skill is still listed in its `files[]`.

use std::collections::{BTreeMap, HashMap};

use crate::category::Category;
use crate::layout::{Alias, Contribution, GroupOptions, IndexedFile, Layout, Package};
use crate::naming::assign_keys;

/// Grouping of rows as given (aliases as plain rows): passed in by `group`, so this
/// module does not import the one that calls it.
pub(crate) type GroupRows = fn(&[IndexedFile], &GroupOptions) -> Layout;

/// Groups rows of which some are aliases with `group_rows`: each real file loads at
/// most once.
pub(crate) fn group_once_per_real_file(
    files: &[IndexedFile],
    options: &GroupOptions,
    group_rows: GroupRows,
) -> Layout {
    let real: Vec<IndexedFile> = files
        .iter()
        .filter(|file| file.alias_of().is_none())
        .cloned()
        .collect();
    let mut layout = group_rows(&real, options);
    let full = group_rows(files, options);
    let real_of: HashMap<&str, &str> = files
        .iter()
        .filter_map(|file| Some((file.path.as_str(), file.alias_of()?)))
        .collect();
    keep_linked_bundles(&mut layout, &full);
    // Where each real file loads: at its own path first.
    let mut loads_at: HashMap<String, String> = layout
        .packages
        .iter()
        .flat_map(|package| package.files.iter())
        .map(|file| (file.path.clone(), file.path.clone()))
        .collect();
    let mut taken: Vec<(&Package, Contribution)> = Vec::new();
    for (package, file) in aliases_in_path_order(&full, &real_of) {
        let real = real_of.get(file.path.as_str()).copied().unwrap_or_default();
        match loads_at.get(real) {
            Some(at) => layout.aliases.push(Alias {
                path: file.path.clone(),
                real_path: real.to_owned(),
                loads_at: at.clone(),
            }),
            None => {
                loads_at.insert(real.to_owned(), file.path.clone());
                taken.push((package, file.clone()));
            }
        }
    }
    add_contributions(&mut layout, taken);
    layout.unloaded.extend(
        full.unloaded
            .into_iter()
            .filter(|unloaded| real_of.contains_key(unloaded.path.as_str())),
    );
    layout.unloaded.sort();
    layout.diagnostics = full.diagnostics;
    layout.detected_roots.extend(full.detected_roots);
    layout.detected_roots.sort();
    layout.detected_roots.dedup();
    layout.aliases.sort();
    layout
}

/// The alias contributions of a layout, in path order, each with its package.
fn aliases_in_path_order<'a>(
    layout: &'a Layout,
    real_of: &HashMap<&str, &str>,
) -> Vec<(&'a Package, &'a Contribution)> {
    let mut aliases: Vec<(&Package, &Contribution)> = layout
        .packages
        .iter()
        .flat_map(|package| package.files.iter().map(move |file| (package, file)))
        .filter(|(_, file)| real_of.contains_key(file.path.as_str()))
        .collect();
    aliases.sort_by(|a, b| a.1.path.cmp(&b.1.path));
    aliases
}

/// A real skill lists the files the full grouping finds in its folder, links included,
/// when it loads there in the same package root.
fn keep_linked_bundles(layout: &mut Layout, full: &Layout) {
    let bundles: HashMap<(&str, &str), &Vec<String>> = full
        .packages
        .iter()
        .flat_map(|package| {
            package
                .files
                .iter()
                .filter(|file| file.category == Category::Skill)
                .map(move |file| ((package.root.as_str(), file.path.as_str()), &file.bundle))
        })
        .collect();
    for package in &mut layout.packages {
        for file in &mut package.files {
            if let Some(bundle) = bundles.get(&(package.root.as_str(), file.path.as_str()))
                && file.category == Category::Skill
            {
                file.bundle.clone_from(bundle);
            }
        }
    }
}

/// Adds the aliases that load to their packages (forming a package the real rows did
/// not), keeping packages ordered by root and contributions by path.
fn add_contributions(layout: &mut Layout, taken: Vec<(&Package, Contribution)>) {
    if taken.is_empty() {
        return;
    }
    let mut by_root: BTreeMap<String, Package> = std::mem::take(&mut layout.packages)
        .into_iter()
        .map(|package| (package.root.clone(), package))
        .collect();
    for (package, file) in taken {
        by_root
            .entry(package.root.clone())
            .or_insert_with(|| Package {
                files: Vec::new(),
                ..package.clone()
            })
            .files
            .push(file);
    }
    layout.packages = by_root.into_values().collect();
    for package in &mut layout.packages {
        package.files.sort_by(|a, b| a.path.cmp(&b.path));
    }
    assign_keys(&mut layout.packages);
}
