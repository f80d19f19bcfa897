//! The tonic adapter: take the permit the authorization layer issued, call the handler,
//! map the error. The service is only ever built behind its layer.

use std::sync::Arc;

use neuralis_authz::{AuthorizeLayer, Authorized, Gate, take_permit};
use neuralis_proto::discovery::v1 as pb;
use pb::discovery_service_server::{DiscoveryService, DiscoveryServiceServer};
use tonic::{Request, Response, Status};
use tower::Layer;

use super::status::to_status;
use crate::service::Discovery;

/// The fully-qualified service name (health and reflection).
pub const SERVICE_NAME: &str = "neuralis.discovery.v1.DiscoveryService";

/// Serves [`Discovery`] over gRPC.
pub struct DiscoveryGrpcServer {
    discovery: Arc<Discovery>,
}

impl DiscoveryGrpcServer {
    /// The tonic service for `discovery`, behind `gate` (the `discovery` table).
    pub fn service(
        discovery: Arc<Discovery>,
        gate: Gate,
    ) -> Authorized<DiscoveryServiceServer<Self>> {
        AuthorizeLayer::new(gate).layer(DiscoveryServiceServer::new(Self { discovery }))
    }
}

/// Calls one handler with the permit and message of `request`.
macro_rules! forward {
    ($self:ident, $method:ident, $request:ident) => {{
        let mut request = $request;
        let permit = take_permit(&mut request)?;
        $self
            .discovery
            .$method(&permit, request.into_inner())
            .await
            .map(Response::new)
            .map_err(to_status)
    }};
}

#[tonic::async_trait]
impl DiscoveryService for DiscoveryGrpcServer {
    async fn list_packages(
        &self,
        request: Request<pb::ListPackagesRequest>,
    ) -> Result<Response<pb::ListPackagesResponse>, Status> {
        // The packages go out as the bytes kept with the prepared answer.
        forward!(self, list_packages_encoded, request)
    }

    async fn render_overview(
        &self,
        request: Request<pb::RenderOverviewRequest>,
    ) -> Result<Response<pb::RenderOverviewResponse>, Status> {
        forward!(self, render_overview, request)
    }

    async fn activate_skill(
        &self,
        request: Request<pb::ActivateSkillRequest>,
    ) -> Result<Response<pb::ActivateSkillResponse>, Status> {
        forward!(self, activate_skill, request)
    }

    async fn hydrate(
        &self,
        request: Request<pb::HydrateRequest>,
    ) -> Result<Response<pb::HydrateResponse>, Status> {
        forward!(self, hydrate, request)
    }

    async fn list_tools(
        &self,
        request: Request<pb::ListToolsRequest>,
    ) -> Result<Response<pb::ListToolsResponse>, Status> {
        forward!(self, list_tools, request)
    }

    async fn validate_package(
        &self,
        request: Request<pb::ValidatePackageRequest>,
    ) -> Result<Response<pb::ValidatePackageResponse>, Status> {
        forward!(self, validate_package, request)
    }

    async fn read_file(
        &self,
        request: Request<pb::ReadFileRequest>,
    ) -> Result<Response<pb::ReadFileResponse>, Status> {
        forward!(self, read_file, request)
    }

    async fn search(
        &self,
        request: Request<pb::SearchRequest>,
    ) -> Result<Response<pb::SearchResponse>, Status> {
        forward!(self, search, request)
    }

    type WatchPackagesStream = std::pin::Pin<
        Box<dyn futures::Stream<Item = Result<pb::WatchPackagesResponse, Status>> + Send>,
    >;

    async fn watch_packages(
        &self,
        request: Request<pb::WatchPackagesRequest>,
    ) -> Result<Response<Self::WatchPackagesStream>, Status> {
        use futures::StreamExt as _;
        let mut request = request;
        let permit = take_permit(&mut request)?;
        let stream = self
            .discovery
            .watch_packages(permit, request.into_inner())
            .map_err(to_status)?;
        Ok(Response::new(Box::pin(
            stream.map(|message| message.map_err(to_status)),
        )))
    }
}
