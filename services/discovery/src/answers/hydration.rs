//! `Hydrate`: the prompt-injected files of the caller's decided answer, read now under
//! a budget. Each file is decided again for the caller right before it is read (seed
//! 000: a revocation takes effect "including one already in flight when the change
//! lands"): a file revoked while the call reads the ones before it is not returned.

use neuralis_access::DecisionCode;
use neuralis_assembly::{HydrationBudget, hydration_order};
use neuralis_proto::discovery::v1 as pb;

use crate::answers::content::Content;
use crate::base::convert;
use crate::base::error::DiscoveryError;
use crate::base::ports::AccessPort;
use crate::decision::afresh::Afresh;
use crate::decision::answer::Answer;

/// The injected files of `answer` in hydration order, as many as `budget` bytes hold.
/// The budget counts the bytes read, never the indexed size: a file that shrank since
/// the sync is read and counted as it is now (one whose bytes no longer match the
/// indexed row reads as NOT_FOUND and is left out, as a vanished file is).
pub(crate) async fn hydrate(
    answer: &Answer,
    budget: u64,
    content: &Content<'_>,
    (afresh, access): (&Afresh, &dyn AccessPort),
) -> Result<pb::HydrateResponse, DiscoveryError> {
    let mut budget = HydrationBudget::new(budget);
    let mut response = pb::HydrateResponse::default();
    for (pi, fi) in hydration_order(&answer.packages) {
        let (package, file) = (&answer.packages[pi], &answer.packages[pi].files[fi]);
        let Some(&index) = answer.batch_index.get(pi).and_then(|files| files.get(fi)) else {
            continue;
        };
        if afresh.decide_again(access, index).await? != DecisionCode::VisibleActive {
            continue; // revoked (or switched off) since the call began: not a trace
        }
        let read = match content.read(&answer.content[pi][fi]).await {
            Ok(read) => read,
            Err(DiscoveryError::NotFound) => continue, // vanished since indexing
            Err(other) => return Err(other),
        };
        // The budget counts the bytes returned now (as text): a file that grew past
        // it since the sync is omitted whole, never cut.
        let read = String::from_utf8_lossy(&read).into_owned();
        let actual = read.len() as u64;
        if budget.take(actual) {
            response.files.push(convert::hydrated(package, file, read));
        } else {
            response.omitted.push(convert::omitted(package, fi, actual));
        }
    }
    response.used_bytes = budget.used();
    Ok(response)
}
