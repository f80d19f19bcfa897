//! One caller's decisions over the prepared batch, made now, and the answer that
//! survives them.

use std::sync::Arc;

use neuralis_access::Evaluation;
use neuralis_host::share::Admitted;

use crate::base::error::DiscoveryError;
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
}

/// One caller's decisions over the prepared batch, made now.
pub(crate) struct Evaluated {
    pub prepared: Arc<Prepared>,
    pub evaluation: Evaluation,
    pub administrator: bool,
    pub snapshot: Arc<ProjectSnapshot>,
    /// An expensive call's place in the fair share, given back when dropped.
    pub admitted: Option<Admitted>,
}

impl Evaluated {
    /// The caller's answer, and the call's place in the fair share (held until the
    /// caller drops it: the expensive work is done under it).
    pub(crate) fn into_answer(self) -> Result<(Answer, Option<Admitted>), DiscoveryError> {
        Ok((assemble(&self.prepared, &self.evaluation)?, self.admitted))
    }

    /// The caller's answer with what it was grouped from.
    pub(crate) fn into_decided(self) -> Result<Decided, DiscoveryError> {
        Ok(Decided {
            answer: assemble(&self.prepared, &self.evaluation)?,
            administrator: self.administrator,
            snapshot: self.snapshot,
        })
    }
}
