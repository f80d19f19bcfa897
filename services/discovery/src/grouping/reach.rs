//! Files a caller may reach beyond the ones an answer lists, as candidates for policy:
//! a file anywhere in a skill's bundle scope (seed 001, "the directory is the scope";
//! `files[]` only advertises the first 64), and any indexed file as searchable content
//! (seed 000: READMEs, settings in marker directories, scripts, plain personas, files
//! claimed by no rule). Each is decided for the caller with the same gates as a listed
//! file: URI policy on its path and real path, the agent-private subtrees configured
//! now, content flags, and for a bundle entry its skill's features.

use std::collections::HashSet;

use neuralis_access::privacy::Ownership;
use neuralis_access::{FileCandidate, Origin, PackageCandidate};
use neuralis_layout::Category;
use neuralis_layout::bundle::in_bundle_scope;

use crate::base::ports::{InstalledPackage, SourceInfo};
use crate::grouping::candidates::{FileSlot, ownership};
use crate::grouping::prepared::Prepared;
use crate::rows::inventory::SourceSnapshot;

/// Where an indexed source file stands against the prepared batch.
#[derive(Debug)]
pub(crate) enum Reach {
    /// A member file or listed bundle entry: the batch decided it, that answer stands.
    Decided,
    /// In the bundle scope of the skill `skill` (its member file, by path) of package
    /// candidate `package`: decided as an entry of that skill.
    InBundle {
        package: usize,
        skill: String,
        candidate: FileCandidate,
    },
    /// Claimed by no package file: searchable content only, decided on its own as the
    /// one file of a package rooted at its folder.
    Loose {
        package: PackageCandidate,
        candidate: FileCandidate,
    },
    /// In the folder of a recognized package ([`recognized_file`]): never decided as
    /// the source's own file.
    Recognized,
}

/// The recognized package (seed 000, `recognizesPackages`) whose folder in source
/// `source_id` holds `path`: its id, and `path` relative to it. Its files are decided
/// as that package's (its state, attached policy and features, and its source's
/// gates), so a file there is read or searched only as the package's file, never as a
/// loose file of the source, which its source's gates alone would decide.
pub(crate) fn recognized_file(
    prepared: &Prepared,
    source_id: &str,
    path: &str,
) -> Option<(String, String)> {
    prepared.request.packages.iter().find_map(|package| {
        let found_in = package.found_in.as_ref()?;
        if found_in.source != source_id {
            return None;
        }
        let relative = match found_in.folder.as_str() {
            "" => path,
            folder => path.strip_prefix(folder)?.strip_prefix('/')?,
        };
        Some((package.key.clone(), relative.to_owned()))
    })
}

/// Where `path` of `source` stands; `None` when it is not indexed, or when two agents'
/// private subtrees claim it (nobody may see it).
pub(crate) fn reach(
    prepared: &Prepared,
    source: &SourceInfo,
    snapshot: &SourceSnapshot,
    path: &str,
) -> Option<Reach> {
    let facts = snapshot.facts(path)?;
    if recognized_file(prepared, &source.id, path).is_some() {
        return Some(Reach::Recognized);
    }
    let real_path = facts.real_path.as_deref();
    let private_owner = match ownership(source, path, real_path) {
        Ownership::Shared => None,
        Ownership::Agent(owner) => Some(owner),
        Ownership::Conflicting => return None,
    };
    let candidate = FileCandidate {
        package: 0,
        path: path.to_owned(),
        // Read on demand, never active: only whether it is visible is read.
        category: Category::Docs,
        identity: false,
        default_enabled: true,
        required_features: snapshot
            .payload(path)
            .and_then(|payload| payload.frontmatter.as_ref())
            .map(|frontmatter| frontmatter.required_features.clone())
            .unwrap_or_default(),
        private_owner,
        real_path: facts.real_path.clone(),
        content_flagged: !facts.content_flags.is_empty(),
        downgraded_from: None,
    };
    let Some(at) = enclosing_package(prepared, &source.id, path) else {
        return Some(loose(source, candidate));
    };
    Some(placed(prepared, at, candidate).unwrap_or_else(|candidate| loose(source, candidate)))
}

/// Where `path` of the installed package `installed` stands: only a file of its
/// directory as listed at load can be reached, and only in a skill's bundle scope (an
/// installed package's other files are not indexed content; a recognized package's
/// are, but searched only as its listed files: `recognized_file`). `None` otherwise.
pub(crate) fn reach_installed(
    prepared: &Prepared,
    installed: &InstalledPackage,
    path: &str,
) -> Option<Reach> {
    if !installed.sizes.contains_key(path) {
        return None;
    }
    let at = prepared.request.packages.iter().position(|package| {
        package.origin == Origin::Installed && package.key == installed.package_id
    })?;
    let candidate = FileCandidate {
        package: 0,
        path: path.to_owned(),
        category: Category::Docs,
        identity: false,
        default_enabled: true,
        required_features: Vec::new(),
        private_owner: None,
        real_path: None,
        content_flagged: false,
        downgraded_from: None,
    };
    placed(prepared, at, candidate).ok()
}

