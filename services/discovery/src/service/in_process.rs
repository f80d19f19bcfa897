//! [`DiscoveryApi`] in process: the all-in-one process (the demo, the tests) calls the
//! handlers through the same gate as a gRPC call.

use std::sync::Arc;

use async_trait::async_trait;
use neuralis_authz::Gate;
use neuralis_authz::tables::discovery as rpc;
use neuralis_proto::discovery::v1 as pb;

use crate::base::error::{CallerToken, DiscoveryError};
use crate::service::Discovery;
use crate::service::api::{DiscoveryApi, WatchStream};

/// The handlers behind their gate.
pub struct InProcessDiscovery {
    gate: Gate,
    discovery: Arc<Discovery>,
}

impl InProcessDiscovery {
    /// `discovery`'s handlers, every call decided by `gate` (the `discovery` table).
    pub fn new(gate: Gate, discovery: Arc<Discovery>) -> Self {
        InProcessDiscovery { gate, discovery }
    }

    /// The handlers themselves.
    pub fn discovery(&self) -> &Arc<Discovery> {
        &self.discovery
    }
}

/// Decides the call against its rule, then runs the handler with the permit.
macro_rules! admitted {
    ($self:ident, $path:expr, $method:ident, $token:ident, $request:ident) => {{
        let permit = $self.gate.admit_bearer($path, &$token)?;
        $self.discovery.$method(&permit, $request).await
    }};
}

#[async_trait]
impl DiscoveryApi for InProcessDiscovery {
    async fn list_packages(
        &self,
        caller: CallerToken,
        request: pb::ListPackagesRequest,
    ) -> Result<pb::ListPackagesResponse, DiscoveryError> {
        admitted!(self, rpc::LIST_PACKAGES, list_packages, caller, request)
    }

    async fn render_overview(
        &self,
        caller: CallerToken,
        request: pb::RenderOverviewRequest,
    ) -> Result<pb::RenderOverviewResponse, DiscoveryError> {
        admitted!(self, rpc::RENDER_OVERVIEW, render_overview, caller, request)
    }

    async fn activate_skill(
        &self,
        caller: CallerToken,
        request: pb::ActivateSkillRequest,
    ) -> Result<pb::ActivateSkillResponse, DiscoveryError> {
        admitted!(self, rpc::ACTIVATE_SKILL, activate_skill, caller, request)
    }

    async fn hydrate(
        &self,
        caller: CallerToken,
        request: pb::HydrateRequest,
    ) -> Result<pb::HydrateResponse, DiscoveryError> {
        admitted!(self, rpc::HYDRATE, hydrate, caller, request)
    }

    async fn list_tools(
        &self,
        caller: CallerToken,
        request: pb::ListToolsRequest,
    ) -> Result<pb::ListToolsResponse, DiscoveryError> {
        admitted!(self, rpc::LIST_TOOLS, list_tools, caller, request)
    }

    async fn validate_package(
        &self,
        caller: CallerToken,
        request: pb::ValidatePackageRequest,
    ) -> Result<pb::ValidatePackageResponse, DiscoveryError> {
        admitted!(
            self,
            rpc::VALIDATE_PACKAGE,
            validate_package,
            caller,
            request
        )
    }

    async fn read_file(
        &self,
        caller: CallerToken,
        request: pb::ReadFileRequest,
    ) -> Result<pb::ReadFileResponse, DiscoveryError> {
        admitted!(self, rpc::READ_FILE, read_file, caller, request)
    }

    async fn search(
        &self,
        caller: CallerToken,
        request: pb::SearchRequest,
    ) -> Result<pb::SearchResponse, DiscoveryError> {
        admitted!(self, rpc::SEARCH, search, caller, request)
    }

    async fn watch_packages(
        &self,
        caller: CallerToken,
        request: pb::WatchPackagesRequest,
    ) -> Result<WatchStream, DiscoveryError> {
        let permit = self.gate.admit_bearer(rpc::WATCH_PACKAGES, &caller)?;
        self.discovery.watch_packages(permit, request)
    }
}
