//! One batch of candidates for policy: every package root and member file that could
//! appear in the answer, from the installed catalog and the project's sources, and
//! every entry of a skill's bundle (decided with its skill: nothing a caller is shown
//! goes undecided).

use std::collections::HashSet;

use neuralis_access::privacy::{Ownership, owner_of_alias};
use neuralis_access::{EvaluationRequest, FileCandidate, Origin, PackageCandidate, SourceHeader};
use neuralis_catalog::LogicalIdentity;
use neuralis_layout::{Contribution, Package};

use crate::base::ports::{InstalledPackage, SourceInfo};
use crate::rows::inventory::{ProjectSnapshot, SourceSnapshot};

mod double_loading;
mod recognized;

use double_loading::{RecognizedFolders, is_installed_elsewhere, member_installed_elsewhere};
use recognized::{FoundIn, recognized_in, recognized_owner};

/// Where a candidate package comes from, to assemble and read it afterwards.
pub(crate) enum Candidate<'a> {
    Installed {
        installed: &'a InstalledPackage,
        /// For a package a flagged source holds: that source's rows, where its files'
        /// content flags are (a host-installed package's files are not indexed).
        rows: Option<&'a SourceSnapshot>,
    },
    Source {
        source: &'a SourceInfo,
        snapshot: &'a SourceSnapshot,
        package: &'a Package,
    },
}

impl Candidate<'_> {
    pub(crate) fn package(&self) -> &Package {
        match self {
            Candidate::Installed { installed, .. } => &installed.package,
            Candidate::Source { package, .. } => package,
        }
    }
}

/// What one file candidate of the batch stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileSlot {
    /// The package candidate.
    pub package: usize,
    /// The member file (index into the package's files).
    pub file: usize,
    /// For a bundle entry of that (skill) file: the index into its bundle.
    pub entry: Option<usize>,
}

/// A tool of an installed package, sent to policy after every file candidate as a
/// file of its package at its manifest's path carrying the tool's features: policy
/// decides it with the same gates as markdown (features, the package's switch and
/// URI policy), and a usable tool keeps its package usable when all its markdown is
/// gated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolSlot {
    /// The package candidate.
    pub package: usize,
    /// The tool's name.
    pub name: String,
}

/// Where a tool is decided: the manifest that declares the package's tools.
const TOOL_PATH: &str = recognized::MANIFEST;

/// The batch and, index for index, what each package and file candidate is.
pub(crate) struct Batch<'a> {
    pub request: EvaluationRequest,
    pub candidates: Vec<Candidate<'a>>,
    /// One per `request.files` of member files and bundle entries, in order.
    pub slots: Vec<FileSlot>,
    /// One per `request.files` after those: the installed packages' tools.
    pub tools: Vec<ToolSlot>,
}

/// The key package enable states and file overrides are stored under: the package id
/// for an installed package, `<source_id>/<packageKey>` for a source package (a
/// source id is never reused, so a recreated source inherits no state).
pub(crate) fn policy_key(candidate: &Candidate<'_>) -> String {
    match candidate {
        Candidate::Installed { installed, .. } => installed.package_id.clone(),
        Candidate::Source {
            source, package, ..
        } => joined(&source.id, &package.key),
    }
}

/// `{dir}/{name}`, sized once (`format!` grows its string as it writes: a reallocation
/// per part, for every file of every package an answer is prepared with).
fn joined(dir: &str, name: &str) -> String {
    let mut path = String::with_capacity(dir.len() + 1 + name.len());
    path.push_str(dir);
    path.push('/');
    path.push_str(name);
    path
}

/// The path of a skill's bundle entry, relative to where the skill's path is: the
/// skill's directory joined with the dir-relative entry.
pub(crate) fn entry_path(skill_path: &str, entry: &str) -> String {
    match skill_path.rsplit_once('/') {
        Some((dir, _)) => joined(dir, entry),
        None => entry.to_owned(),
    }
}

/// Whether a skill's bundle entry is the skill's own file ([`entry_path`] of it is the
/// skill's path), told without building that path: the entry is the skill file's name.
pub(crate) fn is_own_entry(skill_path: &str, entry: &str) -> bool {
    let name = skill_path
        .rsplit_once('/')
        .map_or(skill_path, |(_, name)| name);
    entry == name
}

