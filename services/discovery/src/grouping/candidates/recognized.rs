//! The candidates of a recognized package (seed 000, `recognizesPackages`): a package
//! found in a flagged source is decided as an installed package, but its files are the
//! source's files, so the source's privacy patterns decide who may see them, on their
//! paths in the source and their real paths there, as for the source's own files.

use neuralis_access::privacy::Ownership;
use neuralis_layout::Package;

use super::{Candidate, joined, ownership, real_path_of};
use crate::base::ports::SourceInfo;
use crate::rows::inventory::{ProjectSnapshot, SourceSnapshot};

/// Where a recognized package (seed 000, `recognizesPackages`) lies: the flagged
/// source it was found in, that source's rows, and its directory in the source.
#[derive(Clone, Copy)]
pub(super) struct FoundIn<'a> {
    source: &'a SourceInfo,
    snapshot: &'a SourceSnapshot,
    prefix: &'a str,
}

impl FoundIn<'_> {
    /// Who may see the package's file `path` (relative to the package): its source's
    /// privacy patterns decide, on its path in the source and on its real path there,
    /// as they decide the source's own files. A package file is a file of the source
    /// an agent may have written in its private folder, or linked there.
    pub(super) fn ownership(&self, path: &str) -> Ownership {
        let in_source = match self.prefix {
            "" => path.to_owned(),
            prefix => joined(prefix, path),
        };
        let real_path = real_path_of(self.snapshot, &in_source);
        ownership(self.source, &in_source, real_path)
    }
}

/// The source `candidate` was found in, when it is a recognized package whose source
/// this batch holds.
pub(super) fn recognized_in<'a>(
    candidate: &Candidate<'a>,
    sources: &'a [SourceInfo],
    snapshot: &'a ProjectSnapshot,
) -> Option<FoundIn<'a>> {
    let Candidate::Installed(installed) = candidate else {
        return None;
    };
    let found = installed.source.as_ref()?;
    let source = sources.iter().find(|s| s.id == found.source_id)?;
    Some(FoundIn {
        source,
        snapshot: snapshot.sources.get(&source.id)?,
        prefix: &found.prefix,
    })
}

/// [`common_owner`] for a recognized package: private to one agent when every file is.
pub(super) fn recognized_owner(found_in: FoundIn<'_>, package: &Package) -> Option<String> {
    let mut owners = package.files.iter().map(|f| found_in.ownership(&f.path));
    let Some(Ownership::Agent(first)) = owners.next() else {
        return None;
    };
    owners
        .all(|o| o == Ownership::Agent(first.clone()))
        .then_some(first)
}
