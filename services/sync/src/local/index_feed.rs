//! The index feed's handlers (services only): discovery reads the project's sources,
//! rows, revision, decided file bytes and search hits through them.

use futures::StreamExt;
use neuralis_authz::Permit;
use neuralis_index::query::SearchQuery;
use neuralis_index::{PageBounds, RowPages};
use neuralis_proto::sync::internal::v1 as feed;

use super::{LocalSync, blocking};
use crate::api::SyncStream;
use crate::source::{self, validate_project, validate_slug};
use crate::{SyncError, progress};

/// Rows per `ListEntries` message.
const ENTRIES_PER_PAGE: usize = 500;
/// Search answers at most this many hits.
const MAX_SEARCH_HITS: u32 = 100;

impl LocalSync {
    /// The sources of one project as stored now, host paths included (services only).
    pub async fn list_project_sources(
        &self,
        permit: &Permit,
        request: feed::ListProjectSourcesRequest,
    ) -> Result<feed::ListProjectSourcesResponse, SyncError> {
        validate_project(&request.project, "project")?;
        permit.for_project(&request.project)?;
        let sources = self
            .core
            .deps
            .store
            .list_sources(Some(&request.project))
            .await?;
        Ok(feed::ListProjectSourcesResponse {
            sources: sources.iter().map(source::to_proto).collect(),
        })
    }

    /// Streams a project's raw rows, every page at the same revision; with
    /// `since_revision`, the delta since it when the index can tell.
    pub async fn list_entries(
        &self,
        permit: &Permit,
        request: feed::ListEntriesRequest,
    ) -> Result<SyncStream<feed::ListEntriesResponse>, SyncError> {
        validate_project(&request.project, "project")?;
        permit.for_project(&request.project)?;
        let store = &self.core.deps.store;
        if let Some(since) = request.since_revision
            && let Some(changes) = store.changes_since(&request.project, since).await?
        {
            return Ok(delta_pages(changes));
        }
        let pages = store
            .project_pages(&request.project, PageBounds::default())
            .await?;
        Ok(full_pages(pages))
    }

    /// The project's current revision.
    pub async fn get_revision(
        &self,
        permit: &Permit,
        request: feed::GetRevisionRequest,
    ) -> Result<feed::GetRevisionResponse, SyncError> {
        validate_project(&request.project, "project")?;
        permit.for_project(&request.project)?;
        let revision = self.core.deps.store.revision(&request.project).await?;
        Ok(feed::GetRevisionResponse { revision })
    }

    /// Reads one file through its source's connector, only as the reader decided it
    /// (`read_decided`: no link followed, the bytes those the fingerprint names). A
    /// file changed since its row answers NOT_FOUND like a missing one, is counted, and
    /// its source is re-synced soon so the next decision sees it.
    pub async fn read_file(
        &self,
        permit: &Permit,
        request: feed::ReadDecidedFileRequest,
    ) -> Result<feed::ReadDecidedFileResponse, SyncError> {
        validate_project(&request.project, "project")?;
        permit.for_project(&request.project)?;
        validate_slug(&request.source, "source")
            .map_err(|_| SyncError::invalid("source", "is not a source slug"))?;
        if request.path.is_empty() {
            return Err(SyncError::invalid("path", "is required"));
        }
        let record = self.stored(&request.project, &request.source).await?;
        // A reader with no decided row (fingerprint 0) gets nothing, like a missing file.
        if request.fingerprint == 0 {
            neuralis_metrics::decided_read_refused(neuralis_metrics::ReadRefusal::Undecided);
            return Err(SyncError::NotFound(format!("file {:?}", request.path)));
        }
        let connector = self.core.connector_for(&record)?;
        // A row reached through an in-root link is read at its real path (decided under
        // both names), never through the alias, which may point anywhere by now.
        let path = if request.real_path.is_empty() {
            request.path.clone()
        } else {
            request.real_path.clone()
        };
        let fingerprint = request.fingerprint;
        let read = blocking(connector, move |c| c.read_decided(&path, fingerprint)).await?;
        let content = match read {
            Ok(content) => content,
            Err(err) => {
                let changed = err == crate::connector::ConnectorError::Changed;
                if changed {
                    neuralis_metrics::decided_read_refused(neuralis_metrics::ReadRefusal::Changed);
                    // The source id only: never the path a caller asked for.
                    tracing::info!(
                        source = %record.id,
                        "a read found a file changed since its row: re-syncing the source soon"
                    );
                    self.scheduler.soon(&record);
                } else {
                    neuralis_metrics::decided_read_refused(
                        neuralis_metrics::ReadRefusal::Unreadable,
                    );
                }
                return Err(SyncError::NotFound(format!("file {:?}", request.path)));
            }
        };
        Ok(feed::ReadDecidedFileResponse { content })
    }

