//! The sync service's API as a tonic-free trait: the in-process implementation
//! ([`crate::LocalSync`]) and the gRPC client ([`crate::grpc::SyncGrpcClient`]) both
//! implement it, so the all-in-one process and split mode share every caller.

use crate::{CallerToken, SyncError};
use futures::stream::BoxStream;
use neuralis_proto::sync::v1 as pb;

/// A server stream of one RPC.
pub type SyncStream<T> = BoxStream<'static, Result<T, SyncError>>;

/// One method per RPC of `neuralis.sync.v1.SyncService`. State-changing calls take the
/// caller's token and answer [`SyncError::Unauthenticated`] for an unverified caller.
#[async_trait::async_trait]
pub trait SyncApi: Send + Sync + 'static {
    /// Creates a source (never synced).
    async fn create_source(
        &self,
        caller: &CallerToken,
        request: pb::CreateSourceRequest,
    ) -> Result<pb::CreateSourceResponse, SyncError>;

    /// One source with its status.
    async fn get_source(
        &self,
        request: pb::GetSourceRequest,
    ) -> Result<pb::GetSourceResponse, SyncError>;

    /// The sources of a project (or of all projects).
    async fn list_sources(
        &self,
        request: pb::ListSourcesRequest,
    ) -> Result<pb::ListSourcesResponse, SyncError>;

    /// Replaces a source's settings.
    async fn update_source(
        &self,
        caller: &CallerToken,
        request: pb::UpdateSourceRequest,
    ) -> Result<pb::UpdateSourceResponse, SyncError>;

    /// Deletes a source and its rows.
    async fn delete_source(
        &self,
        caller: &CallerToken,
        request: pb::DeleteSourceRequest,
    ) -> Result<pb::DeleteSourceResponse, SyncError>;

    /// Syncs a source now, streaming progress; the last item has `done` set.
    async fn sync_source(
        &self,
        caller: &CallerToken,
        request: pb::SyncSourceRequest,
    ) -> Result<SyncStream<pb::SyncSourceResponse>, SyncError>;

    /// Streams a project's raw rows, every page at the same revision.
    async fn list_entries(
        &self,
        request: pb::ListEntriesRequest,
    ) -> Result<SyncStream<pb::ListEntriesResponse>, SyncError>;

    /// The project's current revision.
    async fn get_revision(
        &self,
        request: pb::GetRevisionRequest,
    ) -> Result<pb::GetRevisionResponse, SyncError>;

    /// Reads one file through its source's connector.
    async fn read_file(
        &self,
        request: pb::ReadFileRequest,
    ) -> Result<pb::ReadFileResponse, SyncError>;

    /// Searches a project's chunk rows.
    async fn search(&self, request: pb::SearchRequest) -> Result<pb::SearchResponse, SyncError>;
}
