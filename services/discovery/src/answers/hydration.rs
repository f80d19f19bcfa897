//! `Hydrate`: the prompt-injected files of the caller's decided answer, read now under
//! a budget.

use neuralis_assembly::{HydrationBudget, hydration_order};
use neuralis_proto::discovery::v1 as pb;

use crate::answers::content::Content;
use crate::base::convert;
use crate::base::error::DiscoveryError;
use crate::decision::answer::Answer;

/// The injected files of `answer` in hydration order, as many as `budget` bytes hold.
pub(crate) async fn hydrate(
    answer: &Answer,
    budget: u64,
    content: &Content<'_>,
) -> Result<pb::HydrateResponse, DiscoveryError> {
    let mut budget = HydrationBudget::new(budget);
    let mut response = pb::HydrateResponse::default();
    for (pi, fi) in hydration_order(&answer.packages) {
        let (package, file) = (&answer.packages[pi], &answer.packages[pi].files[fi]);
        if !budget.may_fit(file.size) {
            response
                .omitted
                .push(convert::omitted(package, fi, file.size));
            continue;
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
