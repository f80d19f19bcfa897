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

/// The folders of recognized packages (seed 000, `recognizesPackages`), by source id.
pub(super) struct RecognizedFolders<'a>(Vec<(&'a str, &'a str)>);

impl<'a> RecognizedFolders<'a> {
    pub(super) fn of(installed: &'a [crate::base::ports::InstalledPackage]) -> Self {
        RecognizedFolders(
            installed
                .iter()
                .filter_map(|package| package.source.as_ref())
                .map(|found| (found.source_id.as_str(), found.prefix.as_str()))
                .collect(),
        )
    }

    /// Whether `path` of source `source_id` (a package root or a file, under its path
    /// or its real path) lies in a recognized package's folder: it is that package's,
    /// decided with its state and gates, never the source's markdown too. Told by
    /// path, not by the identity in the rows (`is_installed_elsewhere`), which a
    /// manifest changed since the last sync makes differ from the scan's.
    pub(super) fn hold(&self, source_id: &str, path: &str) -> bool {
        self.0.iter().any(|(source, folder)| {
            *source == source_id
                && (folder.is_empty()
                    || path == *folder
                    || path
                        .strip_prefix(folder)
                        .is_some_and(|rest| rest.starts_with('/')))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::RecognizedFolders;

    #[test]
    fn a_recognized_folder_holds_its_own_paths_in_its_own_source_only() {
        let folders = RecognizedFolders(vec![("s1", "acme")]);
        let cases = [
            ("s1", "acme", true),
            ("s1", "acme/skills/x/SKILL.md", true),
            ("s1", "acme-other/SKILL.md", false),
            ("s1", "acmeSKILL.md", false),
            ("s1", "", false),
            ("s1", "other/acme/SKILL.md", false),
            ("s2", "acme/SKILL.md", false),
        ];
        for (source, path, held) in cases {
            assert_eq!(folders.hold(source, path), held, "{source} {path}");
        }
        let whole = RecognizedFolders(vec![("s1", "")]);
        assert!(whole.hold("s1", ".claude/rules/a.md"));
    }
}
