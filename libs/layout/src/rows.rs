//! The rows grouping reads, sorted by path and de-duplicated, each as a small copy of
//! what the passes over sorted rows need.
//!
//! Why a copy: an `IndexedFile` is several hundred bytes (the payload's frontmatter),
//! so 100,000 of them do not fit in the cache, and reading a row's path and manifest
//! in path order missed the cache on nearly every row when the input was not sorted
//! (`perf record` of the `group` bench: most of the folder scan's time sat on those
//! two loads). The rows are read once, in input order, into 32-byte [`Row`]s; the sort
//! and every later pass read those, and go back to the full row only for a usable
//! manifest, diagnostics, or a file that may be a contribution (admitted by its
//! payload).

use std::collections::HashSet;

use crate::diagnostic::Severity;
use crate::layout::{FileDiagnostic, IndexedFile};
use crate::manifest::ManifestFacts;
use crate::path_order::sort_by_bytes;
use crate::vocabulary::{NEVER_LOADED_FILES, is_contribution_shaped, split_parent};

/// One index row as the passes over sorted rows read it: the path, and what the
/// payload and the name say, read while the row is at hand.
#[derive(Clone, Copy)]
pub(crate) struct Row<'a> {
    pub path: &'a str,
    pub file: &'a IndexedFile,
    flags: u8,
}

const USABLE_MANIFEST: u8 = 1;
const DIAGNOSTICS: u8 = 2;
const MAY_CONTRIBUTE: u8 = 4;

impl<'a> Row<'a> {
    fn of(file: &'a IndexedFile) -> Self {
        let payload = &file.payload;
        let mut flags = 0;
        if payload.manifest.as_ref().is_some_and(|m| m.usable) {
            flags |= USABLE_MANIFEST;
        }
        if !payload.diagnostics.is_empty() {
            flags |= DIAGNOSTICS;
        }
        if may_contribute(&file.path) {
            flags |= MAY_CONTRIBUTE;
        }
        Self {
            path: &file.path,
            file,
            flags,
        }
    }

    /// The row's usable manifest facts (an unusable manifest signals nothing).
    pub fn manifest(&self) -> Option<&'a ManifestFacts> {
        if self.flags & USABLE_MANIFEST == 0 {
            return None;
        }
        self.file.payload.manifest.as_ref()
    }

    /// Whether the payload carries diagnostics.
    pub fn has_diagnostics(&self) -> bool {
        self.flags & DIAGNOSTICS != 0
    }

    /// Whether recognition can make anything of the path but bundle content or an
    /// unrelated file: contribution-shaped names (`SKILL.md` included) and the
    /// never-loaded files. Other rows are skipped without recognizing them.
    pub fn may_contribute(&self) -> bool {
        self.flags & MAY_CONTRIBUTE != 0
    }
}

fn may_contribute(path: &str) -> bool {
    let base = split_parent(path).1;
    is_contribution_shaped(base) || NEVER_LOADED_FILES.contains(&base)
}

/// Sorts rows by path and keeps one row per path. When a path repeats, the kept row is
/// chosen by content (the smallest serialized payload), so the choice does not
/// depend on input order.
pub(crate) fn sorted_unique<'a>(
    files: &'a [IndexedFile],
    diagnostics: &mut Vec<FileDiagnostic>,
) -> Vec<Row<'a>> {
    let (mut sorted, repeats) = sorted_by_path(files);
    if !repeats {
        return sorted;
    }
    let mut repeated: HashSet<&str> = HashSet::new();
    for pair in sorted.windows(2) {
        if pair[0].path == pair[1].path {
            repeated.insert(pair[0].path);
        }
    }
    let canonical = |row: &Row<'_>| serde_json::to_string(&row.file.payload).unwrap_or_default();
    sorted.sort_by_cached_key(|row| {
        let key = repeated.contains(row.path).then(|| canonical(row));
        (row.path.to_owned(), key)
    });
    sorted.dedup_by(|later, earlier| later.path == earlier.path);
    let mut repeated: Vec<&str> = repeated.into_iter().collect();
    repeated.sort_unstable();
    diagnostics.extend(repeated.into_iter().map(|path| FileDiagnostic {
        path: path.to_owned(),
        severity: Severity::Warning,
        line: None,
        message: "the same path was given more than once; one row was kept".to_owned(),
    }));
    sorted
}

