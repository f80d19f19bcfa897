//! Seed 000, "No double loading", for a source's packages and files: what lies in an
//! installed package's directory loads there, never from the source too. Decided by
//! logical identity in the source's own rows, never by host paths.

use std::collections::HashSet;

use neuralis_catalog::LogicalIdentity;
use neuralis_catalog::double_loading::lies_in_installed;
use neuralis_layout::Package;

use crate::base::ports::SourceInfo;
use crate::rows::inventory::SourceSnapshot;

/// Seed 000, "No double loading": a source package whose root lies in an installed
/// package's directory contributes nothing; the installed package's snapshot covers it.
/// The directory is recognized by its logical identity in the source's own rows (see
/// `neuralis_catalog::double_loading`), never by host paths, so split mode agrees.
pub(super) fn is_installed_elsewhere(
    source: &SourceInfo,
    snapshot: &SourceSnapshot,
    package: &Package,
    installed: &HashSet<LogicalIdentity>,
) -> bool {
    let payload = |path: &str| snapshot.payload(path);
    let fingerprint = |path: &str| snapshot.facts(path).map(|facts| facts.fingerprint);
    lies_in_installed(
        &package.root,
        root_name(source),
        (payload, fingerprint),
        installed,
    )
}

/// The source root's own folder name (a bare skill mounted as a whole source).
fn root_name(source: &SourceInfo) -> &str {
    source
        .root_uri
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default()
}

/// Seed 000, "No double loading", for one member file of a source package whose root
/// is not an installed directory (issue 27): a file whose folder, under its path or
/// (reached through an in-root link) its real path, lies in an installed package's
/// directory is that package's file — a `skills/<name>/` folder that is an installed
/// bare skill, a link into an installed package. It loads there, never here too.
pub(super) fn member_installed_elsewhere(
    source: &SourceInfo,
    snapshot: &SourceSnapshot,
    path: &str,
    installed: &HashSet<LogicalIdentity>,
) -> bool {
    if installed.is_empty() {
        return false;
    }
    let real = snapshot.facts(path).and_then(|f| f.real_path.as_deref());
    let folder = |path: &str| path.rsplit_once('/').map_or("", |(dir, _)| dir).to_owned();
    let payload = |path: &str| snapshot.payload(path);
    let fingerprint = |path: &str| snapshot.facts(path).map(|facts| facts.fingerprint);
    std::iter::once(path).chain(real).any(|path| {
        let lookups = (payload, fingerprint);
        lies_in_installed(&folder(path), root_name(source), lookups, installed)
    })
}
