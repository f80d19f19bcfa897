//! [`PolicyApi`] in process: the all-in-one process calls its own policy service through
//! the same gate as a gRPC call, so a credential is decided the same way on both paths.

use std::sync::Arc;

use async_trait::async_trait;
use neuralis_authz::Gate;
use neuralis_authz::tables::policy as rpc;
use neuralis_proto::policy::v1 as pb;

use crate::{BearerToken, LocalPolicy, PolicyApi, PolicyError};

/// The handlers behind their gate.
pub struct InProcessPolicy {
    gate: Gate,
    local: Arc<LocalPolicy>,
}

impl InProcessPolicy {
    /// `local`'s handlers, every call decided by `gate` (the `policy` table).
    pub fn new(gate: Gate, local: Arc<LocalPolicy>) -> Self {
        InProcessPolicy { gate, local }
    }
}

/// Decides the call against its rule, then runs the handler with the permit.
macro_rules! admitted {
    ($self:ident, $path:expr, $method:ident, $token:ident, $request:ident) => {{
        let permit = $self.gate.admit_bearer($path, &$token)?;
        $self.local.$method(&permit, $request).await
    }};
}

#[async_trait]
impl PolicyApi for InProcessPolicy {
    async fn put_source_policy(
        &self,
        token: BearerToken,
        request: pb::PutSourcePolicyRequest,
    ) -> Result<pb::PutSourcePolicyResponse, PolicyError> {
        admitted!(
            self,
            rpc::PUT_SOURCE_POLICY,
            put_source_policy,
            token,
            request
        )
    }

    async fn get_source_policy(
        &self,
        token: BearerToken,
        request: pb::GetSourcePolicyRequest,
    ) -> Result<pb::GetSourcePolicyResponse, PolicyError> {
        admitted!(
            self,
            rpc::GET_SOURCE_POLICY,
            get_source_policy,
            token,
            request
        )
    }

    async fn set_source_enabled(
        &self,
        token: BearerToken,
        request: pb::SetSourceEnabledRequest,
    ) -> Result<pb::SetSourceEnabledResponse, PolicyError> {
        admitted!(
            self,
            rpc::SET_SOURCE_ENABLED,
            set_source_enabled,
            token,
            request
        )
    }

    async fn put_role_grants(
        &self,
        token: BearerToken,
        request: pb::PutRoleGrantsRequest,
    ) -> Result<pb::PutRoleGrantsResponse, PolicyError> {
        admitted!(self, rpc::PUT_ROLE_GRANTS, put_role_grants, token, request)
    }

    async fn set_package_enabled(
        &self,
        token: BearerToken,
        request: pb::SetPackageEnabledRequest,
    ) -> Result<pb::SetPackageEnabledResponse, PolicyError> {
        admitted!(
            self,
            rpc::SET_PACKAGE_ENABLED,
            set_package_enabled,
            token,
            request
        )
    }

    async fn set_file_override(
        &self,
        token: BearerToken,
        request: pb::SetFileOverrideRequest,
    ) -> Result<pb::SetFileOverrideResponse, PolicyError> {
        admitted!(
            self,
            rpc::SET_FILE_OVERRIDE,
            set_file_override,
            token,
            request
        )
    }

    async fn register_conversation(
        &self,
        token: BearerToken,
        request: pb::RegisterConversationRequest,
    ) -> Result<pb::RegisterConversationResponse, PolicyError> {
        admitted!(
            self,
            rpc::REGISTER_CONVERSATION,
            register_conversation,
            token,
            request
        )
    }

    async fn evaluate(
        &self,
        token: BearerToken,
        request: pb::EvaluateRequest,
    ) -> Result<pb::EvaluateResponse, PolicyError> {
        admitted!(self, rpc::EVALUATE, evaluate, token, request)
    }

    async fn forget_source(
        &self,
        token: BearerToken,
        request: pb::ForgetSourceRequest,
    ) -> Result<pb::ForgetSourceResponse, PolicyError> {
        admitted!(self, rpc::FORGET_SOURCE, forget_source, token, request)
    }

    async fn attach_packages(
        &self,
        token: BearerToken,
        request: pb::AttachPackagesRequest,
    ) -> Result<pb::AttachPackagesResponse, PolicyError> {
        admitted!(self, rpc::ATTACH_PACKAGES, attach_packages, token, request)
    }
}
