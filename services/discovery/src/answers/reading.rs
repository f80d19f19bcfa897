//! `ReadFile` and `Search`: the caller-facing reads of the index (DESIGN.md section 5,
//! "The raw index is internal"). Both are answered from the caller's answer decided
//! now, with the same batch `ListPackages` sends policy, and serve only files in it that
//! the caller may read: listed member files that are active or read on demand, and the
//! shown bundle entries of active skills.

use neuralis_proto::discovery::v1 as pb;

use crate::answers::content::Content;
use crate::base::error::DiscoveryError;
use crate::base::ports::RawHit;
use crate::decision::answer::{Answer, Holder};

/// Hits asked when a request names no limit.
const DEFAULT_LIMIT: u32 = 10;
/// The most hits one answer carries (and sync's own cap).
const MAX_LIMIT: u32 = 100;
/// Raw hits asked per hit answered: the held-back ones are replaced from these.
const OVER_FETCH: u32 = 4;

/// `path` of `holder`, read now, when `answer` lets the caller read it. Unknown,
/// denied, unlisted and unreadable files answer NOT_FOUND alike.
pub(crate) async fn read_file(
    answer: &Answer,
    holder: Holder,
    path: String,
    content: &Content<'_>,
) -> Result<pb::ReadFileResponse, DiscoveryError> {
    let at = answer
        .readable(holder, &path)
        .ok_or(DiscoveryError::NotFound)?;
    let content = content.read(at).await?;
    Ok(pb::ReadFileResponse { path, content })
}

/// The hits a search answers at most, for the `limit` asked.
pub(crate) fn limit(asked: u32) -> u32 {
    match asked {
        0 => DEFAULT_LIMIT,
        n => n.min(MAX_LIMIT),
    }
}

/// The raw hits to ask sync's store for, to answer `limit`.
pub(crate) fn raw_limit(limit: u32) -> u32 {
    limit.saturating_mul(OVER_FETCH).min(MAX_LIMIT)
}

/// The raw hits kept only where `ReadFile` would serve the file, at most `limit`. No
/// score and no count: nothing tells how many hits were held back or where they
/// ranked.
pub(crate) fn search(answer: &Answer, raw: Vec<RawHit>, limit: u32) -> pb::SearchResponse {
    let hits = raw
        .into_iter()
        .filter(|hit| {
            answer
                .readable(Holder::Source(hit.source_slug.clone()), &hit.path)
                .is_some()
        })
        .take(limit as usize)
        .map(|hit| pb::SearchHit {
            source_slug: hit.source_slug,
            path: hit.path,
            ordinal: hit.ordinal,
            text: hit.text,
        })
        .collect();
    pb::SearchResponse { hits }
}

/// The package a `ReadFile` names: a source slug or an installed package id, one of
/// the two.
pub(crate) fn holder(request: &pb::ReadFileRequest) -> Result<Holder, DiscoveryError> {
    match (
        request.source_slug.is_empty(),
        request.package_id.is_empty(),
    ) {
        (false, true) => Ok(Holder::Source(request.source_slug.clone())),
        (true, false) => Ok(Holder::Installed(request.package_id.clone())),
        (true, true) => Err(DiscoveryError::invalid(
            "source_slug",
            "set source_slug (a source package) or package_id (an installed one)",
        )),
        (false, false) => Err(DiscoveryError::invalid(
            "package_id",
            "set only one of source_slug and package_id",
        )),
    }
}