/// The rows in ascending path order (equal paths next to each other), and whether any
/// path repeats. The inventory usually hands rows over sorted already.
fn sorted_by_path(files: &[IndexedFile]) -> (Vec<Row<'_>>, bool) {
    let rows: Vec<Row<'_>> = files.iter().map(Row::of).collect();
    if rows.is_sorted_by(|a, b| a.path < b.path) {
        return (rows, false);
    }
    // Sorting indices moves 16-byte (key, index) pairs rather than 40-byte (key, row)
    // ones; the rows are then gathered once, in order.
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let repeats = sort_by_bytes(&mut order, |index| rows[index].path.as_bytes());
    (
        order.into_iter().map(|index| rows[index]).collect(),
        repeats,
    )
}

/// The paths of `rows`, one after another in row order: one string to re-point the
/// rows at ([`repointed`]).
///
/// Why: the paths lie wherever they were allocated, which for unsorted input is all
/// over the heap, and the passes after the sort (the folder scan, binding,
/// recognition, bundles, the output's copies) read them in path order. Copying them
/// once in path order is one pass of simple copies, whose cache misses overlap; the
/// passes after it then read the paths sequentially from a few megabytes.
pub(crate) fn packed_paths(rows: &[Row<'_>]) -> String {
    let mut text = String::with_capacity(rows.iter().map(|row| row.path.len()).sum());
    for row in rows {
        text.push_str(row.path);
    }
    text
}

/// `rows` with each path read from its copy in `text`, which [`packed_paths`] made of
/// these rows.
pub(crate) fn repointed<'b>(rows: &[Row<'b>], text: &'b str) -> Vec<Row<'b>> {
    let mut start = 0;
    rows.iter()
        .map(|row| {
            let end = start + row.path.len();
            let path = text.get(start..end).unwrap_or(row.path);
            start = end;
            Row { path, ..*row }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::ManifestKind;

    fn manifest(usable: bool) -> Option<ManifestFacts> {
        Some(ManifestFacts {
            kind: ManifestKind::PackageJson,
            usable,
            name: None,
            id: None,
            version: None,
        })
    }

    /// The flags say what the row's payload and name say: an unusable manifest is no
    /// manifest, diagnostics are seen, and code files cannot contribute.
    #[test]
    fn a_row_flags_what_its_payload_and_name_say() {
        let mut usable = IndexedFile::path_only("a/package.json");
        usable.payload.manifest = manifest(true);
        let mut unusable = IndexedFile::path_only("b/package.json");
        unusable.payload.manifest = manifest(false);
        unusable
            .payload
            .diagnostics
            .push(crate::diagnostic::Diagnostic {
                severity: Severity::Warning,
                line: None,
                message: "no neuralis block".to_owned(),
            });
        let skill = IndexedFile::path_only("skills/x/SKILL.md");
        let code = IndexedFile::path_only("src/main.rs");
        let rows: Vec<Row<'_>> = [&usable, &unusable, &skill, &code]
            .into_iter()
            .map(Row::of)
            .collect();
        let flags = |row: &Row<'_>| {
            (
                row.manifest().is_some(),
                row.has_diagnostics(),
                row.may_contribute(),
            )
        };
        let seen: Vec<_> = rows.iter().map(flags).collect();
        assert_eq!(
            seen,
            [
                (true, false, false),
                (false, true, false),
                (false, false, true),
                (false, false, false),
            ]
        );
    }

    /// Re-pointed rows read the same paths, from the packed copy, and keep their rows.
    #[test]
    fn repointed_rows_read_their_own_paths_from_the_packed_copy() {
        let files: Vec<IndexedFile> = ["b/é.md", "", "a", "a/b/c.md", "a"]
            .into_iter()
            .map(IndexedFile::path_only)
            .collect();
        let rows: Vec<Row<'_>> = files.iter().map(Row::of).collect();
        let text = packed_paths(&rows);
        let packed = repointed(&rows, &text);
        assert_eq!(text, "b/é.mdaa/b/c.mda");
        for (row, file) in packed.iter().zip(&files) {
            assert_eq!(row.path, file.path);
            assert!(std::ptr::eq(row.file, file));
            let within = text.as_bytes().as_ptr_range();
            assert!(within.contains(&row.path.as_ptr()) || row.path.is_empty());
        }
    }
}
