//! Resolving a relative path to a file inside the root, or refusing it.

use std::fs::{self, Metadata};
use std::path::{Component, Path, PathBuf};

use crate::ConnectorError;

/// Resolves `path` (relative, `/`-separated) to a regular file inside `root`.
/// Absolute paths, `..`, NUL bytes and anything whose canonical form leaves the root
/// are `NotFound`.
pub(crate) fn resolve_file(root: &Path, path: &str) -> Result<(PathBuf, Metadata), ConnectorError> {
    let not_found = || ConnectorError::NotFound {
        path: path.to_owned(),
    };
    if !is_plain_relative(path) {
        return Err(not_found());
    }
    let canonical = fs::canonicalize(root.join(path)).map_err(|_| not_found())?;
    if !canonical.starts_with(root) {
        return Err(not_found());
    }
    let metadata = fs::metadata(&canonical).map_err(|_| not_found())?;
    if !metadata.is_file() {
        return Err(not_found());
    }
    Ok((canonical, metadata))
}

/// Only normal segments: no root, no `..`, no `.`, no empty segment, no NUL.
pub(crate) fn is_plain_relative(path: &str) -> bool {
    if path.is_empty()
        || path.contains('\0')
        || path
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == "..")
    {
        return false;
    }
    Path::new(path)
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
}

#[cfg(test)]
mod tests {
    use super::is_plain_relative;

    #[test]
    fn only_plain_relative_paths_are_resolved() {
        for ok in ["a", "a/b.md", ".claude/x"] {
            assert!(is_plain_relative(ok), "{ok}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a//b",
            "./a",
            "a/.",
            "a\0b",
        ] {
            assert!(!is_plain_relative(bad), "{bad:?}");
        }
    }
}
