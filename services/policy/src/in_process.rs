//! [`PolicyApi`] in process: the all-in-one process calls its own policy service through
//! the same gate as a gRPC call, so a credential is decided the same way on both paths.
//! [`LinkedEvaluate`] is `Evaluate` for discovery linked into the same process, in
//! domain terms.

use std::sync::Arc;

use async_trait::async_trait;
use neuralis_access::{Caller, Evaluation, EvaluationRequest, KeptBatch};
use neuralis_authz::tables::policy as rpc;
use neuralis_authz::{Gate, Permit};
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

    /// `Evaluate` for a service linked into this process, its credential decided by the
    /// gate now, once (the all-in-one wiring: a refused credential fails the start).
    pub fn linked_evaluate(&self, credential: &BearerToken) -> Result<LinkedEvaluate, PolicyError> {
        Ok(LinkedEvaluate {
            permit: self.gate.admit_bearer(rpc::EVALUATE, credential)?,
            local: Arc::clone(&self.local),
        })
    }
}

/// `Evaluate` in domain terms for a service in the same process (discovery in the
/// all-in-one process): no request or answer is encoded, and no credential is verified
/// per call. What a call over the boundary proves with its credential (a service may
/// ask), the wiring proved once, through the same gate, when it linked the two; the
/// permit it holds is for `Evaluate` alone. Every decision is still made afresh, for
/// the caller the linked service verified with its own gate and hands over as is, in
/// the project that caller is bound to, from the store read now.
#[derive(Clone)]
pub struct LinkedEvaluate {
    permit: Permit,
    local: Arc<LocalPolicy>,
}

impl std::fmt::Debug for LinkedEvaluate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkedEvaluate").finish_non_exhaustive()
    }
}

impl LinkedEvaluate {
    /// Decides `request` for `caller` (verified by the linked service's gate).
    pub async fn evaluate(
        &self,
        caller: &Caller,
        conversation: Option<&str>,
        request: &EvaluationRequest,
    ) -> Result<Evaluation, PolicyError> {
        self.local
            .evaluate_batch(
                &self.permit,
                caller,
                conversation.map(str::to_owned),
                request,
            )
            .await
    }

    /// [`LinkedEvaluate::evaluate`] of a batch the linked service checked once and
    /// keeps (the check is the same library's, in the same process).
    pub async fn evaluate_kept(
        &self,
        caller: &Caller,
        conversation: Option<&str>,
        kept: &KeptBatch,
    ) -> Result<Evaluation, PolicyError> {
        self.local
            .evaluate_kept(&self.permit, caller, conversation.map(str::to_owned), kept)
            .await
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

    async fn rekey_packages(
        &self,
        token: BearerToken,
        request: pb::RekeyPackagesRequest,
    ) -> Result<pb::RekeyPackagesResponse, PolicyError> {
        admitted!(self, rpc::REKEY_PACKAGES, rekey_packages, token, request)
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

    async fn explain_access(
        &self,
        token: BearerToken,
        request: pb::ExplainAccessRequest,
    ) -> Result<pb::ExplainAccessResponse, PolicyError> {
        admitted!(self, rpc::EXPLAIN_ACCESS, explain_access, token, request)
    }
}
