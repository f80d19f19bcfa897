//! The candidates of a recognized package (seed 000, `recognizesPackages`): a package
//! found in a flagged source is decided as an installed package, but its files are the
//! source's files, so the source's privacy patterns decide who may see them, on their
//! paths in the source and their real paths there, as for the source's own files.

use neuralis_access::privacy::{Ownership, owner_of_alias};
use neuralis_layout::Package;

use crate::base::ports::{InstalledPackage, SourceInfo};
use crate::rows::inventory::{ProjectSnapshot, SourceSnapshot};

/// A package's manifest, where its tools are declared: a file of the source too.
pub(super) const MANIFEST: &str = "package.json";

/// Where a recognized package (seed 000, `recognizesPackages`) lies: the flagged
/// source it was found in, that source's rows, and its directory in the source.
#[derive(Clone, Copy)]
pub(super) struct FoundIn<'a> {
    source_id: &'a str,
    /// `None` when the project does not hold the source (`build` leaves such a package
    /// out; kept to fail closed): then nobody may see the files.
    source: Option<&'a SourceInfo>,
    /// `None` before the source's first sync lands: then no file is the source's yet.
    snapshot: Option<&'a SourceSnapshot>,
    prefix: &'a str,
}

impl FoundIn<'_> {
    /// Who may see the package's file `path` (relative to the package): its source's
    /// privacy patterns decide, on its path in the source and on its real path there,
    /// as they decide the source's own files. A package file is a file of the source
    /// an agent may have written in its private folder, or linked there.
    pub(super) fn ownership(&self, path: &str) -> Ownership {
        self.as_source_file(path).owner
    }

    /// The package's file `path` (relative to the package) as the source's file: who
    /// may see it, its real path in the source when a link reaches it, and whether the
    /// sync found content flags in it. Policy decides the last two by the source's
    /// policy ([`neuralis_access::recognized`]).
    pub(super) fn as_source_file(&self, path: &str) -> SourceFile {
        let in_source = match self.prefix {
            "" => path.to_owned(),
            prefix => format!("{prefix}/{path}"),
        };
        let Some(source) = self.source else {
            // Fail closed: no patterns to decide by.
            return SourceFile {
                owner: Ownership::Conflicting,
                real_path: None,
                content_flagged: false,
            };
        };
        // Its files are the source's indexed rows: a file the index holds no row for
        // (not synced yet, excluded, made since) is not one, whatever the host holds.
        let Some(row) = self
            .snapshot
            .and_then(|snapshot| snapshot.rows.get(&in_source))
        else {
            return SourceFile {
                owner: Ownership::Conflicting,
                real_path: None,
                content_flagged: false,
            };
        };
        let real_path = row.real_path.as_deref();
        SourceFile {
            owner: owner_of_alias(&in_source, real_path, &source.privacy_patterns),
            real_path: real_path.map(str::to_owned),
            content_flagged: !row.content_flags.is_empty(),
        }
    }

    /// Where policy is told the package lies: its source and folder there.
    pub(super) fn found_in(&self) -> neuralis_access::FoundIn {
        neuralis_access::FoundIn {
            source: self.source_id.to_owned(),
            folder: self.prefix.to_owned(),
        }
    }
}

/// A recognized package's file as a file of its source.
pub(super) struct SourceFile {
    pub owner: Ownership,
    pub real_path: Option<String>,
    pub content_flagged: bool,
}

/// Where `installed` was found, when it is a recognized package.
pub(super) fn recognized_in<'a>(
    installed: &'a InstalledPackage,
    sources: &'a [SourceInfo],
    snapshot: &'a ProjectSnapshot,
) -> Option<FoundIn<'a>> {
    let found = installed.source.as_ref()?;
    Some(FoundIn {
        source_id: &found.source_id,
        source: sources.iter().find(|s| s.id == found.source_id),
        snapshot: snapshot.sources.get(&found.source_id).map(|kept| &**kept),
        prefix: &found.prefix,
    })
}

/// [`super::common_owner`] for a recognized package: private to one agent when every file is,
/// its manifest included (a package of tools alone has no other file).
pub(super) fn recognized_owner(found_in: FoundIn<'_>, package: &Package) -> Option<String> {
    let mut owners = std::iter::once(MANIFEST)
        .chain(package.files.iter().map(|f| f.path.as_str()))
        .map(|path| found_in.ownership(path));
    let Some(Ownership::Agent(first)) = owners.next() else {
        return None;
    };
    owners
        .all(|o| o == Ownership::Agent(first.clone()))
        .then_some(first)
}