/// Builds the batch for `project`.
pub(crate) fn build<'a>(
    project: &str,
    installed: &'a [InstalledPackage],
    sources: &'a [SourceInfo],
    snapshot: &'a ProjectSnapshot,
) -> Batch<'a> {
    // A package found in a source the project no longer has is not a candidate: its
    // files were that source's, and no switch or policy is left to decide them by.
    let mut candidates: Vec<Candidate<'a>> = installed
        .iter()
        .filter(|installed| {
            let found = installed.source.as_ref();
            found.is_none_or(|found| sources.iter().any(|s| s.id == found.source_id))
        })
        .map(|installed| Candidate::Installed {
            installed,
            rows: installed
                .source
                .as_ref()
                .and_then(|found| snapshot.sources.get(&found.source_id))
                .map(std::sync::Arc::as_ref),
        })
        .collect();
    let identities: HashSet<LogicalIdentity> =
        installed.iter().map(|i| i.identity.clone()).collect();
    // A flagged source's packages are decided by its switch and policy too, synced or not.
    let flagged: HashSet<&str> = installed
        .iter()
        .filter_map(|installed| installed.source.as_ref())
        .map(|found| found.source_id.as_str())
        .collect();
    let recognized = RecognizedFolders::of(installed);
    let mut headers = Vec::new();
    for source in sources {
        let source_snapshot = snapshot.sources.get(&source.id);
        if source_snapshot.is_some() || flagged.contains(source.id.as_str()) {
            headers.push(SourceHeader {
                id: source.id.clone(),
                scope: source.scope.clone(),
            });
        }
        let Some(source_snapshot) = source_snapshot else {
            continue; // never synced, or nothing indexed: contributes no markdown
        };
        for package in &source_snapshot.layout.packages {
            if is_installed_elsewhere(source, source_snapshot, package, &identities)
                || recognized.hold(&source.id, &package.root)
            {
                continue;
            }
            candidates.push(Candidate::Source {
                source,
                snapshot: source_snapshot,
                package,
            });
        }
    }
    let mut request = EvaluationRequest {
        project: project.to_owned(),
        sources: headers,
        ..Default::default()
    };
    let mut slots = Vec::new();
    let found: Vec<Option<FoundIn<'_>>> = candidates
        .iter()
        .map(|candidate| match candidate {
            Candidate::Installed { installed, .. } => recognized_in(installed, sources, snapshot),
            Candidate::Source { .. } => None,
        })
        .collect();
    for (at, candidate) in candidates.iter().enumerate() {
        let found_in = found[at];
        request
            .packages
            .push(package_candidate(candidate, found_in));
        for (fi, file) in candidate.package().files.iter().enumerate() {
            if let Candidate::Source {
                source, snapshot, ..
            } = candidate
                && (member_installed_elsewhere(source, snapshot, &file.path, &identities)
                    || in_recognized_folder(&recognized, source, snapshot, &file.path))
            {
                continue; // not sent: hidden for everyone
            }
            let mut push = |path: String, entry: Option<usize>| {
                // A file nobody may see is not sent: it stays hidden (see `assemble`).
                if let Some(file) = file_candidate(at, candidate, found_in, file, path) {
                    request.files.push(file);
                    slots.push(FileSlot {
                        package: at,
                        file: fi,
                        entry,
                    });
                }
            };
            push(file.path.clone(), None);
            for (ei, entry) in file.bundle.iter().enumerate() {
                if !is_own_entry(&file.path, entry) {
                    push(entry_path(&file.path, entry), Some(ei)); // the skill's own file is decided above
                }
            }
        }
    }
    let tools = push_tools(&candidates, &found, &mut request);
    Batch {
        request,
        candidates,
        slots,
        tools,
    }
}

