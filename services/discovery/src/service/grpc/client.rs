//! [`DiscoveryApi`] over gRPC: split mode and the command line call the same trait.

use async_trait::async_trait;
use neuralis_host::propagation::TracePropagation;
use neuralis_proto::discovery::v1 as pb;
use pb::discovery_service_client::DiscoveryServiceClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use super::status::from_status;
use crate::base::error::{CallerToken, DiscoveryError};
use crate::service::api::{DiscoveryApi, WatchStream};

/// A discovery client over one channel.
#[derive(Clone)]
pub struct DiscoveryGrpcClient {
    inner: DiscoveryServiceClient<InterceptedService<Channel, TracePropagation>>,
}

impl DiscoveryGrpcClient {
    /// A client over `channel`, passing trace context on.
    pub fn new(channel: Channel) -> Self {
        Self {
            inner: DiscoveryServiceClient::with_interceptor(channel, TracePropagation),
        }
    }
}

fn with_token<T>(token: &CallerToken, message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Some(value) = token.header_value().and_then(|v| v.parse().ok()) {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

#[async_trait]
impl DiscoveryApi for DiscoveryGrpcClient {
    async fn list_packages(
        &self,
        caller: CallerToken,
        request: pb::ListPackagesRequest,
    ) -> Result<pb::ListPackagesResponse, DiscoveryError> {
        let mut client = self.inner.clone();
        let response = client.list_packages(with_token(&caller, request)).await;
        response
            .map(tonic::Response::into_inner)
            .map_err(|s| from_status(&s))
    }

    async fn render_overview(
        &self,
        caller: CallerToken,
        request: pb::RenderOverviewRequest,
    ) -> Result<pb::RenderOverviewResponse, DiscoveryError> {
        let mut client = self.inner.clone();
        let response = client.render_overview(with_token(&caller, request)).await;
        response
            .map(tonic::Response::into_inner)
            .map_err(|s| from_status(&s))
    }

    async fn activate_skill(
        &self,
        caller: CallerToken,
        request: pb::ActivateSkillRequest,
    ) -> Result<pb::ActivateSkillResponse, DiscoveryError> {
        let mut client = self.inner.clone();
        let response = client.activate_skill(with_token(&caller, request)).await;
        response
            .map(tonic::Response::into_inner)
            .map_err(|s| from_status(&s))
    }

    async fn hydrate(
        &self,
        caller: CallerToken,
        request: pb::HydrateRequest,
    ) -> Result<pb::HydrateResponse, DiscoveryError> {
        let mut client = self.inner.clone();
        let response = client.hydrate(with_token(&caller, request)).await;
        response
            .map(tonic::Response::into_inner)
            .map_err(|s| from_status(&s))
    }

    async fn list_tools(
        &self,
        caller: CallerToken,
        request: pb::ListToolsRequest,
    ) -> Result<pb::ListToolsResponse, DiscoveryError> {
        let mut client = self.inner.clone();
        let response = client.list_tools(with_token(&caller, request)).await;
        response
            .map(tonic::Response::into_inner)
            .map_err(|s| from_status(&s))
    }

    async fn validate_package(
        &self,
        caller: CallerToken,
        request: pb::ValidatePackageRequest,
    ) -> Result<pb::ValidatePackageResponse, DiscoveryError> {
        let mut client = self.inner.clone();
        let response = client.validate_package(with_token(&caller, request)).await;
        response
            .map(tonic::Response::into_inner)
            .map_err(|s| from_status(&s))
    }

    async fn read_file(
        &self,
        caller: CallerToken,
        request: pb::ReadFileRequest,
    ) -> Result<pb::ReadFileResponse, DiscoveryError> {
        let mut client = self.inner.clone();
        let response = client.read_file(with_token(&caller, request)).await;
        response
            .map(tonic::Response::into_inner)
            .map_err(|s| from_status(&s))
    }

    async fn search(
        &self,
        caller: CallerToken,
        request: pb::SearchRequest,
    ) -> Result<pb::SearchResponse, DiscoveryError> {
        let mut client = self.inner.clone();
        let response = client.search(with_token(&caller, request)).await;
        response
            .map(tonic::Response::into_inner)
            .map_err(|s| from_status(&s))
    }

    async fn watch_packages(
        &self,
        caller: CallerToken,
        request: pb::WatchPackagesRequest,
    ) -> Result<WatchStream, DiscoveryError> {
        use futures::StreamExt as _;
        let mut client = self.inner.clone();
        let response = client.watch_packages(with_token(&caller, request)).await;
        let stream = response
            .map(tonic::Response::into_inner)
            .map_err(|s| from_status(&s))?;
        Ok(Box::pin(
            stream.map(|message| message.map_err(|s| from_status(&s))),
        ))
    }
}
