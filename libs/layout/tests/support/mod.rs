//! Building index rows the way a sync does: capture each file from its content.
#![allow(dead_code)]

use neuralis_layout::{
    Category, Contribution, GroupOptions, IndexedFile, Layout, Package, RootRule, UnloadedReason,
    capture, group, needs_content,
};

/// A row for `path` with `content`, captured as the sync would (content is read only
/// when the layout asks for it).
pub fn row(path: &str, content: &str) -> IndexedFile {
    let content = needs_content(path).then_some(content.as_bytes());
    IndexedFile::new(path, capture(path, content))
}

/// Frontmatter with a name, enough to admit a flat contribution.
pub const NAMED: &str = "---\nname: named\n---\nbody\n";
/// A markdown with no frontmatter.
pub const PLAIN: &str = "# notes\n";
/// A usable package.json.
pub const NEURALIS_PACKAGE: &str = r#"{"name": "helper", "neuralis": {}}"#;

/// Groups `(path, content)` pairs as a synced source named `source`.
pub fn group_synced(files: &[(&str, &str)]) -> Layout {
    let rows: Vec<IndexedFile> = files.iter().map(|(p, c)| row(p, c)).collect();
    group(&rows, &GroupOptions::synced("source"))
}

pub fn package<'l>(layout: &'l Layout, root: &str) -> &'l Package {
    layout
        .packages
        .iter()
        .find(|p| p.root == root)
        .unwrap_or_else(|| panic!("no package at {root:?}: {:#?}", summary(layout)))
}

pub fn contribution<'l>(layout: &'l Layout, path: &str) -> &'l Contribution {
    layout
        .packages
        .iter()
        .flat_map(|p| &p.files)
        .find(|c| c.path == path)
        .unwrap_or_else(|| panic!("{path} is not a contribution: {:#?}", summary(layout)))
}

pub fn unloaded_reason(layout: &Layout, path: &str) -> Option<UnloadedReason> {
    layout
        .unloaded
        .iter()
        .find(|u| u.path == path)
        .map(|u| u.reason)
}

pub fn roots(layout: &Layout) -> Vec<(&str, RootRule, &str)> {
    layout
        .packages
        .iter()
        .map(|p| (p.root.as_str(), p.rule, p.name.as_str()))
        .collect()
}

/// Which package root each contribution went to, and its category.
pub fn summary(layout: &Layout) -> Vec<(String, String, Category)> {
    layout
        .packages
        .iter()
        .flat_map(|p| {
            p.files
                .iter()
                .map(move |f| (p.root.clone(), f.path.clone(), f.category))
        })
        .collect()
}

pub fn is_contribution(layout: &Layout, path: &str) -> bool {
    layout
        .packages
        .iter()
        .flat_map(|p| &p.files)
        .any(|c| c.path == path)
}