/// Appends every installed package's tools to the batch (see [`ToolSlot`]).
fn push_tools(
    candidates: &[Candidate<'_>],
    found: &[Option<FoundIn<'_>>],
    request: &mut EvaluationRequest,
) -> Vec<ToolSlot> {
    let mut tools = Vec::new();
    for (at, candidate) in candidates.iter().enumerate() {
        let Candidate::Installed { installed, .. } = candidate else {
            continue; // markdown only from a source: no tool ever loads from one
        };
        // A recognized package's manifest is a file of its source: owned and decided
        // as one, under its real path there too.
        let manifest = found[at].map(|found_in| found_in.as_source_file(TOOL_PATH));
        let (private_owner, real_path, content_flagged) = match manifest {
            None => (None, None, false),
            Some(file) => match file.owner {
                Ownership::Shared => (None, file.real_path, file.content_flagged),
                Ownership::Agent(owner) => (Some(owner), file.real_path, file.content_flagged),
                Ownership::Conflicting => continue, // not sent: hidden for everyone
            },
        };
        for tool in &installed.tools {
            request.files.push(FileCandidate {
                package: at,
                path: TOOL_PATH.to_owned(),
                // Listed, never active: only whether it is visible is read.
                category: neuralis_layout::Category::Docs,
                identity: false,
                default_enabled: true,
                required_features: tool.features.clone(),
                private_owner: private_owner.clone(),
                real_path: real_path.clone(),
                content_flagged,
                downgraded_from: None,
            });
            tools.push(ToolSlot {
                package: at,
                name: tool.name.clone(),
            });
        }
    }
    tools
}

fn package_candidate(candidate: &Candidate<'_>, found_in: Option<FoundIn<'_>>) -> PackageCandidate {
    let key = policy_key(candidate);
    match candidate {
        Candidate::Installed { installed, .. } => PackageCandidate {
            key,
            origin: Origin::Installed,
            root: String::new(),
            access_feature: installed.access_feature.clone(),
            private_owner: found_in
                .and_then(|found_in| recognized_owner(found_in, &installed.package)),
            found_in: found_in.map(|found_in| found_in.found_in()),
        },
        Candidate::Source {
            source,
            snapshot,
            package,
        } => PackageCandidate {
            key,
            origin: Origin::Source(source.id.clone()),
            root: package.root.clone(),
            access_feature: None,
            private_owner: common_owner(source, snapshot, package),
            found_in: None,
        },
    }
}

/// The candidate for `path`: the member file itself, or an entry of its bundle, which
/// goes to policy as a file of the skill (its category, features and defaults) under
/// its own path, with its real path when it is reached through an in-root symlink
/// (policy decides both; the stricter wins). `None` when no caller may see it.
fn file_candidate(
    package: usize,
    candidate: &Candidate<'_>,
    found_in: Option<FoundIn<'_>>,
    file: &Contribution,
    path: String,
) -> Option<FileCandidate> {
    let (private_owner, real_path, content_flagged) = match candidate {
        Candidate::Installed { .. } => {
            match found_in.map(|found_in| found_in.as_source_file(&path)) {
                None => (None, None, false),
                Some(file) => {
                    let owner = match file.owner {
                        Ownership::Shared => None,
                        Ownership::Agent(owner) => Some(owner),
                        Ownership::Conflicting => return None,
                    };
                    (owner, file.real_path, file.content_flagged)
                }
            }
        }
        Candidate::Source {
            source, snapshot, ..
        } => {
            let row = snapshot.rows.get(&path);
            let real_path = row.and_then(|row| row.real_path.as_deref());
            let owner = match ownership(source, &path, real_path) {
                Ownership::Shared => None,
                Ownership::Agent(owner) => Some(owner),
                Ownership::Conflicting => return None,
            };
            let flagged = row.is_some_and(|row| !row.content_flags.is_empty());
            (owner, real_path.map(str::to_owned), flagged)
        }
    };
    Some(FileCandidate {
        content_flagged,
        downgraded_from: file.downgraded_from,
        package,
        path,
        category: file.category,
        identity: file.identity,
        default_enabled: file.default_enabled,
        required_features: file.required_features.clone(),
        private_owner,
        real_path,
    })
}

/// Whether a source file, under its path or its real path, lies in a recognized
/// package's folder ([`RecognizedFolders::hold`]).
fn in_recognized_folder(
    recognized: &RecognizedFolders<'_>,
    source: &SourceInfo,
    snapshot: &SourceSnapshot,
    path: &str,
) -> bool {
    std::iter::once(path)
        .chain(real_path_of(snapshot, path))
        .any(|path| recognized.hold(&source.id, path))
}

fn real_path_of<'s>(snapshot: &'s SourceSnapshot, path: &str) -> Option<&'s str> {
    snapshot
        .rows
        .get(path)
        .and_then(|row| row.real_path.as_deref())
}

/// Who may see a source file, by the source's privacy patterns as configured now (not
/// the marker the last sync stored): the owner of its path or of its real path, either
/// (a link cannot make another agent's file shared); two owners: nobody.
pub(crate) fn ownership(source: &SourceInfo, path: &str, real_path: Option<&str>) -> Ownership {
    owner_of_alias(path, real_path, &source.privacy_patterns)
}

/// A package whose files all lie in one agent's private subtree is that agent's too
/// (its root name is then as private as its files).
fn common_owner(
    source: &SourceInfo,
    snapshot: &SourceSnapshot,
    package: &Package,
) -> Option<String> {
    let mut owners = package
        .files
        .iter()
        .map(|f| ownership(source, &f.path, real_path_of(snapshot, &f.path)));
    let Some(Ownership::Agent(first)) = owners.next() else {
        return None;
    };
    owners
        .all(|o| o == Ownership::Agent(first.clone()))
        .then_some(first)
}

#[cfg(test)]
#[path = "candidates_tests.rs"]
mod tests;
