//! The index feed's handlers (services only): discovery reads the project's sources,
//! rows, revision, decided file bytes and search hits through them.

use futures::StreamExt;
use neuralis_authz::Permit;
use neuralis_index::query::SearchQuery;
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
        let changes = match request.since_revision {
            Some(since) => store.changes_since(&request.project, since).await?,
            None => None,
        };
        let (revision, rows, removed, delta) = match changes {
            Some(changes) => (changes.revision, changes.rows, changes.removed, true),
            None => {
                let snapshot = store.project_rows(&request.project).await?;
                (snapshot.revision, snapshot.rows, Vec::new(), false)
            }
        };
        let mut removed: Vec<feed::Tombstone> = removed.into_iter().map(tombstone).collect();
        let entries: Vec<feed::Entry> = rows.iter().map(progress::entry).collect();
        let mut pages: Vec<Vec<feed::Entry>> = entries
            .chunks(ENTRIES_PER_PAGE)
            .map(<[_]>::to_vec)
            .collect();
        if pages.is_empty() {
            pages.push(Vec::new());
        }
        let stream = futures::stream::iter(pages.into_iter().map(move |entries| {
            Ok(feed::ListEntriesResponse {
                revision,
                entries,
                delta,
                removed: std::mem::take(&mut removed),
            })
        }));
        Ok(stream.boxed())
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
                let vectors = embedder.embed(std::slice::from_ref(&request.query)).await?;
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

fn tombstone(removed: neuralis_index::Removed) -> feed::Tombstone {
    match removed {
        neuralis_index::Removed::Source { source } => feed::Tombstone {
            source,
            path: String::new(),
        },
        neuralis_index::Removed::File { source, path } => feed::Tombstone { source, path },
    }
}
