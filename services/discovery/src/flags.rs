//! Content flags on answers (issue 10 item 6): the flags the sync stored for a file,
//! copied onto the file as the caller sees it. Data only: whether a flagged file is
//! shown at all is policy's decision (`hide_flagged_files`), made with every other
//! gate before the answer is assembled, so only visible files and entries get here.

use neuralis_assembly::FileView;
use neuralis_content_flags::FlagSet;
use neuralis_layout::Category;
use neuralis_proto::discovery::v1 as pb;

use crate::answer::{Answer, ContentAt};
use crate::candidates::entry_path;
use crate::inventory::ProjectSnapshot;

/// The flags of the file at `source_id`/`path`; none for an installed package's file
/// (not indexed) or a row the snapshot does not hold.
fn of(snapshot: &ProjectSnapshot, source_id: &str, path: &str) -> FlagSet {
    snapshot
        .sources
        .get(source_id)
        .and_then(|source| source.rows.get(path))
        .map(|row| row.content_flags)
        .unwrap_or_default()
}

fn names(flags: FlagSet) -> Vec<String> {
    flags.names().map(str::to_owned).collect()
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
    let own = names(of(snapshot, source_id, path));
    if file.category != Category::Skill {
        return (own, Vec::new());
    }
    let entries = file
        .bundle
        .iter()
        .filter_map(|entry| {
            let entry_at = entry_path(path, entry);
            let flags = of(snapshot, source_id, &entry_at);
            (entry_at != *path && !flags.is_empty()).then(|| pb::FlaggedEntry {
                file: entry.clone(),
                content_flags: names(flags),
            })
        })
        .collect();
    (own, entries)
}

/// Copies the flags onto `packages`, the caller's answer converted in order.
pub(crate) fn fill(packages: &mut [pb::Package], answer: &Answer, snapshot: &ProjectSnapshot) {
    for ((package, view), located) in packages
        .iter_mut()
        .zip(&answer.packages)
        .zip(&answer.content)
    {
        for ((file, view), at) in package.files.iter_mut().zip(&view.files).zip(located) {
            (file.content_flags, file.flagged_files) = of_file(snapshot, view, at);
        }
    }
}
