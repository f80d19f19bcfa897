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
use crate::vocabulary::{NEVER_LOADED_FILES, SKILL_FILE, is_contribution_shaped, split_parent};

/// One index row as the passes over sorted rows read it: the path, and what the
/// payload and the name say, read while the row is at hand.
#[derive(Clone, Copy)]
pub(crate) struct Row<'a> {
    pub path: &'a str,
    pub file: &'a IndexedFile,
    /// The length of the path's parent folder, found once here (the folder scan
    /// needs it for every row); `u32::MAX` when it does not fit.
    dir_len: u32,
    flags: u8,
}

const USABLE_MANIFEST: u8 = 1;
const DIAGNOSTICS: u8 = 2;
const MAY_CONTRIBUTE: u8 = 4;
const SKILL_ENTRY: u8 = 8;

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
        let (dir, base) = split_parent(&file.path);
        if is_contribution_shaped(base) || NEVER_LOADED_FILES.contains(&base) {
            flags |= MAY_CONTRIBUTE;
        }
        if base == SKILL_FILE {
            flags |= SKILL_ENTRY;
        }
        Self {
            path: &file.path,
            file,
            dir_len: u32::try_from(dir.len()).unwrap_or(u32::MAX),
            flags,
        }
    }

    /// The path's parent folder ("" at the top), as `split_parent` gives it.
    pub fn dir(&self) -> &'a str {
        match self.path.get(..self.dir_len as usize) {
            Some(dir) if self.dir_len != u32::MAX => dir,
            _ => split_parent(self.path).0,
        }
    }

    /// Whether the basename is `SKILL.md`.
    pub fn is_skill_entry(&self) -> bool {
        self.flags & SKILL_ENTRY != 0
    }

    /// The row's usable manifest facts (an unusable manifest signals nothing).
    pub fn manifest(&self) -> Option<&'a ManifestFacts> {
        if self.flags & USABLE_MANIFEST == 0 {
            return None;
        }
        self.file.payload.manifest.as_deref()
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

/// The path bytes the rows read, owned apart from the rows so that they can borrow
/// them: every path copied once in input order, and again in path order when the
/// input was not sorted.
///
/// Why: the paths lie wherever they were allocated, among the payloads' strings, and
/// both the sort (which re-reads tied paths in no useful order) and the passes after
/// it (in path order) would miss the cache on most of them. The first copy is made
/// while each row is read anyway, in input order, so its reads stream; the sort and
/// the second copy then read a few megabytes instead of the whole heap, and the
/// passes after the sort read the paths sequentially.
#[derive(Default)]
pub(crate) struct PathText {
    input: String,
    sorted: String,
}

/// Reads the rows, sorts them by path and keeps one row per path. When a path
/// repeats, the kept row is chosen by content (the smallest serialized payload), so
/// the choice does not depend on input order. The rows' paths point into `text`.
pub(crate) fn sorted_unique<'a>(
    files: &'a [IndexedFile],
    text: &'a mut PathText,
    diagnostics: &mut Vec<FileDiagnostic>,
) -> Vec<Row<'a>> {
    let PathText { input, sorted } = text;
    let rows = read_rows(files, input);
    let input: &'a String = input;
    let rows = repointed(rows, input);
    if rows.is_sorted_by(|a, b| a.path < b.path) {
        return rows;
    }
    let (rows, repeats) = sorted_by_path(&rows);
    sorted.reserve_exact(input.len());
    for row in &rows {
        sorted.push_str(row.path);
    }
    let sorted: &'a String = sorted;
    let rows = repointed(rows, sorted);
    if repeats {
        deduplicated(rows, diagnostics)
    } else {
        rows
    }
}

/// Each file's [`Row`], in input order, with every path appended to `text`.
///
/// Each row's fields are read [`READ_AHEAD_ROWS`] rows ahead of its turn, and its
/// path's first bytes half as far ahead: a plain pass missed the cache on nearly every
/// row (`perf annotate` of the `group` bench: most of this pass's samples on the load
/// of the row's path), one miss after another; the reads ahead do not depend on the
/// work of the rows before them, so several misses are outstanding at once.
fn read_rows<'a>(files: &'a [IndexedFile], text: &mut String) -> Vec<Row<'a>> {
    // An estimate that cannot be had (first rows far longer than the rest) is
    // skipped rather than failing: the string then grows as it goes.
    let _ = text.try_reserve(estimated_text_len(files));
    let mut rows = Vec::with_capacity(files.len());
    let mut seen = 0usize;
    for (index, file) in files.iter().enumerate() {
        if let Some(ahead) = files.get(index + READ_AHEAD_ROWS) {
            seen = seen
                .wrapping_add(ahead.path.len())
                .wrapping_add(ahead.payload.diagnostics.len())
                .wrapping_add(usize::from(ahead.payload.manifest.is_some()));
        }
        if let Some(ahead) = files.get(index + READ_AHEAD_ROWS / 2) {
            seen = seen.wrapping_add(ahead.path.bytes().next().map_or(0, usize::from));
        }
        text.push_str(&file.path);
        rows.push(Row::of(file));
    }
    // Kept, so the reads ahead are not optimized away.
    std::hint::black_box(seen);
    rows
}

