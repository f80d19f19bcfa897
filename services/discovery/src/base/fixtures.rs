//! What the unit tests build answers from: project `p1`'s one source, and its rows as
//! sync indexes them.

use neuralis_access::{Scope, SourceScope};
use neuralis_layout::FilePayload;

use crate::base::ports::{IndexRow, SourceInfo};

/// The id of [`source`].
pub(crate) const SOURCE_ID: &str = "p1/repo.00";

/// Source `repo` of project `p1`, with `privacy_patterns`.
pub(crate) fn source(privacy_patterns: &[&str]) -> SourceInfo {
    SourceInfo {
        id: SOURCE_ID.into(),
        slug: "repo".into(),
        scope: SourceScope {
            scope: Scope::Project,
            owner: "p1".into(),
        },
        root_uri: "machine://m1/repo".into(),
        local_root: None,
        privacy_patterns: privacy_patterns.iter().map(|p| (*p).to_owned()).collect(),
        data_tree: false,
        recognizes_packages: false,
    }
}

/// The row of `path` in [`source`]: one byte, no frontmatter, no link, no flags.
pub(crate) fn row(path: &str) -> IndexRow {
    IndexRow {
        source_id: SOURCE_ID.into(),
        path: path.to_owned(),
        size: 1,
        payload: FilePayload::default(),
        real_path: None,
        content_flags: Default::default(),
        fingerprint: 1,
    }
}
