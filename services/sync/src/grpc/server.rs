//! The tonic adapter: take the token from metadata, call the trait, map the error.

use super::status::to_status;
use crate::api::SyncApi;
use crate::auth::CallerToken;
use futures::StreamExt;
use futures::stream::BoxStream;
use neuralis_proto::sync::v1 as pb;
use pb::sync_service_server::{SyncService, SyncServiceServer};
use std::sync::Arc;
use tonic::metadata::MetadataMap;
use tonic::{Request, Response, Status};

/// The fully-qualified service name (health and reflection).
pub const SERVICE_NAME: &str = "neuralis.sync.v1.SyncService";

/// Serves any [`SyncApi`] over gRPC.
pub struct SyncGrpcServer<A: ?Sized> {
    api: Arc<A>,
}

impl<A: SyncApi + ?Sized> SyncGrpcServer<A> {
    /// The tonic service for `api`.
    pub fn service(api: Arc<A>) -> SyncServiceServer<Self> {
        SyncServiceServer::new(Self { api })
    }
}

/// The bearer token of a call, if any.
pub fn bearer(metadata: &MetadataMap) -> CallerToken {
    let token = metadata
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            value
                .strip_prefix("Bearer ")
                .or_else(|| value.strip_prefix("bearer "))
        })
        .map(|token| token.trim().to_owned());
    CallerToken(token)
}

fn split<T>(request: Request<T>) -> (CallerToken, T) {
    (bearer(request.metadata()), request.into_inner())
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

#[tonic::async_trait]
impl<A: SyncApi + ?Sized> SyncService for SyncGrpcServer<A> {
    type SyncSourceStream = WireStream<pb::SyncSourceResponse>;
    type ListEntriesStream = WireStream<pb::ListEntriesResponse>;

    async fn create_source(
        &self,
        request: Request<pb::CreateSourceRequest>,
    ) -> Result<Response<pb::CreateSourceResponse>, Status> {
        let (token, request) = split(request);
        answer(self.api.create_source(&token, request).await)
    }

    async fn get_source(
        &self,
        request: Request<pb::GetSourceRequest>,
    ) -> Result<Response<pb::GetSourceResponse>, Status> {
        answer(self.api.get_source(request.into_inner()).await)
    }

    async fn list_sources(
        &self,
        request: Request<pb::ListSourcesRequest>,
    ) -> Result<Response<pb::ListSourcesResponse>, Status> {
        answer(self.api.list_sources(request.into_inner()).await)
    }

    async fn update_source(
        &self,
        request: Request<pb::UpdateSourceRequest>,
    ) -> Result<Response<pb::UpdateSourceResponse>, Status> {
        let (token, request) = split(request);
        answer(self.api.update_source(&token, request).await)
    }

    async fn delete_source(
        &self,
        request: Request<pb::DeleteSourceRequest>,
    ) -> Result<Response<pb::DeleteSourceResponse>, Status> {
        let (token, request) = split(request);
        answer(self.api.delete_source(&token, request).await)
    }

    async fn sync_source(
        &self,
        request: Request<pb::SyncSourceRequest>,
    ) -> Result<Response<Self::SyncSourceStream>, Status> {
        let (token, request) = split(request);
        streamed(self.api.sync_source(&token, request).await)
    }

    async fn list_entries(
        &self,
        request: Request<pb::ListEntriesRequest>,
    ) -> Result<Response<Self::ListEntriesStream>, Status> {
        streamed(self.api.list_entries(request.into_inner()).await)
    }

    async fn get_revision(
        &self,
        request: Request<pb::GetRevisionRequest>,
    ) -> Result<Response<pb::GetRevisionResponse>, Status> {
        answer(self.api.get_revision(request.into_inner()).await)
    }

    async fn read_file(
        &self,
        request: Request<pb::ReadFileRequest>,
    ) -> Result<Response<pb::ReadFileResponse>, Status> {
        answer(self.api.read_file(request.into_inner()).await)
    }

    async fn search(
        &self,
        request: Request<pb::SearchRequest>,
    ) -> Result<Response<pb::SearchResponse>, Status> {
        answer(self.api.search(request.into_inner()).await)
    }
}
