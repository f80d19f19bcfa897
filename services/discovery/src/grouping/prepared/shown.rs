//! A package candidate as an answer would show it, and whether one shown for an
//! earlier snapshot still is exactly what the candidate would show now (so a delta
//! rebuilds only the packages it changed: issue 13, "cost proportional to the change").
//!
//! [`shown`] and [`unchanged`] read the same inputs: the candidate's origin (installed
//! package id, or source id, slug and root URI), the package's name, key, root, rule and
//! per file the fields a [`FileView`] copies, and each file's indexed size and content
//! flags (with, for a skill, its bundle entries' flags). The views are
//! destructured whole in [`unchanged`], so a field added to them does not compile until
//! it is compared too.

use neuralis_assembly::{FileState, FileView, Origin, PackageView};
use neuralis_content_flags::FlagSet;
use neuralis_layout::{Category, Contribution};

use crate::grouping::candidates::{Candidate, entry_path, is_own_entry, policy_key};
use crate::grouping::content::{ContentAt, in_source, is_in_source};

/// A package candidate as an answer would show it were every file visible.
#[derive(Debug, PartialEq)]
pub(crate) struct Shown {
    /// Every member file, each with its whole bundle; `enabled` and the files' states
    /// are placeholders, set from each caller's decisions.
    pub view: PackageView,
    /// Where each file's content lives, index for index with `view.files`.
    pub content: Vec<ContentAt>,
    /// Per file, per bundle entry: whether the entry is the skill's own file (decided
    /// with the skill, not on its own).
    pub own_entry: Vec<Vec<bool>>,
    /// Per file, the content flags its row holds now, index for index with
    /// `view.files`: part of what the package shows (the listing's messages carry
    /// them), so a package whose flags changed is not the same package.
    pub flags: Vec<FileFlags>,
}

/// A member file's content flags as indexed: its own and, for a skill, each bundle
/// entry's in bundle order (none for the skill's own file: its flags are the file's).
/// Empty for a host-installed package's file (not indexed); a recognized package's
/// file has its source row's.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct FileFlags {
    pub own: FlagSet,
    pub entries: Vec<FlagSet>,
}

pub(super) fn shown(candidate: &Candidate<'_>) -> Shown {
    let package = candidate.package();
    let (origin, rule) = match candidate {
        Candidate::Installed { installed, .. } => (
            Origin::Installed {
                package_id: installed.package_id.clone(),
            },
            None,
        ),
        Candidate::Source { source, .. } => (
            Origin::Source {
                slug: source.slug.clone(),
            },
            Some(package.rule.as_str().to_owned()),
        ),
    };
    Shown {
        view: PackageView {
            origin,
            name: package.name.clone(),
            key: package.key.clone(),
            policy_key: policy_key(candidate),
            root: package.root.clone(),
            rule,
            enabled: true,
            files: package
                .files
                .iter()
                .map(|file| file_view(candidate, file))
                .collect(),
        },
        content: package
            .files
            .iter()
            .map(|file| content_at(candidate, file))
            .collect(),
        own_entry: package
            .files
            .iter()
            .map(|file| {
                file.bundle
                    .iter()
                    .map(|entry| is_own_entry(&file.path, entry))
                    .collect()
            })
            .collect(),
        flags: package
            .files
            .iter()
            .map(|file| FileFlags {
                own: indexed(candidate, &file.path).1,
                entries: entry_flags(candidate, file).collect(),
            })
            .collect(),
    }
}

/// Whether `old` is what [`shown`] would build for `candidate` (whose policy key is
/// `key`). `own_entry` follows from the paths and bundles compared.
pub(super) fn unchanged(old: &Shown, candidate: &Candidate<'_>, key: &str) -> bool {
    let package = candidate.package();
    let PackageView {
        origin,
        name,
        key: package_key,
        policy_key,
        root,
        rule,
        enabled: _, // a placeholder, set per caller
        files,
    } = &old.view;
    let same_origin = match (candidate, origin) {
        (Candidate::Installed { installed, .. }, Origin::Installed { package_id }) => {
            *package_id == installed.package_id && rule.is_none()
        }
        (Candidate::Source { source, .. }, Origin::Source { slug }) => {
            *slug == source.slug && rule.as_deref() == Some(package.rule.as_str())
        }
        _ => false,
    };
    same_origin
        && *name == package.name
        && *package_key == package.key
        && policy_key == key
        && *root == package.root
        && files.len() == package.files.len()
        && old.content.len() == package.files.len()
        && old.flags.len() == package.files.len()
        && files
            .iter()
            .zip(&old.content)
            .zip(&old.flags)
            .zip(&package.files)
            .all(|(((view, at), flagged), file)| {
                let (size, own) = indexed(candidate, &file.path);
                same_file(view, file, size)
                    && same_place(at, candidate, file)
                    && flagged.own == own
                    && flagged
                        .entries
                        .iter()
                        .copied()
                        .eq(entry_flags(candidate, file))
            })
}

