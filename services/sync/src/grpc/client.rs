//! [`SyncApi`] over gRPC: split mode and the command line call the same trait.

use super::status::from_status;
use crate::SyncError;
use crate::api::{SyncApi, SyncStream};
use crate::auth::CallerToken;
use futures::StreamExt;
use neuralis_host::propagation::TracePropagation;
use neuralis_proto::sync::v1 as pb;
use pb::sync_service_client::SyncServiceClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

type Inner = SyncServiceClient<InterceptedService<Channel, TracePropagation>>;

/// A sync client over one channel.
#[derive(Clone)]
pub struct SyncGrpcClient {
    inner: Inner,
}

impl SyncGrpcClient {
    /// A client over `channel`, passing trace context on.
    pub fn new(channel: Channel) -> Self {
        Self {
            inner: SyncServiceClient::with_interceptor(channel, TracePropagation),
        }
    }

    fn client(&self) -> Inner {
        self.inner.clone()
    }
}

fn with_token<T>(token: &CallerToken, message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Some(value) = token
        .0
        .as_ref()
        .and_then(|t| format!("Bearer {t}").parse().ok())
    {
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

#[async_trait::async_trait]
impl SyncApi for SyncGrpcClient {
    async fn create_source(
        &self,
        caller: &CallerToken,
        request: pb::CreateSourceRequest,
    ) -> Result<pb::CreateSourceResponse, SyncError> {
        unary(
            self.client()
                .create_source(with_token(caller, request))
                .await,
        )
    }

    async fn get_source(
        &self,
        request: pb::GetSourceRequest,
    ) -> Result<pb::GetSourceResponse, SyncError> {
        unary(self.client().get_source(request).await)
    }

    async fn list_sources(
        &self,
        request: pb::ListSourcesRequest,
    ) -> Result<pb::ListSourcesResponse, SyncError> {
        unary(self.client().list_sources(request).await)
    }

    async fn update_source(
        &self,
        caller: &CallerToken,
        request: pb::UpdateSourceRequest,
    ) -> Result<pb::UpdateSourceResponse, SyncError> {
        unary(
            self.client()
                .update_source(with_token(caller, request))
                .await,
        )
    }

    async fn delete_source(
        &self,
        caller: &CallerToken,
        request: pb::DeleteSourceRequest,
    ) -> Result<pb::DeleteSourceResponse, SyncError> {
        unary(
            self.client()
                .delete_source(with_token(caller, request))
                .await,
        )
    }

    async fn sync_source(
        &self,
        caller: &CallerToken,
        request: pb::SyncSourceRequest,
    ) -> Result<SyncStream<pb::SyncSourceResponse>, SyncError> {
        streamed(self.client().sync_source(with_token(caller, request)).await)
    }

    async fn list_entries(
        &self,
        request: pb::ListEntriesRequest,
    ) -> Result<SyncStream<pb::ListEntriesResponse>, SyncError> {
        streamed(self.client().list_entries(request).await)
    }

    async fn get_revision(
        &self,
        request: pb::GetRevisionRequest,
    ) -> Result<pb::GetRevisionResponse, SyncError> {
        unary(self.client().get_revision(request).await)
    }

    async fn read_file(
        &self,
        request: pb::ReadFileRequest,
    ) -> Result<pb::ReadFileResponse, SyncError> {
        unary(self.client().read_file(request).await)
    }

    async fn search(&self, request: pb::SearchRequest) -> Result<pb::SearchResponse, SyncError> {
        unary(self.client().search(request).await)
    }
}
