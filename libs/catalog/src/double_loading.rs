//! Seed 000, "No double loading": "A source subtree that belongs to an already-installed
//! package contributes nothing — the installed package's snapshot covers it."
//!
//! Which subtree of a synced source is an installed package's directory is decided by
//! the package's *logical identity* — the id the installer keys it by and its npm
//! version — read from the source's index rows, never by comparing host paths: in split
//! mode the sync host mounts the directory somewhere discovery's host does not, and
//! both modes must give the same answer. Every package whose root lies at or below
//! such a directory contributes nothing: the manifest package itself, a `.claude/`
//! folder inside it, a bare skill folder.

use std::collections::HashSet;

use neuralis_layout::{FilePayload, ManifestKind};

use crate::package::InstalledPackage;

/// What makes two copies of a package one package wherever they are mounted: the id
/// the installer keys it by (`neuralis.id`, else the npm `name`; for a bare skill
/// folder, the folder's name) and the npm version (none for a bare skill folder). A
/// bare skill folder has no version, and its name alone is no identity (any folder
/// may be named `review`): it is known by the content of its `SKILL.md` as well
/// (`neuralis_connector::fingerprint`), so only the installed folder itself, or a
/// byte-identical copy of its skill, is taken for it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LogicalIdentity {
    pub id: String,
    pub version: Option<String>,
    /// A bare skill folder's `SKILL.md` fingerprint; `None` for a manifest package.
    pub content: Option<u64>,
}

impl LogicalIdentity {
    /// The identity of a loaded installed package; `skill_content` is the fingerprint
    /// of its `SKILL.md` when it is a bare skill folder (no `package.json`).
    pub fn of_installed(package: &InstalledPackage, skill_content: Option<u64>) -> Self {
        Self {
            id: package.id.clone(),
            version: package.manifest.identity.version.clone(),
            content: skill_content,
        }
    }
}

const PACKAGE_JSON: &str = "package.json";
const NEURALIS_PACKAGE_JSON: &str = "neuralis.package.json";
const SKILL_MD: &str = "SKILL.md";

/// The identity the installer would give directory `dir` of a synced source, from its
/// index rows (`payload` looks a row up by source-relative path), by the installer's
/// own rule: a `package.json` with a `neuralis` block, else a `neuralis.package.json`,
/// else — with no `package.json` at all — a root `SKILL.md` (a bare skill folder, named
/// for the folder: `dir_name`, known by its `SKILL.md`'s fingerprint, from
/// `fingerprint`). `None` when the directory is no installable package.
pub fn of_source_dir<'a>(
    dir: &str,
    dir_name: &str,
    payload: impl Fn(&str) -> Option<&'a FilePayload>,
    fingerprint: impl Fn(&str) -> Option<u64>,
) -> Option<LogicalIdentity> {
    let at = |base: &str| match dir {
        "" => base.to_owned(),
        dir => format!("{dir}/{base}"),
    };
    let manifest = |base: &str, kind: ManifestKind| {
        payload(&at(base))
            .and_then(|p| p.manifest.as_ref())
            .filter(|facts| facts.kind == kind && facts.usable)
            .and_then(|facts| {
                let id = facts.id.clone().or_else(|| facts.name.clone())?;
                Some(LogicalIdentity {
                    id,
                    version: facts.version.clone(),
                    content: None,
                })
            })
    };
    if let Some(identity) = manifest(PACKAGE_JSON, ManifestKind::PackageJson)
        .or_else(|| manifest(NEURALIS_PACKAGE_JSON, ManifestKind::NeuralisPackageJson))
    {
        return Some(identity);
    }
    let bare = payload(&at(PACKAGE_JSON)).is_none() && payload(&at(SKILL_MD)).is_some();
    // A row whose hash could not be read (0) is like no other file.
    let content = fingerprint(&at(SKILL_MD)).filter(|f| *f != 0);
    (bare && !dir_name.is_empty() && content.is_some()).then(|| LogicalIdentity {
        id: dir_name.to_owned(),
        version: None,
        content,
    })
}

/// Whether a source package rooted at `root` (or a file in folder `root`) lies in an
/// installed package's directory: `root` itself or a folder above it (up to the source
/// root, named `source_root_name`) has the logical identity of a package in
/// `installed`.
pub fn lies_in_installed<'a>(
    root: &str,
    source_root_name: &str,
    (payload, fingerprint): (
        impl Fn(&str) -> Option<&'a FilePayload> + Copy,
        impl Fn(&str) -> Option<u64> + Copy,
    ),
    installed: &HashSet<LogicalIdentity>,
) -> bool {
    if installed.is_empty() {
        return false;
    }
    let mut dir = root;
    loop {
        let (parent, name) = match dir.rsplit_once('/') {
            Some((parent, name)) => (parent, name),
            None if dir.is_empty() => ("", source_root_name),
            None => ("", dir),
        };
        if of_source_dir(dir, name, payload, fingerprint).is_some_and(|id| installed.contains(&id))
        {
            return true;
        }
        if dir.is_empty() {
            return false;
        }
        dir = parent;
    }
}

#[cfg(test)]
mod tests;
