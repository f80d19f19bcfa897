//! [`AccessPort`] over the policy service's tonic-free API (in-process or gRPC), with
//! discovery's service credential: `Evaluate` answers services only. In the all-in-one
//! process, [`LinkedAccess`] asks the policy service linked beside discovery in domain
//! terms: no wire messages, the credential decided once when the two were linked.

use std::sync::Arc;

use async_trait::async_trait;
use neuralis_access::{Caller, Evaluation, EvaluationRequest, KeptBatch};
use neuralis_identity::ServiceSigner;
use neuralis_policy::convert::batch::{batch_to_proto, evaluation_from_proto};
use neuralis_policy::{LinkedEvaluate, PolicyApi, PolicyError};

use crate::base::error::DiscoveryError;
use crate::base::ports::AccessPort;

/// Access decided by the policy service.
#[derive(Clone)]
pub struct PolicyAccess {
    policy: Arc<dyn PolicyApi>,
    signer: Arc<ServiceSigner>,
}

impl PolicyAccess {
    /// Asks `policy`, presenting the credential `signer` mints.
    pub fn new(policy: Arc<dyn PolicyApi>, signer: Arc<ServiceSigner>) -> Self {
        Self { policy, signer }
    }
}

/// Policy's errors as discovery answers them. Whatever went wrong, discovery never
/// answers unfiltered: a refused service credential is a deployment fault (UNAVAILABLE,
/// logged), never an answer; a bad field is named.
fn from_policy(error: PolicyError) -> DiscoveryError {
    match error {
        PolicyError::InvalidArgument { field, message } => DiscoveryError::invalid(field, message),
        PolicyError::Unauthenticated | PolicyError::PermissionDenied(_) => {
            tracing::error!("policy refused discovery's service credential");
            DiscoveryError::Unavailable("policy refused the service credential".into())
        }
        other => DiscoveryError::Unavailable(format!("policy: {other}")),
    }
}

#[async_trait]
impl AccessPort for PolicyAccess {
    async fn evaluate(
        &self,
        caller: &Caller,
        conversation: Option<&str>,
        request: &EvaluationRequest,
    ) -> Result<Evaluation, DiscoveryError> {
        let wire = batch_to_proto(request, conversation, caller);
        let credential = self
            .signer
            .credential()
            .map_err(|error| DiscoveryError::Internal(format!("service credential: {error}")))?;
        let response = self
            .policy
            .evaluate(credential, wire)
            .await
            .map_err(from_policy)?;
        evaluation_from_proto(response, request).map_err(from_policy)
    }

    async fn rekey_packages(
        &self,
        source_id: &str,
        moves: &[neuralis_layout::naming::KeyMove],
    ) -> Result<bool, DiscoveryError> {
        let credential = self
            .signer
            .credential()
            .map_err(|error| DiscoveryError::Internal(format!("service credential: {error}")))?;
        let request = neuralis_proto::policy::v1::RekeyPackagesRequest {
            source_id: source_id.to_owned(),
            moves: moves
                .iter()
                .map(|m| neuralis_proto::policy::v1::PackageKeyMove {
                    legacy_key: m.legacy.clone(),
                    key: m.key.clone(),
                })
                .collect(),
        };
        let response = self
            .policy
            .rekey_packages(credential, request)
            .await
            .map_err(from_policy)?;
        Ok(response.rekeyed)
    }
}

/// Access decided by the policy service of this process, called in domain terms.
#[derive(Clone)]
pub struct LinkedAccess {
    policy: LinkedEvaluate,
    /// The rare calls (a source's key moves, once), through policy's API and gate with
    /// discovery's credential as on the wire path: only `Evaluate` is hot enough to
    /// be linked.
    rare: PolicyAccess,
}

impl LinkedAccess {
    /// Asks `policy` (see [`neuralis_policy::InProcessPolicy::linked_evaluate`]) for
    /// decisions and `rare` for everything else.
    pub fn new(policy: LinkedEvaluate, rare: PolicyAccess) -> Self {
        Self { policy, rare }
    }
}

#[async_trait]
impl AccessPort for LinkedAccess {
    async fn evaluate(
        &self,
        caller: &Caller,
        conversation: Option<&str>,
        request: &EvaluationRequest,
    ) -> Result<Evaluation, DiscoveryError> {
        // `assemble` refuses decisions that do not match the batch, as on the wire path.
        self.policy
            .evaluate(caller, conversation, request)
            .await
            .map_err(from_policy)
    }

    async fn evaluate_kept(
        &self,
        caller: &Caller,
        conversation: Option<&str>,
        kept: &KeptBatch,
    ) -> Result<Evaluation, DiscoveryError> {
        // The same library checked it once, in this process: policy decides it as is.
        self.policy
            .evaluate_kept(caller, conversation, kept)
            .await
            .map_err(from_policy)
    }

    async fn rekey_packages(
        &self,
        source_id: &str,
        moves: &[neuralis_layout::naming::KeyMove],
    ) -> Result<bool, DiscoveryError> {
        self.rare.rekey_packages(source_id, moves).await
    }
}
