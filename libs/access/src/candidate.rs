//! One batch of candidates for one caller: the source headers, the package roots and their
//! member files, as discovery grouped them. Each candidate is validated before any is
//! decided; errors name the field (`files[12].path`) and never echo a value.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

use neuralis_layout::Category;

use crate::pattern::{split_path, split_path_into};
use crate::{AccessError, SourceScope, grant};

/// The most candidates of one kind in one batch.
pub const MAX_CANDIDATES: usize = 200_000;

/// A source named by the batch, with the scope and owner from the sync service's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceHeader {
    /// The source id the policy store keys its configuration by.
    pub id: String,
    /// Who the source belongs to.
    pub scope: SourceScope,
}

/// Where a package comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A source package: the source id (one of the batch's headers).
    Source(String),
    /// An installed package from the catalog: no source switch, no scope; its paths are
    /// gated only by the policy attached under its scope ([`crate::installed_scope`]).
    Installed,
}

/// A package root to decide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageCandidate {
    /// The package key that package enable states and file overrides are stored under.
    pub key: String,
    /// Where the package comes from.
    pub origin: Origin,
    /// The root folder relative to the source root (empty for the source root).
    pub root: String,
    /// The package's `accessFeature`, gating the whole package.
    pub access_feature: Option<String>,
    /// The owning agent when the root lies in an agent-private subtree.
    pub private_owner: Option<String>,
    /// For an installed package found in a flagged source (seed 000,
    /// `recognizesPackages`): where it lies there. Its files are that source's files,
    /// so the source's switch, scope and URI policy decide them too, and the stricter
    /// wins ([`crate::recognized`]).
    pub found_in: Option<FoundIn>,
}

/// The folder of a flagged source an installed package was found in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundIn {
    /// The source id (one of the batch's headers).
    pub source: String,
    /// The package's folder relative to the source root (empty for the source root).
    pub folder: String,
}

/// A member file to decide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCandidate {
    /// The index of its package in the batch.
    pub package: usize,
    /// Relative to the source root for a source package, to the package root otherwise.
    pub path: String,
    /// The contribution category.
    pub category: Category,
    /// Whether it is an identity file (`AGENTS.md`, `CLAUDE.md`, ...).
    pub identity: bool,
    /// Its default as discovery reports it.
    pub default_enabled: bool,
    /// `requiredFeatures`: every one must be held, or the file is hidden.
    pub required_features: Vec<String>,
    /// The owning agent when the file lies in an agent-private subtree (discovery sends
    /// the owner of either path of an aliased file).
    pub private_owner: Option<String>,
    /// The real path, relative to the source root, when the file is reached through an
    /// in-root symlink: the file is decided under both paths and the stricter decision
    /// wins ([`crate::DecisionCode::stricter`]). It may lie outside the package root.
    /// For a package [`FoundIn`] a source, it is relative to that source's root and
    /// only the source's policy reads it.
    pub real_path: Option<String>,
    /// Whether the sync found content flags in the file (issue 10 item 6): denied when
    /// its source's policy hides flagged files.
    pub content_flagged: bool,
    /// The category the file declares when its package's trust tier serves it as
    /// another (seed 001: below first party an installed package's rule is docs). It
    /// changes no decision; an explanation names the trust tier as the deciding step.
    pub downgraded_from: Option<Category>,
}

/// One batch for one caller in one project.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EvaluationRequest {
    /// The project the caller asks in.
    pub project: String,
    /// The sources the packages name.
    pub sources: Vec<SourceHeader>,
    /// The package roots.
    pub packages: Vec<PackageCandidate>,
    /// The member files.
    pub files: Vec<FileCandidate>,
    /// The ids of the batch's sources that are agent data trees (the `data://`
    /// namespace): their files are also decided by the package data zone they lie in
    /// ([`crate::data_zone`]).
    pub data_sources: Vec<String>,
}

/// A validated batch: every field checked and every path split into segments, once.
/// Only [`EvaluationRequest::check`] makes one, so [`crate::decide`] needs no checks.
#[derive(Debug)]
pub struct CheckedBatch<'a> {
    pub(crate) request: &'a EvaluationRequest,
    pub(crate) roots: Vec<Vec<&'a str>>,
    /// The segments of every file's path and real path, one after another: one buffer
    /// for the batch rather than one allocation per path.
    pub(crate) segments: Vec<&'a str>,
    /// Borrowed when the batch is had again from a kept one (`kept.rs`).
    pub(crate) files: Cow<'a, [FilePaths]>,
}

/// Where a file's path and, for a file reached through a symlink, its real path lie in
/// the batch's segments.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FilePaths {
    pub(crate) path: Range<usize>,
    pub(crate) real: Option<Range<usize>>,
}

impl<'a> CheckedBatch<'a> {
    /// The batch that was checked.
    pub fn request(&self) -> &EvaluationRequest {
        self.request
    }

    /// Each file's path and real path (if any) as segments, in batch order.
    pub(crate) fn file_paths(&self) -> impl Iterator<Item = (&[&'a str], Option<&[&'a str]>)> {
        self.files.iter().map(|file| {
            let real = file.real.as_ref().map(|real| &self.segments[real.clone()]);
            (&self.segments[file.path.clone()], real)
        })
    }
}

