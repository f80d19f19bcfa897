//! The sync APIs over gRPC: split mode (discovery reading the feed) and the command
//! line (administering sources) call the same traits.

use super::status::from_status;
use crate::SyncError;
use crate::api::{IndexFeedApi, SourceApi, SyncStream};
use feed::index_feed_service_client::IndexFeedServiceClient;
use futures::StreamExt;
use neuralis_host::peer::PeerChannel;
use neuralis_host::propagation::TracePropagation;
use neuralis_host::rpc::{TracedChannel, traced};
use neuralis_identity::BearerToken;
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as pb;
use pb::source_service_client::SourceServiceClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

type Traced = InterceptedService<TracedChannel, TracePropagation>;

/// A `SourceService` client over one channel.
#[derive(Clone)]
pub struct SourceGrpcClient {
    inner: SourceServiceClient<Traced>,
}

impl SourceGrpcClient {
    /// A client over `channel`, passing trace context on.
    pub fn new(channel: Channel) -> Self {
        Self {
            inner: SourceServiceClient::with_interceptor(traced(channel), TracePropagation),
        }
    }
}

/// An `IndexFeedService` client over one channel (the internal listener).
#[derive(Clone)]
pub struct IndexFeedGrpcClient {
    inner: IndexFeedServiceClient<Traced>,
}

impl IndexFeedGrpcClient {
    /// A client over `channel` (a bare channel, or a peer's balanced one with its
    /// deadline and retries), passing trace context on.
    pub fn new(channel: impl Into<PeerChannel>) -> Self {
        Self {
            inner: IndexFeedServiceClient::with_interceptor(traced(channel), TracePropagation),
        }
    }
}

/// A request carrying `token` as `authorization: Bearer`.
fn with_token<T>(token: &BearerToken, message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Some(value) = token.header_value().and_then(|value| value.parse().ok()) {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

fn unary<T>(response: Result<tonic::Response<T>, tonic::Status>) -> Result<T, SyncError> {
    response
        .map(tonic::Response::into_inner)
        .map_err(|status| from_status(&status))
}

fn streamed<T: Send + 'static>(
    response: Result<tonic::Response<tonic::Streaming<T>>, tonic::Status>,
) -> Result<SyncStream<T>, SyncError> {
    let stream = unary(response)?;
    Ok(stream
        .map(|item| item.map_err(|status| from_status(&status)))
        .boxed())
}

/// Calls one RPC with the token and maps the answer back.
macro_rules! call {
    ($self:ident, $method:ident, $token:ident, $request:ident, $wrap:ident) => {{
        let mut client = $self.inner.clone();
        $wrap(client.$method(with_token($token, $request)).await)
    }};
}

#[async_trait::async_trait]
impl SourceApi for SourceGrpcClient {
    async fn create_source(
        &self,
        token: &BearerToken,
        request: pb::CreateSourceRequest,
    ) -> Result<pb::CreateSourceResponse, SyncError> {
        call!(self, create_source, token, request, unary)
    }

    async fn get_source(
        &self,
        token: &BearerToken,
        request: pb::GetSourceRequest,
    ) -> Result<pb::GetSourceResponse, SyncError> {
        call!(self, get_source, token, request, unary)
    }

    async fn list_sources(
        &self,
        token: &BearerToken,
        request: pb::ListSourcesRequest,
    ) -> Result<pb::ListSourcesResponse, SyncError> {
        call!(self, list_sources, token, request, unary)
    }

    async fn update_source(
        &self,
        token: &BearerToken,
        request: pb::UpdateSourceRequest,
    ) -> Result<pb::UpdateSourceResponse, SyncError> {
        call!(self, update_source, token, request, unary)
    }

    async fn delete_source(
        &self,
        token: &BearerToken,
        request: pb::DeleteSourceRequest,
    ) -> Result<pb::DeleteSourceResponse, SyncError> {
        call!(self, delete_source, token, request, unary)
    }

    async fn sync_source(
        &self,
        token: &BearerToken,
        request: pb::SyncSourceRequest,
    ) -> Result<SyncStream<pb::SyncSourceResponse>, SyncError> {
        call!(self, sync_source, token, request, streamed)
    }
}

#[async_trait::async_trait]
impl IndexFeedApi for IndexFeedGrpcClient {
    async fn list_project_sources(
        &self,
        credential: &BearerToken,
        request: feed::ListProjectSourcesRequest,
    ) -> Result<feed::ListProjectSourcesResponse, SyncError> {
        call!(self, list_project_sources, credential, request, unary)
    }

    async fn list_entries(
        &self,
        credential: &BearerToken,
        request: feed::ListEntriesRequest,
    ) -> Result<SyncStream<feed::ListEntriesResponse>, SyncError> {
        call!(self, list_entries, credential, request, streamed)
    }

    async fn get_revision(
        &self,
        credential: &BearerToken,
        request: feed::GetRevisionRequest,
    ) -> Result<feed::GetRevisionResponse, SyncError> {
        call!(self, get_revision, credential, request, unary)
    }

    async fn read_file(
        &self,
        credential: &BearerToken,
        request: feed::ReadDecidedFileRequest,
    ) -> Result<feed::ReadDecidedFileResponse, SyncError> {
        call!(self, read_decided_file, credential, request, unary)
    }

    async fn search(
        &self,
        credential: &BearerToken,
        request: feed::SearchChunksRequest,
    ) -> Result<feed::SearchChunksResponse, SyncError> {
        call!(self, search_chunks, credential, request, unary)
    }
}
