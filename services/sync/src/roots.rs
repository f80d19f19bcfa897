//! The shell around `neuralis_sync_core::roots`: resolves a requested root's symlinks
//! (and those of the directories it is compared with) on this host, then applies the
//! pure rules.

use crate::SyncError;
use neuralis_sync_core::roots::{self, Base, RootRefusal, RootRules};
use std::path::{Path, PathBuf};

/// The root rules of this process: the kept directories resolved, the allowed bases
/// as configured (a per-project base is resolved for each project when it is used).
#[derive(Debug, Clone, Default)]
pub struct Roots {
    protected: Vec<PathBuf>,
    bases: Vec<Base>,
    require_allowed: bool,
}

impl Roots {
    /// The directories the server keeps, resolved once.
    pub fn protected(&self) -> &[PathBuf] {
        &self.protected
    }
}

/// The root rules of this process; a base naming `{project}` anywhere but as its last
/// segment is refused.
pub fn rules(
    kept: &[PathBuf],
    allowed: &[PathBuf],
    require_allowed: bool,
) -> Result<Roots, roots::BaseError> {
    let bases = allowed
        .iter()
        .map(|base| {
            Ok(match Base::parse(base)? {
                Base::Shared(dir) => Base::Shared(resolve(&dir)),
                Base::PerProject(parent) => Base::PerProject(resolve(&parent)),
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(Roots {
        protected: kept.iter().map(|dir| resolve(dir)).collect(),
        bases,
        require_allowed,
    })
}

/// Refuses a root of `project` the rules refuse, naming `source.root` and never a
/// server path.
pub fn check(root: &str, project: &str, rules: &Roots) -> Result<(), SyncError> {
    check_at(root, &resolve(Path::new(root)), project, rules)
}

/// [`check`] of the root `given` as it was resolved once, by whatever then reads it: a
/// connector checked on a path resolved apart from its own could be handed a link
/// swapped in between (the agent owning a folder on the way re-points it).
pub fn check_at(
    given: &str,
    resolved: &Path,
    project: &str,
    rules: &Roots,
) -> Result<(), SyncError> {
    roots::check_given(given).map_err(refused)?;
    // A project's own folder of a per-project base is resolved now: it may be a link
    // to its volume, made after start.
    let allowed: Option<Vec<PathBuf>> = rules
        .bases
        .iter()
        .map(|base| match base {
            Base::Shared(dir) => Some(dir.clone()),
            Base::PerProject(_) => base.for_project(project).map(|dir| resolve(&dir)),
        })
        .collect();
    let Some(allowed) = allowed else {
        return Err(refused(RootRefusal::OutsideAllowedRoots));
    };
    let concrete = RootRules {
        protected: rules.protected.clone(),
        allowed,
        require_allowed: rules.require_allowed,
    };
    roots::check_resolved(resolved, &concrete).map_err(refused)
}

fn refused(refusal: roots::RootRefusal) -> SyncError {
    SyncError::invalid("source.root", refusal.to_string())
}

/// `path` with every symlink resolved: the longest existing ancestor canonicalized, the
/// rest appended as given (a root may be created after its source). A relative path is
/// taken from the working directory.
pub fn resolve(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map(|dir| dir.join(path))
            .unwrap_or_else(|_| path.to_owned())
    };
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(canonical) = std::fs::canonicalize(existing) {
            return rest
                .iter()
                .rev()
                .fold(canonical, |joined, name| joined.join(name));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_root_resolves_through_its_existing_ancestor() {
        let dir = tempfile::tempdir().expect("tempdir");
        let real = std::fs::canonicalize(dir.path()).expect("canonical");
        std::os::unix::fs::symlink(&real, real.join("link")).expect("link");
        assert_eq!(
            resolve(&real.join("link/not/yet")),
            real.join("not/yet"),
            "the link is resolved, the missing tail kept"
        );
    }

    #[test]
    fn a_placeholder_anywhere_but_a_bases_last_segment_is_refused_at_start() {
        for base in [
            "/srv/{project}/repos",
            "/srv/x{project}",
            "/{project}/{project}",
        ] {
            assert!(rules(&[], &[PathBuf::from(base)], false).is_err(), "{base}");
        }
        assert!(rules(&[], &[PathBuf::from("/srv/sources/{project}")], true).is_ok());
    }

    /// A project whose id cannot be one folder name has no folder in a per-project
    /// base, so no root: never the base's parent (`..`) or the base itself (`.`).
    #[test]
    fn a_project_named_dot_or_dot_dot_has_no_root_under_a_per_project_base() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("canonical");
        std::fs::create_dir_all(base.join("sources/p1/repo")).expect("dir");
        let roots = rules(&[], &[base.join("sources/{project}")], true).expect("rules");
        for (project, root) in [
            ("..", "sources/p1/repo"),
            (".", "p1/repo"),
            ("p1", "sources/p1/repo"),
        ] {
            let checked = check(&base.join(root).display().to_string(), project, &roots);
            assert_eq!(checked.is_ok(), project == "p1", "{project}: {checked:?}");
        }
    }

    /// The connector's own resolution is judged, not one made apart from it: a root
    /// whose path passes but which the connector resolved elsewhere (a link swapped in
    /// between) is refused.
    #[test]
    fn a_root_is_judged_where_its_reader_resolved_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("canonical");
        std::fs::create_dir_all(base.join("sources/p1/repo")).expect("dir");
        std::fs::create_dir_all(base.join("sources/p2/repo")).expect("dir");
        let roots = rules(&[], &[base.join("sources/{project}")], true).expect("rules");
        let given = base.join("sources/p2/repo").display().to_string();
        assert!(check_at(&given, &base.join("sources/p2/repo"), "p2", &roots).is_ok());
        assert!(check_at(&given, &base.join("sources/p1/repo"), "p2", &roots).is_err());
    }

    #[test]
    fn a_link_to_a_system_directory_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let link = dir.path().join("cfg");
        std::os::unix::fs::symlink("/etc", &link).expect("link");
        let refused = check(&link.display().to_string(), "p1", &Roots::default());
        assert!(
            matches!(refused, Err(SyncError::InvalidArgument { ref field, .. }) if field == "source.root"),
            "{refused:?}"
        );
    }
}
