//! `ReadFile` and `Search`: the caller-facing reads of the index (DESIGN.md section 5,
//! "The raw index is internal"). Both decide the caller's answer now, with the same
//! batch `ListPackages` sends policy, and serve only files in it that the caller may
//! read: listed member files that are active or read on demand, and the shown bundle
//! entries of active skills.

use neuralis_authz::Permit;
use neuralis_proto::discovery::v1 as pb;

use crate::answer::Holder;
use crate::api::DiscoveryError;
use crate::scope::{project_of, validate_scope};
use crate::service::Discovery;
use crate::share::Cost;
use neuralis_index::query::SearchQuery;

/// Hits asked when a request names no limit.
const DEFAULT_LIMIT: u32 = 10;
/// The most hits one answer carries (and sync's own cap).
const MAX_LIMIT: u32 = 100;
/// Raw hits asked per hit answered: the held-back ones are replaced from these.
const OVER_FETCH: u32 = 4;

impl Discovery {
    /// One file the caller may read now. Unknown, denied, unlisted and unreadable
    /// files answer NOT_FOUND alike.
    pub async fn read_file(
        &self,
        permit: &Permit,
        request: pb::ReadFileRequest,
    ) -> Result<pb::ReadFileResponse, DiscoveryError> {
        validate_scope(request.scope.as_ref())?;
        neuralis_proto::bounds::id("source_slug", &request.source_slug)?;
        neuralis_proto::bounds::id("package_id", &request.package_id)?;
        neuralis_proto::bounds::path("path", &request.path)?;
        let holder = holder(&request)?;
        if request.path.trim().is_empty() {
            return Err(DiscoveryError::invalid("path", "is required"));
        }
        let decided = self
            .decided(permit, request.scope.as_ref())
            .await?
            .ok_or(DiscoveryError::NotFound)?;
        let at = decided
            .answer
            .readable(holder, &request.path)
            .ok_or(DiscoveryError::NotFound)?;
        let content = self
            .read(project_of(&request.scope), &decided.snapshot, at)
            .await?;
        Ok(pb::ReadFileResponse {
            path: request.path,
            content,
        })
    }

    /// Search over the files the caller may read now: raw hits from sync's feed, kept
    /// only where `ReadFile` would serve the file, at most `limit`. No score and no
    /// count: nothing tells how many hits were held back or where they ranked.
    pub async fn search(
        &self,
        permit: &Permit,
        request: pb::SearchRequest,
    ) -> Result<pb::SearchResponse, DiscoveryError> {
        validate_scope(request.scope.as_ref())?;
        // The one rule of query bounds (`neuralis_index::query`), before any work.
        SearchQuery::parse(&request.query)
            .map_err(|refused| DiscoveryError::invalid(refused.field(), refused.to_string()))?;
        let limit = match request.limit {
            0 => DEFAULT_LIMIT,
            n => n.min(MAX_LIMIT),
        };
        let scope = request.scope.as_ref();
        let Some(evaluated) = self.evaluated_in(permit, scope, Cost::Expensive).await? else {
            return Ok(pb::SearchResponse::default());
        };
        // The place is held while sync's store searches.
        let (answer, _admitted) = evaluated.into_answer()?;
        let raw = self
            .index()
            .search(
                project_of(&request.scope),
                &request.query,
                limit.saturating_mul(OVER_FETCH).min(MAX_LIMIT),
            )
            .await?;
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
        Ok(pb::SearchResponse { hits })
    }
}

/// The package a `ReadFile` names: a source slug or an installed package id, one of
/// the two.
fn holder(request: &pb::ReadFileRequest) -> Result<Holder, DiscoveryError> {
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
