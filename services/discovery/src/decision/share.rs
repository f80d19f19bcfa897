//! The fair share of discovery's expensive calls (issue 25, item 3): `Search` (a
//! full-text query in sync's store), `Hydrate` (reads every injected file) and a
//! `RenderOverview` with a token budget (counts the tokens of the caller's answer). Each is
//! admitted once its caller is known to be a caller of the project, before the
//! inventory, policy or the store is asked anything, under the limits of
//! `discovery.fair_share` (`neuralis_host::share`); a call past them is answered
//! RESOURCE_EXHAUSTED with a `RetryInfo` at once, never queued. Callers that get the
//! empty answer are not counted: their answer costs nothing. Single-file reads
//! (`ReadFile`, `ActivateSkill`) are admitted the same way to a larger share of their
//! own (`discovery.read_share`).

use neuralis_access::Caller;
use neuralis_host::share::{Admitted, FairShare};

use crate::base::error::DiscoveryError;

/// Whether a call takes a place in the fair share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cost {
    /// Answered from the inventory and one policy decision.
    Cheap,
    /// Reads files or searches the store on top of that.
    Expensive,
    /// Reads one file on top of that (`ReadFile`, `ActivateSkill`): a share of its own
    /// (`discovery.read_share`), larger than the expensive calls'.
    Read,
}

/// Admission in discovery's terms.
pub(crate) trait FairShareExt {
    /// Admits one call of `caller` (keyed by its token's subject) in `project`.
    fn admit_caller(&self, project: &str, caller: &Caller) -> Result<Admitted, DiscoveryError>;
}

impl FairShareExt for FairShare {
    fn admit_caller(&self, project: &str, caller: &Caller) -> Result<Admitted, DiscoveryError> {
        self.admit(project, &caller.subject).map_err(|shed| {
            tracing::info!(outcome = ?shed, "discovery shed an expensive call");
            DiscoveryError::ResourceExhausted {
                message: shed.message().into(),
                retry_after: self.limits().retry_after(),
            }
        })
    }
}
