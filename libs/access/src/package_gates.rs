//! One package's share of an evaluation's per-request state: its policy, switches and
//! overrides, looked up once for all its files.

use neuralis_layout::default_state;

use crate::compiled::Located;
use crate::overrides::PackageOverrides;
use crate::recognized::SourceGate;
use crate::recorder::Recorder;
use crate::{CallerPolicy, FileCandidate, Origin};

/// One package's share of the per-request state.
pub(crate) struct PackageGates<'g> {
    pub(crate) origin: &'g Origin,
    /// It lies in a data source: its files' data zones decide them too.
    pub(crate) in_data_tree: bool,
    /// Its policy hides files with content flags.
    pub(crate) hides_flagged: bool,
    /// The policy deciding its paths: `None` hides it; an installed package has no URI
    /// policy, hence `Some(None)`.
    pub(crate) policy: Option<Option<&'g CallerPolicy>>,
    /// Where deciding a path under the package root starts ([`CallerPolicy::locate`]).
    pub(crate) start: Located,
    pub(crate) enabled: bool,
    pub(crate) agent: Option<&'g PackageOverrides>,
    /// Child first, only the conversations that switch a file of this package.
    pub(crate) conversation: Vec<&'g PackageOverrides>,
    /// For a package found in a flagged source: that source's gate on its paths.
    pub(crate) found_in: Option<SourceGate<'g>>,
}

impl PackageGates<'_> {
    /// Whether the policy lets `path` be read; `start` is where its descent starts
    /// ([`Located::ANY_PATH`] unless the path lies under the package root).
    pub(crate) fn readable<R: Recorder>(
        &self,
        path: &[&str],
        start: Located,
        recorder: &mut R,
    ) -> bool {
        match self.policy {
            None => false,
            Some(None) => true,
            Some(Some(policy)) => policy.can_read_under(start, path, recorder),
        }
    }
}

/// A source file's default is server-pinned (seed 000: "syncing a repository must never
/// silently change agent behavior"): the candidate's default can narrow it, never widen
/// it. An installed package's default is the catalog's.
pub(crate) fn pinned_default(file: &FileCandidate, origin: &Origin) -> bool {
    match origin {
        Origin::Installed => file.default_enabled,
        Origin::Source(_) => file.default_enabled && default_state(file.category, file.identity).0,
    }
}
