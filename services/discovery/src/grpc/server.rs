//! The tonic adapter: take the token from metadata, call the trait, map the error.

use std::sync::Arc;

use neuralis_proto::discovery::v1 as pb;
use pb::discovery_service_server::{DiscoveryService, DiscoveryServiceServer};
use tonic::metadata::MetadataMap;
use tonic::{Request, Response, Status};

use super::status::to_status;
use crate::api::{CallerToken, DiscoveryApi};

/// The fully-qualified service name (health and reflection).
pub const SERVICE_NAME: &str = "neuralis.discovery.v1.DiscoveryService";

/// Serves any [`DiscoveryApi`] over gRPC.
pub struct DiscoveryGrpcServer<A: ?Sized> {
    api: Arc<A>,
}

impl<A: DiscoveryApi + ?Sized> DiscoveryGrpcServer<A> {
    /// The tonic service for `api`.
    pub fn service(api: Arc<A>) -> DiscoveryServiceServer<Self> {
        DiscoveryServiceServer::new(Self { api })
    }
}

/// The bearer token of a call, if any.
pub fn bearer(metadata: &MetadataMap) -> CallerToken {
    let token = metadata
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(|t| t.trim().to_owned());
    CallerToken::new(token)
}

fn split<T>(request: Request<T>) -> (CallerToken, T) {
    (bearer(request.metadata()), request.into_inner())
}

#[tonic::async_trait]
impl<A: DiscoveryApi + ?Sized> DiscoveryService for DiscoveryGrpcServer<A> {
    async fn list_packages(
        &self,
        request: Request<pb::ListPackagesRequest>,
    ) -> Result<Response<pb::ListPackagesResponse>, Status> {
        let (token, request) = split(request);
        self.api
            .list_packages(token, request)
            .await
            .map(Response::new)
            .map_err(to_status)
    }

    async fn render_overview(
        &self,
        request: Request<pb::RenderOverviewRequest>,
    ) -> Result<Response<pb::RenderOverviewResponse>, Status> {
        let (token, request) = split(request);
        self.api
            .render_overview(token, request)
            .await
            .map(Response::new)
            .map_err(to_status)
    }

    async fn activate_skill(
        &self,
        request: Request<pb::ActivateSkillRequest>,
    ) -> Result<Response<pb::ActivateSkillResponse>, Status> {
        let (token, request) = split(request);
        self.api
            .activate_skill(token, request)
            .await
            .map(Response::new)
            .map_err(to_status)
    }

    async fn hydrate(
        &self,
        request: Request<pb::HydrateRequest>,
    ) -> Result<Response<pb::HydrateResponse>, Status> {
        let (token, request) = split(request);
        self.api
            .hydrate(token, request)
            .await
            .map(Response::new)
            .map_err(to_status)
    }

    async fn list_tools(
        &self,
        request: Request<pb::ListToolsRequest>,
    ) -> Result<Response<pb::ListToolsResponse>, Status> {
        let (token, request) = split(request);
        self.api
            .list_tools(token, request)
            .await
            .map(Response::new)
            .map_err(to_status)
    }

    async fn validate_package(
        &self,
        request: Request<pb::ValidatePackageRequest>,
    ) -> Result<Response<pb::ValidatePackageResponse>, Status> {
        self.api
            .validate_package(request.into_inner())
            .await
            .map(Response::new)
            .map_err(to_status)
    }
}