    /// Searches a project's chunk rows.
    pub async fn search(
        &self,
        permit: &Permit,
        request: feed::SearchChunksRequest,
    ) -> Result<feed::SearchChunksResponse, SyncError> {
        validate_project(&request.project, "project")?;
        permit.for_project(&request.project)?;
        // The one rule of query bounds (`neuralis_index::query`), before any work.
        SearchQuery::parse(&request.query)
            .map_err(|refused| SyncError::invalid(refused.field(), refused.to_string()))?;
        let limit = match request.limit {
            0 => 10,
            limit => limit.min(MAX_SEARCH_HITS),
        };
        let store = &self.core.deps.store;
        let (mode, hits) = match &self.core.deps.embedder {
            Some(embedder) => {
                let query = std::slice::from_ref(&request.query);
                let vectors = tokio::time::timeout(self.embed_deadline, embedder.embed(query))
                    .await
                    .map_err(|_| SyncError::ResourceExhausted {
                        message: format!(
                            "the query was not embedded within {} ms",
                            self.embed_deadline.as_millis()
                        ),
                        retry_after: SyncError::BUDGET_RETRY,
                    })??;
                let vector = vectors.into_iter().next().unwrap_or_default();
                (
                    feed::SearchMode::Vector,
                    store
                        .search_vector(&request.project, &vector, limit)
                        .await?,
                )
            }
            None => (
                feed::SearchMode::FullText,
                store
                    .search_text(&request.project, &request.query, limit)
                    .await?,
            ),
        };
        Ok(feed::SearchChunksResponse {
            mode: mode as i32,
            hits: hits.iter().map(progress::hit).collect(),
        })
    }
}

/// A delta in pages of [`ENTRIES_PER_PAGE`] rows, the tombstones with the first.
fn delta_pages(changes: neuralis_index::ProjectChanges) -> SyncStream<feed::ListEntriesResponse> {
    let revision = changes.revision;
    let mut removed: Vec<feed::Tombstone> = changes.removed.into_iter().map(tombstone).collect();
    let mut pages: Vec<Vec<feed::Entry>> = Vec::new();
    let mut rows = changes.rows.into_iter().map(progress::entry_of).peekable();
    while rows.peek().is_some() {
        pages.push(rows.by_ref().take(ENTRIES_PER_PAGE).collect());
    }
    if pages.is_empty() {
        pages.push(Vec::new());
    }
    futures::stream::iter(pages.into_iter().map(move |entries| {
        Ok(feed::ListEntriesResponse {
            revision,
            entries,
            delta: true,
            removed: std::mem::take(&mut removed),
        })
    }))
    .boxed()
}

/// Every row, a page of the store's read per message as it arrives (the store reads
/// at most a page or two ahead): neither side holds the project twice. A project
/// without rows is one empty page, so the revision always arrives.
fn full_pages(pages: RowPages) -> SyncStream<feed::ListEntriesResponse> {
    struct Reading {
        pages: RowPages,
        sent: bool,
    }
    let start = Reading { pages, sent: false };
    futures::stream::unfold(Some(start), |state| async move {
        let mut reading = state?;
        let revision = reading.pages.revision;
        let page = |entries| feed::ListEntriesResponse {
            revision,
            entries,
            delta: false,
            removed: Vec::new(),
        };
        match reading.pages.next_page().await {
            Some(Ok(rows)) => {
                reading.sent = true;
                let entries = rows.into_iter().map(progress::entry_of_listed).collect();
                Some((Ok(page(entries)), Some(reading)))
            }
            Some(Err(error)) => Some((Err(SyncError::from(error)), None)),
            None if reading.sent => None,
            None => Some((Ok(page(Vec::new())), None)),
        }
    })
    .boxed()
}

fn tombstone(removed: neuralis_index::Removed) -> feed::Tombstone {
    match removed {
        neuralis_index::Removed::Source { source } => feed::Tombstone {
            source,
            path: String::new(),
        },
        neuralis_index::Removed::File { source, path } => feed::Tombstone { source, path },
    }
}
