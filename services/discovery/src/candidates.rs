//! One batch of candidates for policy: every package root and member file that could
//! appear in the answer, from the installed catalog and the project's sources.

use std::path::Path;

use neuralis_access::{EvaluationRequest, FileCandidate, Origin, PackageCandidate, SourceHeader};
use neuralis_layout::{Contribution, Package, RootRule};

use crate::inventory::{ProjectSnapshot, SourceSnapshot};
use crate::ports::{InstalledPackage, SourceInfo};

/// Where a candidate package comes from, to assemble and read it afterwards.
pub(crate) enum Candidate<'a> {
    Installed(&'a InstalledPackage),
    Source {
        source: &'a SourceInfo,
        snapshot: &'a SourceSnapshot,
        package: &'a Package,
    },
}

impl Candidate<'_> {
    pub(crate) fn package(&self) -> &Package {
        match self {
            Candidate::Installed(installed) => &installed.package,
            Candidate::Source { package, .. } => package,
        }
    }
}

/// The batch and, index for index, what each package candidate is.
pub(crate) struct Batch<'a> {
    pub request: EvaluationRequest,
    pub candidates: Vec<Candidate<'a>>,
}

/// The key package enable states and file overrides are stored under: the package id
/// for an installed package, `<sourceSlug>/<packageKey>` for a source package.
pub(crate) fn policy_key(candidate: &Candidate<'_>) -> String {
    match candidate {
        Candidate::Installed(installed) => installed.package_id.clone(),
        Candidate::Source {
            source, package, ..
        } => format!("{}/{}", source.slug, package.key),
    }
}

/// Builds the batch for `project`.
pub(crate) fn build<'a>(
    project: &str,
    installed: &'a [InstalledPackage],
    sources: &'a [SourceInfo],
    snapshot: &'a ProjectSnapshot,
) -> Batch<'a> {
    let mut candidates: Vec<Candidate<'a>> = installed.iter().map(Candidate::Installed).collect();
    let mut headers = Vec::new();
    for source in sources {
        let Some(source_snapshot) = snapshot.sources.get(&source.id) else {
            continue; // never synced, or nothing indexed: contributes nothing
        };
        headers.push(SourceHeader {
            id: source.id.clone(),
            scope: source.scope.clone(),
        });
        for package in &source_snapshot.layout.packages {
            if is_installed_elsewhere(source, package, installed) {
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
    for (at, candidate) in candidates.iter().enumerate() {
        request.packages.push(package_candidate(candidate));
        for file in &candidate.package().files {
            request.files.push(file_candidate(at, candidate, file));
        }
    }
    Batch {
        request,
        candidates,
    }
}

fn package_candidate(candidate: &Candidate<'_>) -> PackageCandidate {
    let key = policy_key(candidate);
    match candidate {
        Candidate::Installed(installed) => PackageCandidate {
            key,
            origin: Origin::Installed,
            root: String::new(),
            access_feature: installed.access_feature.clone(),
            private_owner: None,
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
            private_owner: common_owner(snapshot, package),
        },
    }
}

fn file_candidate(package: usize, candidate: &Candidate<'_>, file: &Contribution) -> FileCandidate {
    let private_owner = match candidate {
        Candidate::Installed(_) => None,
        Candidate::Source { snapshot, .. } => snapshot
            .rows
            .get(&file.path)
            .and_then(|r| r.private_owner.clone()),
    };
    FileCandidate {
        package,
        path: file.path.clone(),
        category: file.category,
        identity: file.identity,
        default_enabled: file.default_enabled,
        required_features: file.required_features.clone(),
        private_owner,
        real_path: None,
    }
}

/// A package whose files all lie in one agent's private subtree is that agent's too
/// (its root name is then as private as its files).
fn common_owner(snapshot: &SourceSnapshot, package: &Package) -> Option<String> {
    let mut owners = package.files.iter().map(|f| {
        snapshot
            .rows
            .get(&f.path)
            .and_then(|r| r.private_owner.clone())
    });
    let first = owners.next()??;
    owners
        .all(|o| o.as_deref() == Some(first.as_str()))
        .then_some(first)
}

/// Seed 000, "No double loading": a source subtree that is an installed package's
/// directory contributes nothing; the installed package's snapshot covers it.
fn is_installed_elsewhere(
    source: &SourceInfo,
    package: &Package,
    installed: &[InstalledPackage],
) -> bool {
    if package.rule != RootRule::Manifest || installed.is_empty() {
        return false;
    }
    let Some(root) = &source.local_root else {
        return false;
    };
    let dir = root.join(&package.root);
    let Ok(dir) = dir.canonicalize() else {
        return false;
    };
    installed.iter().any(|i| same_dir(&i.dir, &dir))
}

fn same_dir(installed: &Path, dir: &Path) -> bool {
    installed.canonicalize().is_ok_and(|i| i == dir)
}
