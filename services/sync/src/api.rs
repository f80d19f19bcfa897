//! The sync services' APIs as tonic-free traits, as a client calls them: every method
//! takes the credential to present. The in-process clients ([`crate::in_process`]) and
//! the gRPC clients ([`crate::grpc`]) both implement them, and both have every call
//! decided by the service's gate before its handler runs.
//!
//! - [`SourceApi`]: the administration of sources, for administrators of the project
//!   (a caller token);
//! - [`IndexFeedApi`]: the raw index, for services only (a service credential).

use crate::SyncError;
use futures::stream::BoxStream;
use neuralis_identity::BearerToken;
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as pb;

/// A server stream of one RPC.
pub type SyncStream<T> = BoxStream<'static, Result<T, SyncError>>;

/// One method per RPC of `neuralis.sync.v1.SourceService`.
#[async_trait::async_trait]
pub trait SourceApi: Send + Sync + 'static {
    /// Creates a source (never synced).
    async fn create_source(
        &self,
        token: &BearerToken,
        request: pb::CreateSourceRequest,
    ) -> Result<pb::CreateSourceResponse, SyncError>;

    /// One source with its status.
    async fn get_source(
        &self,
        token: &BearerToken,
        request: pb::GetSourceRequest,
    ) -> Result<pb::GetSourceResponse, SyncError>;

    /// The sources of a project (of every project, for a platform-wide token).
    async fn list_sources(
        &self,
        token: &BearerToken,
        request: pb::ListSourcesRequest,
    ) -> Result<pb::ListSourcesResponse, SyncError>;

    /// Replaces a source's settings.
    async fn update_source(
        &self,
        token: &BearerToken,
        request: pb::UpdateSourceRequest,
    ) -> Result<pb::UpdateSourceResponse, SyncError>;

    /// Deletes a source and its rows.
    async fn delete_source(
        &self,
        token: &BearerToken,
        request: pb::DeleteSourceRequest,
    ) -> Result<pb::DeleteSourceResponse, SyncError>;

    /// Syncs a source now, streaming progress; the last item has `done` set.
    async fn sync_source(
        &self,
        token: &BearerToken,
        request: pb::SyncSourceRequest,
    ) -> Result<SyncStream<pb::SyncSourceResponse>, SyncError>;
}

/// One method per RPC of `neuralis.sync.internal.v1.IndexFeedService` (`read_file` is
/// `ReadDecidedFile`, `search` is `SearchChunks`).
#[async_trait::async_trait]
pub trait IndexFeedApi: Send + Sync + 'static {
    /// The sources of one project as stored now.
    async fn list_project_sources(
        &self,
        credential: &BearerToken,
        request: feed::ListProjectSourcesRequest,
    ) -> Result<feed::ListProjectSourcesResponse, SyncError>;

    /// Streams a project's raw rows, every page at the same revision.
    async fn list_entries(
        &self,
        credential: &BearerToken,
        request: feed::ListEntriesRequest,
    ) -> Result<SyncStream<feed::ListEntriesResponse>, SyncError>;

    /// The project's current revision.
    async fn get_revision(
        &self,
        credential: &BearerToken,
        request: feed::GetRevisionRequest,
    ) -> Result<feed::GetRevisionResponse, SyncError>;

    /// Reads one file through its source's connector.
    async fn read_file(
        &self,
        credential: &BearerToken,
        request: feed::ReadDecidedFileRequest,
    ) -> Result<feed::ReadDecidedFileResponse, SyncError>;

    /// Searches a project's chunk rows.
    async fn search(
        &self,
        credential: &BearerToken,
        request: feed::SearchChunksRequest,
    ) -> Result<feed::SearchChunksResponse, SyncError>;
}
