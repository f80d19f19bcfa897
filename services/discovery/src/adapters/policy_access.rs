//! [`AccessPort`] over the policy service's tonic-free API (in-process or gRPC).

use std::sync::Arc;

use async_trait::async_trait;
use neuralis_access::{Evaluation, EvaluationRequest};
use neuralis_policy::convert::batch::{batch_to_proto, evaluation_from_proto};
use neuralis_policy::{BearerToken, PolicyApi, PolicyError};

use crate::api::{CallerToken, DiscoveryError};
use crate::ports::AccessPort;

/// Access decided by the policy service.
#[derive(Clone)]
pub struct PolicyAccess {
    policy: Arc<dyn PolicyApi>,
}

impl PolicyAccess {
    pub fn new(policy: Arc<dyn PolicyApi>) -> Self {
        Self { policy }
    }
}

/// Policy's errors as discovery answers them. Whatever went wrong, discovery never
/// answers unfiltered: an unverified caller is an empty answer upstream; everything
/// else is UNAVAILABLE (or a named bad field).
fn from_policy(error: PolicyError) -> DiscoveryError {
    match error {
        PolicyError::InvalidArgument { field, message } => DiscoveryError::invalid(field, message),
        PolicyError::Unauthenticated | PolicyError::PermissionDenied(_) => {
            DiscoveryError::Unauthenticated
        }
        other => DiscoveryError::Unavailable(format!("policy: {other}")),
    }
}

#[async_trait]
impl AccessPort for PolicyAccess {
    async fn evaluate(
        &self,
        caller: &CallerToken,
        conversation: Option<&str>,
        request: EvaluationRequest,
    ) -> Result<Evaluation, DiscoveryError> {
        let wire = batch_to_proto(&request, conversation);
        let token = BearerToken::new(caller.expose().map(str::to_owned));
        let response = self
            .policy
            .evaluate(token, wire)
            .await
            .map_err(from_policy)?;
        evaluation_from_proto(response, &request).map_err(from_policy)
    }
}
