//! A package as one caller sees it.

use neuralis_layout::Category;
use serde::Serialize;

/// Where a package comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Origin {
    /// An installed package directory, by package id.
    Installed { package_id: String },
    /// A synced source, by slug.
    Source { slug: String },
}

/// A file's state for this caller, after the precedence predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileState {
    /// On: injected (rules, instructions, agents) or activatable (skills, commands).
    Active,
    /// Available but opt-in: default off and not explicitly enabled.
    OptIn,
    /// Turned off by a package, agent or conversation switch.
    Disabled,
    /// Docs: listed and readable on demand, never injected.
    Manual,
}

/// One member file that the caller may see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileView {
    /// Path relative to the source root (installed packages: to the package root).
    pub path: String,
    pub category: Category,
    pub id: String,
    pub title: String,
    pub description: Option<String>,
    pub identity: bool,
    pub default_enabled: bool,
    pub state: FileState,
    /// Skills: the bundle entries this caller may see (each decided with the skill),
    /// dir-relative, SKILL.md first.
    pub bundle: Vec<String>,
    /// Skills: the id activation answers to; filled by [`crate::assign_activation_ids`].
    pub activation_id: String,
    /// Size in bytes as indexed (hydration budgets with it before reading).
    pub size: u64,
    /// The `allowed-tools` frontmatter, carried to the host: advisory on a skill,
    /// enforced on an agent persona (seed 000).
    pub allowed_tools: Vec<String>,
}

/// One package that the caller may see, with only the files it may see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PackageView {
    pub origin: Origin,
    pub name: String,
    /// Unique within its source; used in `<id>.<sourceSlug>.<packageKey>`.
    pub key: String,
    /// The key policy stores its enable state and file overrides under:
    /// `<source_id>/<key>` for a source package, the package id for an installed one.
    pub policy_key: String,
    /// Root relative to the source root ("" for the source root).
    pub root: String,
    /// The grouping rule label (`manifest`, `marker`, …) for source packages.
    pub rule: Option<String>,
    pub enabled: bool,
    pub files: Vec<FileView>,
}

impl PackageView {
    /// The source slug, for source packages.
    pub fn source_slug(&self) -> Option<&str> {
        match &self.origin {
            Origin::Source { slug } => Some(slug),
            Origin::Installed { .. } => None,
        }
    }
}

/// Installed packages first (by package id), then source packages by source slug and
/// root (seed 000: a source package "appears … as its own block after the installed
/// packages"). Files by path.
pub fn order_packages(packages: &mut [PackageView]) {
    for package in packages.iter_mut() {
        package.files.sort_by(|a, b| a.path.cmp(&b.path));
    }
    packages.sort_by(|a, b| package_order_key(a).cmp(&package_order_key(b)));
}

/// The key [`order_packages`] sorts by: installed first by package id, then sources by
/// slug and root.
pub fn package_order_key(package: &PackageView) -> (u8, &str, &str) {
    match &package.origin {
        Origin::Installed { package_id } => (0, package_id.as_str(), package.root.as_str()),
        Origin::Source { slug } => (1, slug.as_str(), package.root.as_str()),
    }
}
