//! The tonic adapter: take the token from metadata, call the trait, map the error.

use std::sync::Arc;

use neuralis_proto::policy::v1 as pb;
use pb::policy_service_server::{PolicyService, PolicyServiceServer};
use tonic::{Request, Response, Status};

use super::status::to_status;
use crate::{BearerToken, PolicyApi};

/// The fully-qualified service name (health and reflection).
pub const SERVICE_NAME: &str = "neuralis.policy.v1.PolicyService";

/// Serves any [`PolicyApi`] over gRPC.
pub struct PolicyGrpcServer<A: ?Sized> {
    api: Arc<A>,
}

impl<A: PolicyApi + ?Sized> PolicyGrpcServer<A> {
    /// The tonic service for `api`.
    pub fn service(api: Arc<A>) -> PolicyServiceServer<Self> {
        PolicyServiceServer::new(PolicyGrpcServer { api })
    }
}

/// The bearer token of a call and its message.
fn split<T>(request: Request<T>) -> (BearerToken, T) {
    (
        BearerToken::from_headers(request.metadata().as_ref()),
        request.into_inner(),
    )
}

/// Calls one trait method with the token and message of `request`.
macro_rules! forward {
    ($self:ident, $method:ident, $request:ident) => {{
        let (token, message) = split($request);
        $self
            .api
            .$method(token, message)
            .await
            .map(Response::new)
            .map_err(to_status)
    }};
}

#[tonic::async_trait]
impl<A: PolicyApi + ?Sized> PolicyService for PolicyGrpcServer<A> {
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
}
