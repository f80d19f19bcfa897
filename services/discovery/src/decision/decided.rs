//! One caller's decisions over the prepared batch, made now, and the answer that
//! survives them.

use std::sync::Arc;

use neuralis_access::{Caller, Evaluation};
use neuralis_host::share::Admitted;

use crate::base::error::DiscoveryError;
use crate::base::ports::SourceInfo;
use crate::decision::afresh::Afresh;
use crate::decision::answer::{Answer, assemble};
use crate::grouping::prepared::Prepared;
use crate::rows::inventory::ProjectSnapshot;

/// One caller's answer, decided now.
pub(crate) struct Decided {
    pub answer: Answer,
    /// Holds an administrator role of the project.
    pub administrator: bool,
    /// The inventory the answer was grouped from (its rows carry the content flags).
    pub snapshot: Arc<ProjectSnapshot>,
    /// What deciding a file afresh for this caller needs.
    pub afresh: Afresh,
}

/// One caller's decisions over the prepared batch, made now.
pub(crate) struct Evaluated {
    pub prepared: Arc<Prepared>,
    pub evaluation: Evaluation,
    pub administrator: bool,
    pub snapshot: Arc<ProjectSnapshot>,
    /// An expensive call's place in the fair share, given back when dropped.
    pub admitted: Option<Admitted>,
    /// The caller, its conversation and the sources read for the request.
    pub caller: Caller,
    pub conversation: Option<String>,
    pub sources: Vec<SourceInfo>,
}

impl Evaluated {
    /// The caller's answer with what it was grouped from, and the call's place in the
    /// fair share (held until the caller drops it: the expensive work is done under it).
    pub(crate) fn into_decided_admitted(
        self,
    ) -> Result<(Decided, Option<Admitted>), DiscoveryError> {
        let decided = Decided {
            answer: assemble(&self.prepared, &self.evaluation)?,
            administrator: self.administrator,
            snapshot: self.snapshot,
            afresh: Afresh {
                prepared: self.prepared,
                caller: self.caller,
                conversation: self.conversation,
                sources: self.sources,
            },
        };
        Ok((decided, self.admitted))
    }

    /// The caller's answer with what it was grouped from.
    pub(crate) fn into_decided(self) -> Result<Decided, DiscoveryError> {
        Ok(self.into_decided_admitted()?.0)
    }
}