/// `candidate` placed against package candidate `at`: decided already, or in a
/// skill's bundle scope; given back when it is outside both.
fn placed(
    prepared: &Prepared,
    at: usize,
    mut candidate: FileCandidate,
) -> Result<Reach, FileCandidate> {
    let path = candidate.path.clone();
    match in_package(prepared, at, &path) {
        Membership::Member => Ok(Reach::Decided),
        Membership::Scope { skill, slot } => {
            let like = &prepared.request.files[slot];
            // Decided as its skill's entry: the skill's category, defaults and features.
            candidate.category = like.category;
            candidate.identity = like.identity;
            candidate.default_enabled = like.default_enabled;
            candidate
                .required_features
                .clone_from(&like.required_features);
            Ok(Reach::InBundle {
                package: at,
                skill,
                candidate,
            })
        }
        Membership::Outside => Err(candidate),
    }
}

fn loose(source: &SourceInfo, candidate: FileCandidate) -> Reach {
    let root = match candidate.path.rsplit_once('/') {
        Some((folder, _)) => folder.to_owned(),
        None => String::new(),
    };
    Reach::Loose {
        package: PackageCandidate {
            // No package stores state under it: a package key never starts with '~'.
            key: format!("{}/~{root}", source.id),
            origin: Origin::Source(source.id.clone()),
            root,
            access_feature: None,
            private_owner: candidate.private_owner.clone(),
            found_in: None,
        },
        candidate,
    }
}

/// The package candidate of `source_id` whose root is the deepest folder enclosing
/// `path`.
fn enclosing_package(prepared: &Prepared, source_id: &str, path: &str) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    for (at, package) in prepared.request.packages.iter().enumerate() {
        let Origin::Source(id) = &package.origin else {
            continue;
        };
        let encloses = package.root.is_empty()
            || (path.len() > package.root.len()
                && path.as_bytes()[package.root.len()] == b'/'
                && path.starts_with(&package.root));
        if id == source_id && encloses && best.is_none_or(|(_, len)| package.root.len() > len) {
            best = Some((at, package.root.len()));
        }
    }
    best.map(|(at, _)| at)
}

enum Membership {
    /// A member file or one of the bundle entries sent with the batch.
    Member,
    /// In the scope of a skill, past its listed entries: the skill's member path and
    /// the batch index of the skill's own candidate.
    Scope {
        skill: String,
        slot: usize,
    },
    Outside,
}

fn in_package(prepared: &Prepared, at: usize, path: &str) -> Membership {
    let Some(shown) = prepared.packages.get(at) else {
        return Membership::Outside;
    };
    let root = prepared.request.packages[at].root.as_str();
    let skills: HashSet<&str> = shown
        .view
        .files
        .iter()
        .filter(|f| f.category == Category::Skill)
        .map(|f| folder_of(&f.path))
        .collect();
    let mut scope = None;
    for (fi, file) in shown.view.files.iter().enumerate() {
        let folder = folder_of(&file.path);
        let listed = file.path == path
            || (file.category == Category::Skill
                && file
                    .bundle
                    .iter()
                    .any(|entry| entry_is(folder, entry, path)));
        if listed {
            return Membership::Member;
        }
        let deeper = |(_, _, depth): &(usize, &str, usize)| folder.len() > *depth;
        if file.category == Category::Skill
            && in_bundle_scope(folder, path, folder == root, &skills)
            && scope.as_ref().is_none_or(deeper)
        {
            scope = Some((fi, file.path.as_str(), folder.len()));
        }
    }
    let Some((fi, skill, _)) = scope else {
        return Membership::Outside;
    };
    let own = FileSlot {
        package: at,
        file: fi,
        entry: None,
    };
    match prepared.slots.iter().position(|slot| *slot == own) {
        Some(slot) => Membership::Scope {
            skill: skill.to_owned(),
            slot,
        },
        // The skill itself was never sent (nobody may see it): neither may its files.
        None => Membership::Member,
    }
}

/// The folder of a skill's member file.
fn folder_of(skill: &str) -> &str {
    skill.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn entry_is(folder: &str, entry: &str, path: &str) -> bool {
    if folder.is_empty() {
        return entry == path;
    }
    path.len() == folder.len() + 1 + entry.len()
        && path.starts_with(folder)
        && path.as_bytes()[folder.len()] == b'/'
        && path.ends_with(entry)
}