fn same_file(view: &FileView, file: &Contribution, indexed: u64) -> bool {
    let FileView {
        path,
        category,
        id,
        title,
        description,
        identity,
        default_enabled,
        state: _,         // a placeholder, set per caller
        bundle,           // every entry; filtered per caller
        activation_id: _, // assigned over the whole answer, not kept in the view
        size,
        allowed_tools,
    } = view;
    *path == file.path
        && *category == file.category
        && *id == file.id
        && *title == file.title
        && *description == file.description
        && *identity == file.identity
        && *default_enabled == file.default_enabled
        && *bundle == file.bundle
        && *size == indexed
        && *allowed_tools == file.allowed_tools
}

/// Whether `at` is what [`content_at`] builds for `file` of `candidate`, compared in
/// place (building it copies five strings per file of every package).
fn same_place(at: &ContentAt, candidate: &Candidate<'_>, file: &Contribution) -> bool {
    let source_place = |place: &ContentAt, id: &str, at_slug: &str, uri: &str, at_prefix: &str| {
        let ContentAt::Source {
            source_id,
            slug,
            path,
            root_uri,
            prefix,
        } = place
        else {
            return false;
        };
        source_id == id
            && slug == at_slug
            && root_uri == uri
            && prefix == at_prefix
            && is_in_source(path, prefix, &file.path)
    };
    match candidate {
        Candidate::Installed { installed, .. } => match (&installed.source, at) {
            (Some(from), _) => source_place(
                at,
                &from.source_id,
                &from.slug,
                &from.root_uri,
                &from.prefix,
            ),
            (None, ContentAt::Installed { package_id, path }) => {
                *package_id == installed.package_id && *path == file.path
            }
            (None, ContentAt::Source { .. }) => false,
        },
        Candidate::Source { source, .. } => {
            source_place(at, &source.id, &source.slug, &source.root_uri, "")
        }
    }
}

/// The file's size and content flags as indexed, in one lookup: an installed
/// package's file has its size, and the flags of its row when a flagged source holds
/// the package (none on the host: not indexed); a file the index holds no row for, 0
/// and none.
fn indexed(candidate: &Candidate<'_>, path: &str) -> (u64, FlagSet) {
    match candidate {
        Candidate::Installed { installed, rows } => {
            let size = installed.sizes.get(path).copied().unwrap_or(0);
            let flags = match (rows, &installed.source) {
                (Some(rows), Some(from)) => rows
                    .rows
                    .get(&in_source(&from.prefix, path))
                    .map(|row| row.content_flags)
                    .unwrap_or_default(),
                _ => FlagSet::default(),
            };
            (size, flags)
        }
        Candidate::Source { snapshot, .. } => snapshot
            .rows
            .get(path)
            .map_or((0, FlagSet::default()), |row| (row.size, row.content_flags)),
    }
}

/// A skill's bundle entries' flags, in bundle order (none for its own file, nor for a
/// file that is no skill or a host-installed package's).
fn entry_flags<'a>(
    candidate: &'a Candidate<'_>,
    file: &'a Contribution,
) -> impl Iterator<Item = FlagSet> + 'a {
    let indexed_rows = match candidate {
        Candidate::Installed { rows, .. } => rows.is_some(),
        Candidate::Source { .. } => true,
    };
    let skill = file.category == Category::Skill && indexed_rows;
    let bundle = if skill { file.bundle.as_slice() } else { &[] };
    bundle.iter().map(move |entry| {
        if is_own_entry(&file.path, entry) {
            FlagSet::default()
        } else {
            indexed(candidate, &entry_path(&file.path, entry)).1
        }
    })
}

fn file_view(candidate: &Candidate<'_>, file: &Contribution) -> FileView {
    FileView {
        path: file.path.clone(),
        category: file.category,
        id: file.id.clone(),
        title: file.title.clone(),
        description: file.description.clone(),
        identity: file.identity,
        default_enabled: file.default_enabled,
        state: FileState::Active,
        bundle: file.bundle.clone(),
        activation_id: String::new(),
        size: indexed(candidate, &file.path).0,
        allowed_tools: file.allowed_tools.clone(),
    }
}

fn content_at(candidate: &Candidate<'_>, file: &Contribution) -> ContentAt {
    match candidate {
        // A package a flagged source holds: its files are rows of that source, read
        // through the index's decided read like any source file (seed 000).
        Candidate::Installed { installed, .. } => match &installed.source {
            Some(from) => ContentAt::Source {
                source_id: from.source_id.clone(),
                slug: from.slug.clone(),
                path: in_source(&from.prefix, &file.path),
                root_uri: from.root_uri.clone(),
                prefix: from.prefix.clone(),
            },
            None => ContentAt::Installed {
                package_id: installed.package_id.clone(),
                path: file.path.clone(),
            },
        },
        Candidate::Source { source, .. } => ContentAt::Source {
            source_id: source.id.clone(),
            slug: source.slug.clone(),
            path: file.path.clone(),
            root_uri: source.root_uri.clone(),
            prefix: String::new(),
        },
    }
}

#[cfg(test)]
#[path = "shown_tests.rs"]
mod tests;
