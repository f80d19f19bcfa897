//! The tonic adapter: take the permit the authorization layer issued, call the handler,
//! map the error. The service is only ever built behind its layer.

use std::sync::Arc;

use neuralis_authz::{AuthorizeLayer, Authorized, Gate, take_permit};
use neuralis_proto::policy::v1 as pb;
use pb::policy_service_server::{PolicyService, PolicyServiceServer};
use tonic::{Request, Response, Status};
use tower::Layer;

use super::status::to_status;
use crate::LocalPolicy;

/// The fully-qualified service name (health and reflection).
pub const SERVICE_NAME: &str = "neuralis.policy.v1.PolicyService";

/// Serves [`LocalPolicy`] over gRPC.
pub struct PolicyGrpcServer {
    local: Arc<LocalPolicy>,
}

impl PolicyGrpcServer {
    /// The tonic service for `local`, behind `gate` (the `policy` table), accepting
    /// messages up to `max_message_bytes`.
    pub fn service(
        local: Arc<LocalPolicy>,
        gate: Gate,
        max_message_bytes: usize,
    ) -> Authorized<PolicyServiceServer<Self>> {
        let server = PolicyServiceServer::new(PolicyGrpcServer { local })
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(max_message_bytes);
        AuthorizeLayer::new(gate).layer(server)
    }
}

/// Calls one handler with the permit and message of `request`.
macro_rules! forward {
    ($self:ident, $method:ident, $request:ident) => {{
        let mut request = $request;
        let permit = take_permit(&mut request)?;
        $self
            .local
            .$method(&permit, request.into_inner())
            .await
            .map(Response::new)
            .map_err(to_status)
    }};
}

#[tonic::async_trait]
impl PolicyService for PolicyGrpcServer {
    async fn put_source_policy(
        &self,
        request: Request<pb::PutSourcePolicyRequest>,
    ) -> Result<Response<pb::PutSourcePolicyResponse>, Status> {
        forward!(self, put_source_policy, request)
    }

    async fn get_source_policy(
        &self,
        request: Request<pb::GetSourcePolicyRequest>,
    ) -> Result<Response<pb::GetSourcePolicyResponse>, Status> {
        forward!(self, get_source_policy, request)
    }

    async fn set_source_enabled(
        &self,
        request: Request<pb::SetSourceEnabledRequest>,
    ) -> Result<Response<pb::SetSourceEnabledResponse>, Status> {
        forward!(self, set_source_enabled, request)
    }

    async fn put_role_grants(
        &self,
        request: Request<pb::PutRoleGrantsRequest>,
    ) -> Result<Response<pb::PutRoleGrantsResponse>, Status> {
        forward!(self, put_role_grants, request)
    }

    async fn set_package_enabled(
        &self,
        request: Request<pb::SetPackageEnabledRequest>,
    ) -> Result<Response<pb::SetPackageEnabledResponse>, Status> {
        forward!(self, set_package_enabled, request)
    }

    async fn set_file_override(
        &self,
        request: Request<pb::SetFileOverrideRequest>,
    ) -> Result<Response<pb::SetFileOverrideResponse>, Status> {
        forward!(self, set_file_override, request)
    }

    async fn register_conversation(
        &self,
        request: Request<pb::RegisterConversationRequest>,
    ) -> Result<Response<pb::RegisterConversationResponse>, Status> {
        forward!(self, register_conversation, request)
    }

    async fn evaluate(
        &self,
        request: Request<pb::EvaluateRequest>,
    ) -> Result<Response<pb::EvaluateResponse>, Status> {
        forward!(self, evaluate, request)
    }

    async fn rekey_packages(
        &self,
        request: Request<pb::RekeyPackagesRequest>,
    ) -> Result<Response<pb::RekeyPackagesResponse>, Status> {
        forward!(self, rekey_packages, request)
    }

    async fn forget_source(
        &self,
        request: Request<pb::ForgetSourceRequest>,
    ) -> Result<Response<pb::ForgetSourceResponse>, Status> {
        forward!(self, forget_source, request)
    }

    async fn attach_packages(
        &self,
        request: Request<pb::AttachPackagesRequest>,
    ) -> Result<Response<pb::AttachPackagesResponse>, Status> {
        forward!(self, attach_packages, request)
    }

    async fn explain_access(
        &self,
        request: Request<pb::ExplainAccessRequest>,
    ) -> Result<Response<pb::ExplainAccessResponse>, Status> {
        forward!(self, explain_access, request)
    }
}
