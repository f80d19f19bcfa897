//! Content flags on answers (issue 10 item 6): the flags the sync stored for a file,
//! copied onto the file as the caller sees it. Data only: whether a flagged file is
//! shown at all is policy's decision (`hide_flagged_files`), made with every other
//! gate before the answer is assembled, so only visible files and entries get here.

use neuralis_assembly::FileView;
use neuralis_content_flags::FlagSet;
use neuralis_layout::Category;
use neuralis_proto::discovery::v1 as pb;

use crate::decision::answer::Answer;
use crate::grouping::candidates::entry_path;
use crate::grouping::content::ContentAt;
use crate::grouping::listed::names;
use crate::rows::inventory::ProjectSnapshot;

/// The flags of the file at `source_id`/`path` (a recognized package's files are
/// their source's rows); none for a row the snapshot does not hold. A host-installed
/// package's file is not indexed and never looked up here.
fn of(snapshot: &ProjectSnapshot, source_id: &str, path: &str) -> FlagSet {
    snapshot
        .sources
        .get(source_id)
        .and_then(|source| source.rows.get(path))
        .map(|row| row.content_flags)
        .unwrap_or_default()
}

/// A file's own flags, and for a skill the flags of its shown bundle entries.
pub(crate) fn of_file(
    snapshot: &ProjectSnapshot,
    file: &FileView,
    at: &ContentAt,
) -> (Vec<String>, Vec<pb::FlaggedEntry>) {
    let ContentAt::Source {
        source_id, path, ..
    } = at
    else {
        return (Vec::new(), Vec::new());
    };
    let (own, entries) = of_file_with(|at| of(snapshot, source_id, at), file, path);
    (own, entries.into_iter().map(|(_, entry)| entry).collect())
}

/// [`of_file`] for the source file at `path`, its flags looked up by `flags_of`; each
/// flagged entry with its index in the file's bundle.
fn of_file_with(
    flags_of: impl Fn(&str) -> FlagSet,
    file: &FileView,
    path: &str,
) -> (Vec<String>, Vec<(usize, pb::FlaggedEntry)>) {
    let own = names(flags_of(path));
    if file.category != Category::Skill {
        return (own, Vec::new());
    }
    let entries = file
        .bundle
        .iter()
        .enumerate()
        .filter_map(|(at, entry)| {
            let entry_at = entry_path(path, entry);
            let flags = flags_of(&entry_at);
            (entry_at != path && !flags.is_empty()).then(|| {
                let flagged = pb::FlaggedEntry {
                    file: entry.clone(),
                    content_flags: names(flags),
                };
                (at, flagged)
            })
        })
        .collect();
    (own, entries)
}

/// Each shown file's flags, per package in answer order.
pub(crate) type AnswerFlags = Vec<Vec<(Vec<String>, Vec<pb::FlaggedEntry>)>>;

/// The flags of every file of the caller's answer.
pub(crate) fn of_answer(answer: &Answer, snapshot: &ProjectSnapshot) -> AnswerFlags {
    answer
        .packages
        .iter()
        .zip(&answer.content)
        .map(|(view, located)| {
            view.files
                .iter()
                .zip(located)
                .map(|(file, at)| of_file(snapshot, file, at))
                .collect()
        })
        .collect()
}

/// Copies `flags` onto `packages`, the caller's answer converted in order.
pub(crate) fn fill(packages: &mut [pb::Package], flags: AnswerFlags) {
    for (package, flags) in packages.iter_mut().zip(flags) {
        for (file, (own, entries)) in package.files.iter_mut().zip(flags) {
            (file.content_flags, file.flagged_files) = (own, entries);
        }
    }
}
