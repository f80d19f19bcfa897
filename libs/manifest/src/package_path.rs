//! Paths a manifest names inside its own package (UI entries, connector factories,
//! team-member templates, iframe urls). One rule for all of them: relative, `/`
//! separated, no `..`, no empty segment, never a URL, so a declaration can never reach
//! outside the package directory.

/// Why a declared path would leave the package (or cannot be read as a path).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PathProblem {
    #[error("must not be empty")]
    Empty,
    #[error("must be relative to the package root, not absolute")]
    Absolute,
    #[error("must not be a URL")]
    Url,
    #[error("must use / as separator, not \\")]
    Backslash,
    #[error("must not contain a .. segment")]
    Traversal,
    #[error("must not contain an empty segment (//)")]
    EmptySegment,
}

/// Normalizes a package-relative path (drops leading `./` segments) or says why it is
/// not one. `./app/x.html` and `app/x.html` are the same path.
pub fn inside_package(path: &str) -> Result<String, PathProblem> {
    if path.is_empty() {
        return Err(PathProblem::Empty);
    }
    if path.contains('\\') {
        return Err(PathProblem::Backslash);
    }
    if path.starts_with('/') || has_drive_prefix(path) {
        return Err(PathProblem::Absolute);
    }
    if path.contains("://") || path.starts_with("data:") || path.starts_with("javascript:") {
        return Err(PathProblem::Url);
    }
    let mut kept = Vec::new();
    for segment in path.split('/') {
        match segment {
            "." => continue,
            ".." => return Err(PathProblem::Traversal),
            "" => return Err(PathProblem::EmptySegment),
            other => kept.push(other),
        }
    }
    if kept.is_empty() {
        return Err(PathProblem::Empty);
    }
    Ok(kept.join("/"))
}

fn has_drive_prefix(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_path_must_stay_inside_the_package() {
        let cases: &[(&str, Result<&str, PathProblem>)] = &[
            ("dist/app/host.js", Ok("dist/app/host.js")),
            (
                "./app/surfaces/widget/x/index.html",
                Ok("app/surfaces/widget/x/index.html"),
            ),
            ("", Err(PathProblem::Empty)),
            ("./", Err(PathProblem::EmptySegment)),
            (".", Err(PathProblem::Empty)),
            ("/etc/passwd", Err(PathProblem::Absolute)),
            ("C:/x", Err(PathProblem::Absolute)),
            ("https://evil.example/x.js", Err(PathProblem::Url)),
            ("a\\b", Err(PathProblem::Backslash)),
            ("team/../../x.md", Err(PathProblem::Traversal)),
            ("a//b", Err(PathProblem::EmptySegment)),
        ];
        for (path, expected) in cases {
            assert_eq!(
                inside_package(path).as_deref().map_err(|e| *e),
                expected.as_deref().map_err(|e| *e),
                "{path}"
            );
        }
    }
}
