//! Which directories may be a source root (DESIGN.md section 5, "What the server keeps
//! is never a source"). A source's files are served to services and, decided per
//! caller, to callers: a root over `/`, a system directory, or the server's own data or
//! keys would hand out what the server keeps. Pure: the caller resolves the root's
//! symlinks (and those of the directories it compares with) and passes the results.

use std::path::{Component, Path, PathBuf};

/// Directories no source may be, or lie inside: the system's own.
pub const SYSTEM_DIRECTORIES: &[&str] = &[
    "/etc", "/proc", "/sys", "/dev", "/boot", "/bin", "/sbin", "/lib", "/lib64", "/usr", "/var",
    "/run", "/root",
];

/// The setting that names the base directories roots must lie under.
pub const ALLOWED_ROOTS_SETTING: &str = "sync.allowed_roots";

/// What a root is checked against, every path absolute and canonical.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootRules {
    /// Directories the server keeps (its data directory, the directories of its key
    /// files): a root may neither hold one nor lie inside one.
    pub protected: Vec<PathBuf>,
    /// Base directories a root must lie under; empty means anywhere not refused
    /// otherwise, unless `require_allowed`.
    pub allowed: Vec<PathBuf>,
    /// A sync process without discovery (split mode): an empty `allowed` refuses
    /// every root.
    pub require_allowed: bool,
}

/// What a base of `sync.allowed_roots` may end with: each project's roots must then lie
/// in its own folder there (`/srv/sources/{project}`), so one project's administrator
/// cannot name another project's files. A base without it is shared by every project.
pub const PROJECT_PLACEHOLDER: &str = "{project}";

/// A base of `sync.allowed_roots` as configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// Every project's roots may lie under it.
    Shared(PathBuf),
    /// The directory holding one folder per project (the base without its last
    /// segment, `{project}`).
    PerProject(PathBuf),
}

/// Why a configured base cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{ALLOWED_ROOTS_SETTING}: `{PROJECT_PLACEHOLDER}` may only be a base's whole last segment")]
pub struct BaseError;

impl Base {
    /// The base `configured` names.
    pub fn parse(configured: &Path) -> Result<Base, BaseError> {
        let text = configured.to_string_lossy();
        if !text.contains(PROJECT_PLACEHOLDER) {
            return Ok(Base::Shared(configured.to_owned()));
        }
        match (configured.parent(), configured.file_name()) {
            (Some(parent), Some(name))
                if name == PROJECT_PLACEHOLDER
                    && !parent.to_string_lossy().contains(PROJECT_PLACEHOLDER) =>
            {
                Ok(Base::PerProject(parent.to_owned()))
            }
            _ => Err(BaseError),
        }
    }

    /// The directory `project`'s roots must lie under; `None` when the project's id
    /// cannot be one folder name (`.`, `..`, empty, or with a `/`): then it has none.
    pub fn for_project(&self, project: &str) -> Option<PathBuf> {
        match self {
            Base::Shared(base) => Some(base.clone()),
            Base::PerProject(_) if matches!(project, "" | "." | "..") || project.contains('/') => {
                None
            }
            Base::PerProject(parent) => Some(parent.join(project)),
        }
    }
}

/// Why a root is refused. The messages name no path: the server's directories are
/// not the caller's to learn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RootRefusal {
    #[error("must be an absolute path")]
    NotAbsolute,
    #[error("must not contain '..' or '.' segments")]
    RelativeSegment,
    #[error("must not be the filesystem root")]
    FilesystemRoot,
    #[error("must not be or lie inside a system directory")]
    SystemDirectory,
    #[error("must not hold or lie inside the server's data or key directories")]
    ServerData,
    #[error("must lie under one of the directories of sync.allowed_roots")]
    OutsideAllowedRoots,
    #[error(
        "must lie inside one of the directories of sync.allowed_roots, not be one: a base \
         holds every source's folder"
    )]
    AllowedBase,
    #[error(
        "is refused: sync.allowed_roots is empty, and a sync process without discovery \
         accepts only roots under its base directories"
    )]
    NoAllowedRoots,
}

/// Checks a root as given: absolute, with no `.` or `..` segment, and not `/` or a
/// system directory by its own name (a link there is refused as much as its target).
pub fn check_given(root: &str) -> Result<(), RootRefusal> {
    let path = Path::new(root);
    if !path.is_absolute() {
        return Err(RootRefusal::NotAbsolute);
    }
    // `Path::components` drops inner `.` segments: look at the text too.
    let dotted = root
        .split('/')
        .any(|segment| segment == "." || segment == "..");
    if dotted || path.components().any(|c| c == Component::ParentDir) {
        return Err(RootRefusal::RelativeSegment);
    }
    check_not_system(path)
}

fn check_not_system(path: &Path) -> Result<(), RootRefusal> {
    if path.parent().is_none() {
        return Err(RootRefusal::FilesystemRoot);
    }
    if SYSTEM_DIRECTORIES
        .iter()
        .any(|system| path.starts_with(system))
    {
        return Err(RootRefusal::SystemDirectory);
    }
    Ok(())
}

/// Checks a root as resolved (absolute, symlinks resolved) against `rules`.
pub fn check_resolved(resolved: &Path, rules: &RootRules) -> Result<(), RootRefusal> {
    check_not_system(resolved)?;
    if rules
        .protected
        .iter()
        .any(|kept| resolved.starts_with(kept) || kept.starts_with(resolved))
    {
        return Err(RootRefusal::ServerData);
    }
    if rules.allowed.is_empty() {
        return if rules.require_allowed {
            Err(RootRefusal::NoAllowedRoots)
        } else {
            Ok(())
        };
    }
    // A base itself is refused: it holds the folders mounted for every source, so one
    // project's source over it would index every other project's files.
    if rules.allowed.iter().any(|base| resolved == base.as_path()) {
        Err(RootRefusal::AllowedBase)
    } else if rules.allowed.iter().any(|base| resolved.starts_with(base)) {
        Ok(())
    } else {
        Err(RootRefusal::OutsideAllowedRoots)
    }
}

/// Checks a root as given and as resolved; both must pass. The server's directories and
/// the allowed bases are compared with the resolved root only (all canonical).
pub fn check_root(given: &str, resolved: &Path, rules: &RootRules) -> Result<(), RootRefusal> {
    check_given(given)?;
    check_resolved(resolved, rules)
}

#[cfg(test)]
mod tests;
