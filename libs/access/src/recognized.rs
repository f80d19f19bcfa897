//! A recognized package (seed 000, `recognizesPackages`): an installed package found in
//! a folder of a flagged source. It is decided as an installed package (its state, its
//! attached `packages://<id>` policy, its features), and because its files are that
//! source's files it is decided as them too: the source switched off, not reaching the
//! caller, or its URI policy denying `read` on the folder or a file (under its path or
//! its real path) hides it, and the source's `hide_flagged_files` hides its flagged
//! files. The stricter wins: the source can only hide, never show or switch on, so
//! the package's own states and overrides keep deciding what stays visible.

use crate::compiled::Located;
use crate::recorder::Recorder;
use crate::{CallerPolicy, FoundIn, pattern::split_path};

/// What deciding a recognized package's paths as its source's needs, found once per
/// package.
pub(crate) struct SourceGate<'g> {
    /// The source's policy for the caller; `None` hides everything (the source is
    /// switched off, has no policy, is not in the batch or does not reach the caller).
    policy: Option<&'g CallerPolicy>,
    /// The package's folder in the source, as segments.
    folder: Vec<&'g str>,
}

impl<'g> SourceGate<'g> {
    /// The gate of a package found in `found_in`, whose source's policy for the caller
    /// is `policy` (if any).
    pub(crate) fn new(found_in: &'g FoundIn, policy: Option<&'g CallerPolicy>) -> Self {
        // The check proved the folder splits; were it not to, nothing is readable.
        match split_path(&found_in.folder, "found_in_folder") {
            Ok(folder) => SourceGate { policy, folder },
            Err(_) => SourceGate {
                policy: None,
                folder: Vec::new(),
            },
        }
    }

    /// Whether the source lets its package folder be read.
    pub(crate) fn reads_folder<R: Recorder>(&self, recorder: &mut R) -> bool {
        self.reads(&self.folder, recorder)
    }

    /// Whether the source lets the package's file at `path` (relative to the package)
    /// be read, and its real path `real` (relative to the source root) when the file is
    /// reached through a link.
    pub(crate) fn reads_file<R: Recorder>(
        &self,
        path: &[&str],
        real: Option<&[&str]>,
        recorder: &mut R,
    ) -> bool {
        let mut in_source = Vec::with_capacity(self.folder.len() + path.len());
        in_source.extend_from_slice(&self.folder);
        in_source.extend_from_slice(path);
        self.reads(&in_source, recorder) && real.is_none_or(|real| self.reads(real, recorder))
    }

    fn reads<R: Recorder>(&self, path: &[&str], recorder: &mut R) -> bool {
        self.policy
            .is_some_and(|policy| policy.can_read_under(Located::ANY_PATH, path, recorder))
    }
}
