//! The shell around `neuralis_sync_core::roots`: resolves a requested root's symlinks
//! (and those of the directories it is compared with) on this host, then applies the
//! pure rules.

use crate::SyncError;
use neuralis_sync_core::roots::{self, RootRules};
use std::path::{Path, PathBuf};

/// The root rules of this process, every directory resolved.
pub fn rules(kept: &[PathBuf], allowed: &[PathBuf], require_allowed: bool) -> RootRules {
    RootRules {
        protected: kept.iter().map(|dir| resolve(dir)).collect(),
        allowed: allowed.iter().map(|dir| resolve(dir)).collect(),
        require_allowed,
    }
}

/// Refuses a root the rules refuse, naming `source.root` and never a server path.
pub fn check(root: &str, rules: &RootRules) -> Result<(), SyncError> {
    roots::check_given(root).map_err(refused)?;
    roots::check_resolved(&resolve(Path::new(root)), rules).map_err(refused)
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
    fn a_link_to_a_system_directory_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let link = dir.path().join("cfg");
        std::os::unix::fs::symlink("/etc", &link).expect("link");
        let refused = check(&link.display().to_string(), &RootRules::default());
        assert!(
            matches!(refused, Err(SyncError::InvalidArgument { ref field, .. }) if field == "source.root"),
            "{refused:?}"
        );
    }
}
