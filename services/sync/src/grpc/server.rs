//! The tonic adapters of both services: take the permit the authorization layer issued,
//! call the handler, map the error. Each service is only ever built behind its layer.

use super::status::to_status;
use crate::LocalSync;
use feed::index_feed_service_server::{IndexFeedService, IndexFeedServiceServer};
use futures::StreamExt;
use futures::stream::BoxStream;
use neuralis_authz::{AuthorizeLayer, Authorized, Gate, take_permit};
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as pb;
use pb::source_service_server::{SourceService, SourceServiceServer};
use std::sync::Arc;
use tonic::{Request, Response, Status};
use tower::Layer;

/// The administration of sources (health and reflection).
pub const SOURCES_SERVICE_NAME: &str = "neuralis.sync.v1.SourceService";
/// The index feed (health and reflection of the internal listener).
pub const FEED_SERVICE_NAME: &str = "neuralis.sync.internal.v1.IndexFeedService";

/// Serves [`LocalSync`] over gRPC.
pub struct SyncGrpcServer {
    local: Arc<LocalSync>,
}

impl SyncGrpcServer {
    /// `SourceService` for `local`, behind `gate` (the `sources` table).
    pub fn sources(local: Arc<LocalSync>, gate: Gate) -> Authorized<SourceServiceServer<Self>> {
        AuthorizeLayer::new(gate).layer(SourceServiceServer::new(Self { local }))
    }

    /// `IndexFeedService` for `local`, behind `gate` (the `index_feed` table).
    pub fn feed(local: Arc<LocalSync>, gate: Gate) -> Authorized<IndexFeedServiceServer<Self>> {
        AuthorizeLayer::new(gate).layer(IndexFeedServiceServer::new(Self { local }))
    }
}

type WireStream<T> = BoxStream<'static, Result<T, Status>>;

fn answer<T>(result: Result<T, crate::SyncError>) -> Result<Response<T>, Status> {
    result.map(Response::new).map_err(to_status)
}

fn streamed<T: Send + 'static>(
    result: Result<crate::api::SyncStream<T>, crate::SyncError>,
) -> Result<Response<WireStream<T>>, Status> {
    result
        .map(|stream| Response::new(stream.map(|item| item.map_err(to_status)).boxed()))
        .map_err(to_status)
}

/// Calls one handler with the permit and message of `request`.
macro_rules! forward {
    ($self:ident, $method:ident, $request:ident, $wrap:ident) => {{
        let mut request = $request;
        let permit = take_permit(&mut request)?;
        $wrap($self.local.$method(&permit, request.into_inner()).await)
    }};
}

#[tonic::async_trait]
impl SourceService for SyncGrpcServer {
    type SyncSourceStream = WireStream<pb::SyncSourceResponse>;

    async fn create_source(
        &self,
        request: Request<pb::CreateSourceRequest>,
    ) -> Result<Response<pb::CreateSourceResponse>, Status> {
        forward!(self, create_source, request, answer)
    }

    async fn get_source(
        &self,
        request: Request<pb::GetSourceRequest>,
    ) -> Result<Response<pb::GetSourceResponse>, Status> {
        forward!(self, get_source, request, answer)
    }

    async fn list_sources(
        &self,
        request: Request<pb::ListSourcesRequest>,
    ) -> Result<Response<pb::ListSourcesResponse>, Status> {
        forward!(self, list_sources, request, answer)
    }

    async fn update_source(
        &self,
        request: Request<pb::UpdateSourceRequest>,
    ) -> Result<Response<pb::UpdateSourceResponse>, Status> {
        forward!(self, update_source, request, answer)
    }

    async fn delete_source(
        &self,
        request: Request<pb::DeleteSourceRequest>,
    ) -> Result<Response<pb::DeleteSourceResponse>, Status> {
        forward!(self, delete_source, request, answer)
    }

    async fn sync_source(
        &self,
        request: Request<pb::SyncSourceRequest>,
    ) -> Result<Response<Self::SyncSourceStream>, Status> {
        forward!(self, sync_source, request, streamed)
    }
}

#[tonic::async_trait]
impl IndexFeedService for SyncGrpcServer {
    type ListEntriesStream = WireStream<feed::ListEntriesResponse>;

    async fn list_project_sources(
        &self,
        request: Request<feed::ListProjectSourcesRequest>,
    ) -> Result<Response<feed::ListProjectSourcesResponse>, Status> {
        forward!(self, list_project_sources, request, answer)
    }

    async fn list_entries(
        &self,
        request: Request<feed::ListEntriesRequest>,
    ) -> Result<Response<Self::ListEntriesStream>, Status> {
        forward!(self, list_entries, request, streamed)
    }

    async fn get_revision(
        &self,
        request: Request<feed::GetRevisionRequest>,
    ) -> Result<Response<feed::GetRevisionResponse>, Status> {
        forward!(self, get_revision, request, answer)
    }

    async fn read_decided_file(
        &self,
        request: Request<feed::ReadDecidedFileRequest>,
    ) -> Result<Response<feed::ReadDecidedFileResponse>, Status> {
        forward!(self, read_file, request, answer)
    }

    async fn search_chunks(
        &self,
        request: Request<feed::SearchChunksRequest>,
    ) -> Result<Response<feed::SearchChunksResponse>, Status> {
        forward!(self, search, request, answer)
    }
}
