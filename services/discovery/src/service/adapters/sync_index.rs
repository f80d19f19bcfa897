//! [`IndexPort`] over sync's index feed (services only), with discovery's service
//! credential: in process in the all-in-one process, the gRPC client of the internal
//! listener in split mode.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use futures::StreamExt;
use neuralis_identity::{BearerToken, ServiceSigner};
use neuralis_index::query::QUERY_FIELD;
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_sync::{IndexFeedApi, SyncError, SyncStream};

use crate::base::error::DiscoveryError;
use crate::base::ports::{
    DecidedRow, IndexPort, IndexRow, ProjectDelta, ProjectRows, RawHit, RemovedRow, RowSink,
    RowsSince, SourceInfo,
};

mod entry;

use entry::{Collected, Decoded, decoded, ids_of, keyed, source_info};

/// Rows a stream brought, decoded as their page arrived, before they are keyed by
/// source id.
#[derive(Default)]
struct Streamed {
    revision: u64,
    delta: bool,
    rows: Vec<Decoded>,
    removed: Vec<feed::Tombstone>,
}

/// The index as sync's feed serves it.
#[derive(Clone)]
pub struct SyncIndex {
    feed: Arc<dyn IndexFeedApi>,
    signer: Arc<ServiceSigner>,
}

impl SyncIndex {
    /// Reads `feed`, presenting the credential `signer` mints.
    pub fn new(feed: Arc<dyn IndexFeedApi>, signer: Arc<ServiceSigner>) -> Self {
        Self { feed, signer }
    }

    fn credential(&self) -> Result<BearerToken, DiscoveryError> {
        self.signer
            .credential()
            .map_err(|error| DiscoveryError::Internal(format!("service credential: {error}")))
    }
}

/// Sync's errors as discovery answers them: a missing file is NOT_FOUND; anything
/// else means sync could not answer, never "nothing there". Sync's messages are for a
/// service and may carry what the caller may not see (a source root's host path, which
/// only administrators are shown, or a row's path): the caller gets a fixed phrase, and
/// only a refused `query` (the caller's own field, checked by the same rule before the
/// call; its message never quotes it) is passed on as sync gave it.
fn from_sync(error: SyncError) -> DiscoveryError {
    match error {
        SyncError::NotFound(_) => DiscoveryError::NotFound,
        SyncError::InvalidArgument { field, message } if field == QUERY_FIELD => {
            DiscoveryError::invalid(field, message)
        }
        SyncError::Unauthenticated | SyncError::PermissionDenied(_) => {
            tracing::error!("sync's feed refused discovery's service credential");
            DiscoveryError::Unavailable("sync refused the service credential".into())
        }
        // A search sync stopped at its budget: the caller may retry, as told.
        SyncError::ResourceExhausted {
            message,
            retry_after,
        } => DiscoveryError::ResourceExhausted {
            message,
            retry_after,
        },
        other => {
            // The kind only: sync logs its own detail, and a path is no log label here.
            tracing::warn!(kind = kind_of(&other), "sync could not answer a feed call");
            DiscoveryError::Unavailable(SYNC_UNAVAILABLE.into())
        }
    }
}

/// A sync error's kind, for the log line (never its message).
fn kind_of(error: &SyncError) -> &'static str {
    match error {
        SyncError::InvalidArgument { .. } => "invalid_argument",
        SyncError::NotFound(_) => "not_found",
        SyncError::AlreadyExists(_) => "already_exists",
        SyncError::Unauthenticated => "unauthenticated",
        SyncError::PermissionDenied(_) => "permission_denied",
        SyncError::Unavailable(_) => "unavailable",
        SyncError::ResourceExhausted { .. } => "resource_exhausted",
        SyncError::LimitReached { .. } => "limit_reached",
        SyncError::Internal(_) => "internal",
    }
}

/// What a caller is told when sync could not answer (retryable, as UNAVAILABLE is).
const SYNC_UNAVAILABLE: &str = "sync could not answer for this project now";

/// The slug inside a source id (`<project>/<slug>.<hex>`, assigned by sync at create
/// and never reused; a slug holds no `.`).
fn slug_of<'a>(project: &str, source_id: &'a str) -> &'a str {
    let rest = source_id
        .strip_prefix(project)
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(source_id);
    rest.split_once('.').map_or(rest, |(slug, _)| slug)
}