/// Segments a batch's buffer starts with room for, per file (most paths are shorter).
const SEGMENTS_PER_FILE: usize = 6;

impl EvaluationRequest {
    /// Checks every field of the batch.
    pub fn validate(&self) -> Result<(), AccessError> {
        self.check().map(|_| ())
    }

    /// Checks every field of the batch and keeps the work for [`crate::decide`].
    pub fn check(&self) -> Result<CheckedBatch<'_>, AccessError> {
        if self.project.trim().is_empty() {
            return Err(AccessError::invalid("project", "is empty"));
        }
        let sources = self.check_sources()?;
        let roots = self
            .packages
            .iter()
            .enumerate()
            .map(|(at, package)| {
                check_package(package, &sources).map_err(|e| e.within(&format!("packages[{at}]")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut segments = Vec::with_capacity(self.files.len() * SEGMENTS_PER_FILE);
        let files = self
            .files
            .iter()
            .enumerate()
            .map(|(at, file)| {
                self.check_file(file, &roots, &mut segments)
                    .map_err(|e| e.within(&format!("files[{at}]")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CheckedBatch {
            request: self,
            roots,
            segments,
            files: Cow::Owned(files),
        })
    }

    fn check_sources(&self) -> Result<HashSet<&str>, AccessError> {
        for (field, len) in [
            ("sources", self.sources.len()),
            ("packages", self.packages.len()),
            ("files", self.files.len()),
        ] {
            if len > MAX_CANDIDATES {
                return Err(AccessError::invalid(
                    field,
                    format!("has more than {MAX_CANDIDATES} entries"),
                ));
            }
        }
        let mut ids = HashSet::new();
        for (at, source) in self.sources.iter().enumerate() {
            let field = format!("sources[{at}]");
            if source.id.trim().is_empty() {
                return Err(AccessError::invalid(format!("{field}.id"), "is empty"));
            }
            if !ids.insert(source.id.as_str()) {
                return Err(AccessError::invalid(
                    format!("{field}.id"),
                    "repeats an earlier source",
                ));
            }
            source.scope.validate(&field)?;
        }
        Ok(ids)
    }

    fn check_file<'a>(
        &'a self,
        file: &'a FileCandidate,
        roots: &[Vec<&str>],
        segments: &mut Vec<&'a str>,
    ) -> Result<FilePaths, AccessError> {
        let (Some(package), Some(root)) =
            (self.packages.get(file.package), roots.get(file.package))
        else {
            return Err(AccessError::invalid(
                "package",
                "names no package of the batch",
            ));
        };
        let path = split_path_into(&file.path, "path", segments)?;
        if path.is_empty() {
            return Err(AccessError::invalid("path", "is empty"));
        }
        let under_root = path.len() > root.len() && segments[path.clone()].starts_with(root);
        if matches!(package.origin, Origin::Source(_)) && !under_root {
            return Err(AccessError::invalid(
                "path",
                "lies outside its package root",
            ));
        }
        for (at, feature) in file.required_features.iter().enumerate() {
            // The field name is formatted only for an error: most files pass.
            grant::check_name(feature, "required_features").map_err(|error| match error {
                AccessError::InvalidArgument { message, .. } => {
                    AccessError::invalid(format!("required_features[{at}]"), message)
                }
            })?;
        }
        check_owner(file.private_owner.as_deref())?;
        let real = match &file.real_path {
            None => None,
            Some(real) => {
                let real = split_path_into(real, "real_path", segments)?;
                if real.is_empty() {
                    return Err(AccessError::invalid("real_path", "is empty"));
                }
                Some(real)
            }
        };
        Ok(FilePaths { path, real })
    }
}

fn check_package<'a>(
    package: &'a PackageCandidate,
    sources: &HashSet<&str>,
) -> Result<Vec<&'a str>, AccessError> {
    if package.key.trim().is_empty() {
        return Err(AccessError::invalid("key", "is empty"));
    }
    if let Origin::Source(id) = &package.origin
        && !sources.contains(id.as_str())
    {
        return Err(AccessError::invalid(
            "source_id",
            "names no source of the batch",
        ));
    }
    if let Some(feature) = &package.access_feature {
        grant::check_name(feature, "access_feature")?;
    }
    check_owner(package.private_owner.as_deref())?;
    if let Some(found_in) = &package.found_in {
        check_found_in(package, found_in, sources)?;
    }
    split_path(&package.root, "root")
}

/// Only an installed package is found in a source, and only in one of the batch's.
fn check_found_in(
    package: &PackageCandidate,
    found_in: &FoundIn,
    sources: &HashSet<&str>,
) -> Result<(), AccessError> {
    if package.origin != Origin::Installed {
        return Err(AccessError::invalid(
            "found_in_source_id",
            "is set on a source package",
        ));
    }
    if !sources.contains(found_in.source.as_str()) {
        return Err(AccessError::invalid(
            "found_in_source_id",
            "names no source of the batch",
        ));
    }
    split_path(&found_in.folder, "found_in_folder").map(|_| ())
}

fn check_owner(owner: Option<&str>) -> Result<(), AccessError> {
    match owner {
        Some(owner) if owner.trim().is_empty() => {
            Err(AccessError::invalid("private_owner", "is empty"))
        }
        _ => Ok(()),
    }
}
