//! Can a write of this path move a package? Asked under the package roots before the
//! run and after it, so a package that appears or disappears during the run is covered
//! too (DESIGN.md section 3).
//!
//! The roots depend on every path and on the payloads of the content files (manifests,
//! contribution candidates), so they are known before the first write: the content
//! files are prepared first, every other file's payload is the layout core's default.
//! A plain file listed but found unreadable later still counts in the roots after the
//! run; an extra file can only add roots or widen them, so the answer errs on "yes".
//!
//! Each view holds only the files the roots can depend on: those with a payload (the
//! content files, the stored rows that are not plain files) and the plain files whose
//! path signals a folder ([`PackageRoots::depend_on_path`]). The rest of a tree, most
//! of it, leaves the roots as they are, so it is never copied into a view: a run over
//! 100,000 files of code held 21 MB of views for the roots of a few thousand.

use super::prepare::{Job, Prepared};
use super::survey::Survey;
use crate::layout_rules::{LayoutRules, indexed_file_of};
use neuralis_index::SourceRecord;
use neuralis_layout::{IndexedFile, PackageRoots};
use std::collections::{HashMap, HashSet};

/// The predicate of one run.
pub struct MovePredicate {
    before: PackageRoots,
    after: PackageRoots,
}

impl MovePredicate {
    /// The predicate for a run planned by `survey`, whose content files are
    /// `content`; `recaptured` are the other files whose stored payload the run
    /// replaces ([`recaptured`]).
    pub fn new(
        rules: &dyn LayoutRules,
        source: &SourceRecord,
        survey: &Survey,
        content: &Prepared,
        recaptured: &HashSet<String>,
    ) -> Self {
        let before = before_the_run(survey);
        let after = after_the_run(survey, content, recaptured);
        Self {
            before: rules.package_roots(&source.slug, &before),
            after: rules.package_roots(&source.slug, &after),
        }
    }

    /// Whether a write of `path` can move a package candidate.
    pub fn moves(&self, path: &str) -> bool {
        self.before.can_move_package_in_either(&self.after, path)
    }
}

/// The stored rows: the listed files that have one, and the rows being deleted.
fn before_the_run(survey: &Survey) -> Vec<IndexedFile> {
    let listed = survey
        .files
        .iter()
        .zip(&survey.stored)
        .filter(|(_, stored)| **stored)
        .map(|(file, _)| file.path.as_str());
    listed
        .chain(survey.plan.delete.iter().map(String::as_str))
        .filter_map(|path| in_view(path, survey.payloads.get(path)))
        .collect()
}

/// The row of a view for the file at `path` with `payload`, unless the roots cannot
/// depend on it: no payload (a plain file) and a path that signals nothing.
fn in_view(path: &str, payload: Option<&serde_json::Value>) -> Option<IndexedFile> {
    (payload.is_some() || PackageRoots::depend_on_path(path))
        .then(|| indexed_file_of(path, payload))
}

/// The streamed files (`streamed`: neither content files nor left alone) that have a
/// stored payload: the run recaptures theirs, so the stored one does not count after
/// it. Only a stored payload can be superseded, so a full sync into an empty source
/// (no stored payloads) holds none of its paths here.
pub fn recaptured(survey: &Survey, streamed: &[Job]) -> HashSet<String> {
    streamed
        .iter()
        .map(|job| &job.stat.path)
        .filter(|path| survey.payloads.contains_key(*path))
        .cloned()
        .collect()
}

/// The listed files that stay readable, with their new payload where the run captured
/// one, their stored payload where it keeps it, the default (a plain file) otherwise.
fn after_the_run(
    survey: &Survey,
    content: &Prepared,
    recaptured: &HashSet<String>,
) -> Vec<IndexedFile> {
    let prepared: HashMap<&str, &serde_json::Value> = content
        .files
        .iter()
        .map(|file| (file.row.path.as_str(), &file.row.payload))
        .collect();
    let unreadable: HashSet<&str> = content.skipped.iter().map(|s| s.path.as_str()).collect();
    survey
        .files
        .iter()
        .map(|file| file.path.as_str())
        .filter(|path| !unreadable.contains(path))
        .filter_map(|path| {
            let payload = match prepared.get(path) {
                Some(payload) => Some(*payload),
                None if recaptured.contains(path) => None,
                None => survey.payloads.get(path),
            };
            in_view(path, payload)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_that_appears_during_the_run_counts_as_moving() {
        let moves = MovePredicate {
            before: PackageRoots::default(),
            after: PackageRoots::new(["tools/helper"], false),
        };
        assert!(moves.moves("tools/helper/notes.txt"));
        assert!(!moves.moves("src/main.rs"));
    }

    #[test]
    fn a_view_leaves_out_only_plain_files_whose_path_signals_nothing() {
        let payload = serde_json::json!({"version": neuralis_layout::PAYLOAD_VERSION});
        for (path, payload, kept) in [
            ("src/main.rs", None, false),
            ("src/docsy/notes.txt", None, false),
            ("src/main.rs", Some(&payload), true),
            ("app/package.json", Some(&payload), true),
            (".claude/settings.json", None, true),
            ("tools/skills/review/run.sh", None, true),
            ("tools/review/SKILL.md", None, true),
        ] {
            let row = in_view(path, payload);
            assert_eq!(row.is_some(), kept, "{path}");
            assert!(row.is_none_or(|row| row.path == path), "{path}");
        }
    }

    #[test]
    fn a_package_that_disappears_during_the_run_counts_as_moving() {
        let moves = MovePredicate {
            before: PackageRoots::new(["tools/helper"], false),
            after: PackageRoots::default(),
        };
        assert!(moves.moves("tools/helper/notes.txt"));
    }
}