/// Whether the sources a request listed before reading a delta key its rows as a
/// listing after the read would (then the second listing is skipped: it cost one more
/// read of the source records per delta). True when every row names a listed slug and
/// no whole source was deleted since the revision the delta starts from: a source
/// deleted (and perhaps created again under a new id) leaves a tombstone in every
/// delta from an older revision, and one created since has a slug the listing lacks.
/// A delta older than the retained tombstones is never a delta (sync answers in full).
fn keys_every_row(streamed: &Streamed, listed: &[SourceInfo]) -> bool {
    let is_listed = |slug: &str| listed.iter().any(|source| source.slug == slug);
    streamed.removed.iter().all(|t| !t.path.is_empty())
        && streamed.rows.iter().all(|decoded| is_listed(&decoded.slug))
}

impl SyncIndex {
    /// `ListEntries`' pages, in full or since a revision.
    async fn pages(
        &self,
        project: &str,
        since_revision: Option<u64>,
    ) -> Result<SyncStream<feed::ListEntriesResponse>, DiscoveryError> {
        let request = feed::ListEntriesRequest {
            project: project.to_owned(),
            since_revision,
        };
        self.feed
            .list_entries(&self.credential()?, request)
            .await
            .map_err(from_sync)
    }

    /// `ListEntries` since a revision (with the sources the request listed before it),
    /// rows keyed by source id; in full when sync cannot answer from that revision.
    async fn entries(
        &self,
        project: &str,
        since: u64,
        listed: &[SourceInfo],
    ) -> Result<RowsSince, DiscoveryError> {
        let streamed = self.streamed(project, since).await?;
        Ok(self.keyed_since(project, streamed, listed).await?.1)
    }

    /// `ListEntries` since a revision, each page decoded as it arrives; not keyed yet.
    async fn streamed(&self, project: &str, since: u64) -> Result<Streamed, DiscoveryError> {
        let mut pages = self.pages(project, Some(since)).await?;
        let mut streamed = Streamed::default();
        while let Some(page) = pages.next().await {
            let page = page.map_err(from_sync)?;
            streamed.revision = page.revision;
            streamed.delta = page.delta;
            // Decoded while the next page is read: the store reads ahead of this loop.
            streamed
                .rows
                .extend(page.entries.into_iter().filter_map(decoded));
            streamed.removed.extend(page.removed);
        }
        Ok(streamed)
    }

    /// `streamed` keyed by source id, in full when sync could not answer from the
    /// revision; with the sources listed again when `listed` did not key it (`Some`).
    async fn keyed_since(
        &self,
        project: &str,
        streamed: Streamed,
        listed: &[SourceInfo],
    ) -> Result<(Option<Vec<SourceInfo>>, RowsSince), DiscoveryError> {
        // Rows name their source by slug; policy knows it by id. The sources are listed
        // after the rows, so a source created before the rows were read is listed: its
        // rows are kept (a delta never brings them again). A source deleted since the
        // read drops its rows, and its tombstone comes with the next delta.
        let relisted = if streamed.delta && keys_every_row(&streamed, listed) {
            None
        } else {
            Some(self.sources(project).await?)
        };
        let ids: HashMap<String, String> =
            ids_of(relisted.as_deref().unwrap_or(listed).iter().cloned());
        let rows: Vec<IndexRow> = streamed
            .rows
            .into_iter()
            .filter_map(|decoded| keyed(&ids, decoded))
            .collect();
        if !streamed.delta {
            let full = ProjectRows {
                revision: streamed.revision,
                rows,
            };
            return Ok((relisted, RowsSince::Full(full)));
        }
        let removed = streamed
            .removed
            .into_iter()
            .map(|t| {
                if t.path.is_empty() {
                    RemovedRow::Source { slug: t.source }
                } else {
                    RemovedRow::File {
                        slug: t.source,
                        path: t.path,
                    }
                }
            })
            .collect();
        let delta = ProjectDelta {
            revision: streamed.revision,
            rows,
            removed,
        };
        Ok((relisted, RowsSince::Delta(delta)))
    }
}

#[async_trait]
impl IndexPort for SyncIndex {
    async fn sources(&self, project: &str) -> Result<Vec<SourceInfo>, DiscoveryError> {
        let request = feed::ListProjectSourcesRequest {
            project: project.to_owned(),
        };
        let response = self
            .feed
            .list_project_sources(&self.credential()?, request)
            .await
            .map_err(from_sync)?;
        Ok(response
            .sources
            .into_iter()
            .filter_map(source_info)
            .collect())
    }

    async fn rows(&self, project: &str) -> Result<ProjectRows, DiscoveryError> {
        let listed = self.sources(project).await?;
        let mut rows = Collected::default();
        let revision = self.rows_into(project, &listed, &mut rows).await?;
        Ok(ProjectRows {
            revision,
            rows: rows.0,
        })
    }

