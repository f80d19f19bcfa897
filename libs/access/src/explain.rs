//! Why one file was decided as it was (issue 30 item 1, `ExplainAccess`): the very
//! evaluation [`crate::decide`] runs, with a [`Trace`] recording its steps.
//!
//! Trust tiers and skill-id collisions are settled before a candidate reaches this
//! crate (discovery applies the trust tier to the category and default it sends, and
//! namespaces colliding ids); the explanation names what this evaluation decides.

use crate::evaluate::decide_with;
use crate::recorder::{Explanation, Trace};
use crate::{AccessError, AccessSnapshot, Caller, CheckedBatch, PolicyCache};

/// Explains the decision for the single file of `checked` (a batch of one package and
/// one file): the state is the one [`crate::decide_cached`] gives for the same batch,
/// because it is the same evaluation.
pub fn explain(
    caller: &Caller,
    snapshot: &AccessSnapshot,
    checked: &CheckedBatch<'_>,
    cache: Option<&PolicyCache>,
) -> Result<Explanation, AccessError> {
    let request = checked.request();
    if request.packages.len() != 1 || request.files.len() != 1 {
        return Err(AccessError::invalid(
            "files",
            "an explanation is of exactly one package and one file",
        ));
    }
    let mut trace = Trace::default();
    let evaluation = decide_with(caller, snapshot, checked, cache, &mut trace);
    let code = evaluation
        .files
        .first()
        .map(|decision| decision.code)
        .unwrap_or(crate::DecisionCode::Hidden);
    Ok(Explanation::new(code, trace.steps))
}
