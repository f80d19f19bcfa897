//! [`PolicyApi`] over gRPC: split mode (discovery asking a remote policy) and the
//! command line call the same trait.

use async_trait::async_trait;
use neuralis_access::{Caller, Evaluation, EvaluationRequest};
use neuralis_host::peer::PeerChannel;
use neuralis_host::propagation::TracePropagation;
use neuralis_host::rpc::{TracedChannel, traced};
use neuralis_proto::policy::v1 as pb;
use pb::policy_service_client::PolicyServiceClient;
use tonic::service::interceptor::InterceptedService;

use super::status::from_status;
use crate::{BearerToken, PolicyApi, PolicyError, convert};

/// A policy client over one channel.
#[derive(Clone)]
pub struct PolicyGrpcClient {
    inner: PolicyServiceClient<InterceptedService<TracedChannel, TracePropagation>>,
}

impl PolicyGrpcClient {
    /// A client over `channel` (a bare channel, or a peer's balanced one with its
    /// deadline and retries), passing trace context on, accepting answers up to
    /// `max_message_bytes`.
    pub fn new(channel: impl Into<PeerChannel>, max_message_bytes: usize) -> Self {
        let inner = PolicyServiceClient::with_interceptor(traced(channel), TracePropagation)
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(max_message_bytes);
        PolicyGrpcClient { inner }
    }

    /// Decides a batch for `caller` in domain terms, presenting the service credential
    /// `token`: the wire answer is checked to hold exactly one decision per candidate,
    /// in order.
    pub async fn evaluate_batch(
        &self,
        token: BearerToken,
        caller: &Caller,
        conversation: Option<&str>,
        request: &EvaluationRequest,
    ) -> Result<Evaluation, PolicyError> {
        let response = self
            .evaluate(
                token,
                convert::batch_to_proto(request, conversation, caller),
            )
            .await?;
        convert::evaluation_from_proto(response, request)
    }
}

/// A request carrying the caller's token as `authorization: Bearer`.
fn with_token<T>(token: &BearerToken, message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Some(value) = token.header_value().and_then(|value| value.parse().ok()) {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

/// Calls one RPC with the token and maps the status back to the domain error.
macro_rules! call {
    ($self:ident, $method:ident, $token:ident, $request:ident) => {{
        let mut client = $self.inner.clone();
        let response = client.$method(with_token(&$token, $request)).await;
        response
            .map(tonic::Response::into_inner)
            .map_err(|status| from_status(&status))
    }};
}

#[async_trait]
impl PolicyApi for PolicyGrpcClient {
    async fn put_source_policy(
        &self,
        token: BearerToken,
        request: pb::PutSourcePolicyRequest,
    ) -> Result<pb::PutSourcePolicyResponse, PolicyError> {
        call!(self, put_source_policy, token, request)
    }

    async fn get_source_policy(
        &self,
        token: BearerToken,
        request: pb::GetSourcePolicyRequest,
    ) -> Result<pb::GetSourcePolicyResponse, PolicyError> {
        call!(self, get_source_policy, token, request)
    }

    async fn set_source_enabled(
        &self,
        token: BearerToken,
        request: pb::SetSourceEnabledRequest,
    ) -> Result<pb::SetSourceEnabledResponse, PolicyError> {
        call!(self, set_source_enabled, token, request)
    }

    async fn put_role_grants(
        &self,
        token: BearerToken,
        request: pb::PutRoleGrantsRequest,
    ) -> Result<pb::PutRoleGrantsResponse, PolicyError> {
        call!(self, put_role_grants, token, request)
    }

    async fn set_package_enabled(
        &self,
        token: BearerToken,
        request: pb::SetPackageEnabledRequest,
    ) -> Result<pb::SetPackageEnabledResponse, PolicyError> {
        call!(self, set_package_enabled, token, request)
    }

    async fn set_file_override(
        &self,
        token: BearerToken,
        request: pb::SetFileOverrideRequest,
    ) -> Result<pb::SetFileOverrideResponse, PolicyError> {
        call!(self, set_file_override, token, request)
    }

    async fn register_conversation(
        &self,
        token: BearerToken,
        request: pb::RegisterConversationRequest,
    ) -> Result<pb::RegisterConversationResponse, PolicyError> {
        call!(self, register_conversation, token, request)
    }

    async fn evaluate(
        &self,
        token: BearerToken,
        request: pb::EvaluateRequest,
    ) -> Result<pb::EvaluateResponse, PolicyError> {
        call!(self, evaluate, token, request)
    }

    async fn rekey_packages(
        &self,
        token: BearerToken,
        request: pb::RekeyPackagesRequest,
    ) -> Result<pb::RekeyPackagesResponse, PolicyError> {
        call!(self, rekey_packages, token, request)
    }

    async fn forget_source(
        &self,
        token: BearerToken,
        request: pb::ForgetSourceRequest,
    ) -> Result<pb::ForgetSourceResponse, PolicyError> {
        call!(self, forget_source, token, request)
    }

    async fn attach_packages(
        &self,
        token: BearerToken,
        request: pb::AttachPackagesRequest,
    ) -> Result<pb::AttachPackagesResponse, PolicyError> {
        call!(self, attach_packages, token, request)
    }

    async fn explain_access(
        &self,
        token: BearerToken,
        request: pb::ExplainAccessRequest,
    ) -> Result<pb::ExplainAccessResponse, PolicyError> {
        call!(self, explain_access, token, request)
    }
}