    /// Each row is keyed as its page arrives by the sources the request listed before
    /// the read; a row of a slug not listed then waits for the listing after it. That
    /// second listing mends the keys, so every row ends keyed as a listing after the
    /// read would key it (as `rows_since` keys a full answer): a source deleted during
    /// the read drops its rows, one created again under a new id takes them, one
    /// created during the read keeps the rows it had (a delta never brings them again).
    async fn rows_into(
        &self,
        project: &str,
        listed: &[SourceInfo],
        sink: &mut dyn RowSink,
    ) -> Result<u64, DiscoveryError> {
        let mut pages = self.pages(project, None).await?;
        let before = ids_of(listed.iter().cloned());
        let mut unlisted: Vec<Decoded> = Vec::new();
        let mut revision = 0;
        while let Some(page) = pages.next().await {
            let page = page.map_err(from_sync)?;
            if page.delta {
                // Never without `since_revision`; a sync that answered so anyway is not
                // trusted with the whole project.
                return Err(DiscoveryError::Unavailable(
                    "sync answered a full read with a delta".into(),
                ));
            }
            revision = page.revision;
            // Decoded while the next page is read: the store reads ahead of this loop.
            for decoded in page.entries.into_iter().filter_map(decoded) {
                match before.get(&decoded.slug) {
                    Some(id) => sink.put(id, decoded.row),
                    None => unlisted.push(decoded),
                }
            }
        }
        let after = ids_of(self.sources(project).await?);
        for (slug, id) in &before {
            let now = after.get(slug);
            if now != Some(id) {
                sink.rekey(id, now.map(String::as_str));
            }
        }
        for decoded in unlisted {
            if let Some(id) = after.get(&decoded.slug) {
                sink.put(id, decoded.row);
            }
        }
        Ok(revision)
    }

    async fn rows_since(
        &self,
        project: &str,
        since: u64,
        listed: &[SourceInfo],
    ) -> Result<RowsSince, DiscoveryError> {
        self.entries(project, since, listed).await
    }

    /// The two reads at once (a catch-up waits for both, and each is a round trip to
    /// the store; in one process the embedded store runs each in place on this task's
    /// worker, one after the other, which costs less than a hand-off to another thread
    /// for either): the listing may then be made before, during or after the rows are
    /// read. Its keys are checked as a listing made before the read is
    /// (`keys_every_row`: every row's slug listed, no source deleted since `since`),
    /// and the sources are listed again after the read when they do not key it.
    async fn sources_and_rows_since(
        &self,
        project: &str,
        since: u64,
    ) -> Result<(Vec<SourceInfo>, RowsSince), DiscoveryError> {
        let (listed, streamed) =
            futures::join!(self.sources(project), self.streamed(project, since));
        let (listed, streamed) = (listed?, streamed?);
        let (relisted, rows) = self.keyed_since(project, streamed, &listed).await?;
        Ok((relisted.unwrap_or(listed), rows))
    }

    async fn revision(&self, project: &str) -> Result<u64, DiscoveryError> {
        let request = feed::GetRevisionRequest {
            project: project.to_owned(),
        };
        Ok(self
            .feed
            .get_revision(&self.credential()?, request)
            .await
            .map_err(from_sync)?
            .revision)
    }

    async fn read(
        &self,
        project: &str,
        source_id: &str,
        path: &str,
        decided: &DecidedRow<'_>,
    ) -> Result<Vec<u8>, DiscoveryError> {
        let request = feed::ReadDecidedFileRequest {
            project: project.to_owned(),
            source: slug_of(project, source_id).to_owned(),
            path: path.to_owned(),
            fingerprint: decided.fingerprint,
            real_path: decided.real_path.unwrap_or_default().to_owned(),
        };
        Ok(self
            .feed
            .read_file(&self.credential()?, request)
            .await
            .map_err(from_sync)?
            .content)
    }

    async fn search(
        &self,
        project: &str,
        query: &str,
        limit: u32,
    ) -> Result<Vec<RawHit>, DiscoveryError> {
        let request = feed::SearchChunksRequest {
            project: project.to_owned(),
            query: query.to_owned(),
            limit,
        };
        let response = self
            .feed
            .search(&self.credential()?, request)
            .await
            .map_err(from_sync)?;
        // The score stays here: it would tell a caller how far a held-back hit ranked.
        Ok(response
            .hits
            .into_iter()
            .map(|hit| RawHit {
                source_slug: hit.source,
                path: hit.path,
                ordinal: hit.ordinal,
                text: hit.text,
            })
            .collect())
    }
}

#[cfg(test)]
#[path = "sync_index_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "sync_index_fill_tests.rs"]
mod fill_tests;