/// How far ahead [`read_rows`] reads the rows.
const READ_AHEAD_ROWS: usize = 16;

/// How many rows [`estimated_text_len`] reads the paths of.
const SAMPLED_ROWS: usize = 256;

/// The length of all paths together, estimated from the first rows' with an eighth
/// to spare. Why not exact: reading every row's length is the pass over the rows
/// itself; and a guess per row (it was 32 bytes) fell short of the bench's paths, so
/// the copy was reallocated once, copied again and faulted in on fresh pages. An
/// estimate that falls short still works (the string grows).
fn estimated_text_len(files: &[IndexedFile]) -> usize {
    let sampled = &files[..files.len().min(SAMPLED_ROWS)];
    let sampled_len: usize = sampled.iter().map(|file| file.path.len()).sum();
    let per_row = sampled_len.div_ceil(sampled.len().max(1));
    files.len().saturating_mul(per_row + per_row / 8 + 1)
}

/// Keeps one row per path of rows sorted by path, the one with the smallest
/// serialized payload, and says which paths repeated.
fn deduplicated<'a>(
    mut sorted: Vec<Row<'a>>,
    diagnostics: &mut Vec<FileDiagnostic>,
) -> Vec<Row<'a>> {
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
/// path repeats.
fn sorted_by_path<'a>(rows: &[Row<'a>]) -> (Vec<Row<'a>>, bool) {
    // Sorting indices moves 16-byte (key, index) pairs rather than 40-byte (key, row)
    // ones; the rows are then gathered once, in order.
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let repeats = sort_by_bytes(&mut order, |index| rows[index].path.as_bytes());
    (
        order.into_iter().map(|index| rows[index]).collect(),
        repeats,
    )
}

/// `rows` with each path read from its copy in `text`, which holds the rows' paths one
/// after another in row order.
fn repointed<'b>(rows: Vec<Row<'b>>, text: &'b str) -> Vec<Row<'b>> {
    let mut start = 0;
    rows.into_iter()
        .map(|row| {
            let end = start + row.path.len();
            let path = text.get(start..end).unwrap_or(row.path);
            start = end;
            Row { path, ..row }
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
        usable.payload.manifest = manifest(true).map(Box::new);
        let mut unusable = IndexedFile::path_only("b/package.json");
        unusable.payload.manifest = manifest(false).map(Box::new);
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
        let dirs: Vec<_> = rows
            .iter()
            .map(|row| (row.dir(), row.is_skill_entry()))
            .collect();
        assert_eq!(
            dirs,
            [
                ("a", false),
                ("b", false),
                ("skills/x", true),
                ("src", false)
            ]
        );
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

    /// The reservation for the path text covers paths of one length (short or long),
    /// without reserving more than twice what they need, and is nothing for no rows.
    #[test]
    fn the_path_text_estimate_covers_paths_of_one_length() {
        assert_eq!(estimated_text_len(&[]), 0);
        let files: Vec<IndexedFile> = (0..1000)
            .map(|i| IndexedFile::path_only(format!("packages/p{i:04}/x.md")))
            .collect();
        let total: usize = files.iter().map(|file| file.path.len()).sum();
        let estimate = estimated_text_len(&files);
        assert!(
            (total..=total * 2).contains(&estimate),
            "{estimate} for {total}"
        );
        let long = vec![IndexedFile::path_only("x".repeat(1 << 20)); 2];
        assert!(estimated_text_len(&long) >= 2 << 20);
    }

    /// The sorted rows read their own paths, from the packed copies (the input-order
    /// copy when the input was sorted, the path-order copy otherwise), in path order,
    /// one row per path, and keep their files.
    #[test]
    fn sorted_rows_read_their_own_paths_from_the_packed_copies() {
        for paths in [
            vec!["b/é.md", "", "a", "a/b/c.md", "a", "a-b"],
            vec!["", "a", "a-b", "a/b/c.md", "b/é.md"],
        ] {
            let files: Vec<IndexedFile> =
                paths.iter().map(|p| IndexedFile::path_only(*p)).collect();
            let mut text = PathText::default();
            let mut diagnostics = Vec::new();
            let rows = sorted_unique(&files, &mut text, &mut diagnostics);
            let seen: Vec<String> = rows.iter().map(|row| row.path.to_owned()).collect();
            for row in &rows {
                assert_eq!(row.path, row.file.path);
                assert!(files.iter().any(|file| std::ptr::eq(row.file, file)));
            }
            let starts: Vec<usize> = rows.iter().map(|row| row.path.as_ptr().addr()).collect();
            drop(rows);
            assert_eq!(seen, ["", "a", "a-b", "a/b/c.md", "b/é.md"]);
            assert_eq!(diagnostics.len(), usize::from(paths.len() == 6));
            assert_eq!(text.input, paths.concat());
            let packed = if text.sorted.is_empty() {
                &text.input
            } else {
                &text.sorted
            };
            let mut in_order = paths.clone();
            in_order.sort_unstable();
            assert_eq!(
                *packed,
                in_order.concat(),
                "repeats are packed before they go"
            );
            let within = packed.as_bytes().as_ptr_range();
            let within = within.start.addr()..within.end.addr();
            for (start, path) in starts.iter().zip(&seen) {
                assert!(within.contains(start) || path.is_empty());
            }
        }
    }
}
