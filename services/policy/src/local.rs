//! The real implementation over the store: verify the caller, read the persisted
//! configuration afresh, decide with the pure access core.

use std::sync::Arc;

use async_trait::async_trait;
use neuralis_access::{Caller, Evaluation, EvaluationRequest, decide};
use neuralis_access_store::{AccessStore, OverrideTarget, SnapshotQuery};
use neuralis_identity::Verifier;
use neuralis_proto::policy::v1 as pb;

use crate::authorize::{self, Authority};
use crate::convert::{self, admin};
use crate::{BearerToken, PolicyApi, PolicyError};

/// The policy service in-process: the all-in-one binary calls it directly.
pub struct LocalPolicy {
    store: Arc<dyn AccessStore>,
    verifier: Arc<Verifier>,
    authority: Authority,
}

impl LocalPolicy {
    /// A policy service over `store`, verifying callers with `verifier`.
    pub fn new(
        store: Arc<dyn AccessStore>,
        verifier: Arc<Verifier>,
        admin_roles: &[String],
    ) -> Self {
        LocalPolicy {
            store,
            verifier,
            authority: Authority::new(admin_roles),
        }
    }

    /// The verified caller of `token`, or UNAUTHENTICATED. The reason is logged as a
    /// fixed phrase; the token never is.
    fn caller(&self, token: &BearerToken) -> Result<Caller, PolicyError> {
        self.verifier.verify_bearer(token).map_err(|error| {
            tracing::info!(reason = %error, "caller not verified");
            PolicyError::Unauthenticated
        })
    }

    fn admin(&self, token: &BearerToken) -> Result<Caller, PolicyError> {
        let caller = self.caller(token)?;
        self.authority.require_admin(&caller)?;
        Ok(caller)
    }

    /// Decides one batch in domain terms (the in-process path, no wire conversion).
    pub async fn evaluate_batch(
        &self,
        token: &BearerToken,
        conversation: Option<&str>,
        request: &EvaluationRequest,
    ) -> Result<Evaluation, PolicyError> {
        let caller = self.caller(token)?;
        self.evaluate_for(&caller, conversation.map(str::to_owned), request)
            .await
    }

    /// Reads everything one batch needs in one consistent read, then decides.
    async fn evaluate_for(
        &self,
        caller: &Caller,
        conversation: Option<String>,
        request: &EvaluationRequest,
    ) -> Result<Evaluation, PolicyError> {
        authorize::check_project(caller, &request.project)?;
        let conversation = authorize::conversation(caller, conversation)?;
        let batch = request.check()?;
        let query = SnapshotQuery {
            project: request.project.clone(),
            role: caller.role.clone(),
            agent: caller.agent.clone(),
            conversation,
            source_ids: request
                .sources
                .iter()
                .map(|source| source.id.clone())
                .collect(),
        };
        let snapshot = self.store.snapshot(&query).await?;
        let evaluation = decide(caller, &snapshot, &batch);
        tracing::debug!(
            packages = evaluation.packages.len(),
            files = evaluation.files.len(),
            "evaluated"
        );
        Ok(evaluation)
    }
}

#[async_trait]
impl PolicyApi for LocalPolicy {
    async fn put_source_policy(
        &self,
        token: BearerToken,
        request: pb::PutSourcePolicyRequest,
    ) -> Result<pb::PutSourcePolicyResponse, PolicyError> {
        self.admin(&token)?;
        let source_id = convert::required(request.source_id, "source_id")?;
        let policy = convert::policy_from_proto(
            request
                .policy
                .ok_or_else(|| PolicyError::invalid("policy", "is required"))?,
        );
        policy
            .validate()
            .map_err(|error| PolicyError::from(error.within("policy")))?;
        let stored = self.store.put_source_policy(&source_id, &policy).await?;
        tracing::info!(
            source_id,
            rules = stored.paths.len(),
            "source policy stored"
        );
        Ok(pb::PutSourcePolicyResponse {
            policy: Some(convert::policy_to_proto(&stored)),
        })
    }

    async fn get_source_policy(
        &self,
        token: BearerToken,
        request: pb::GetSourcePolicyRequest,
    ) -> Result<pb::GetSourcePolicyResponse, PolicyError> {
        self.admin(&token)?;
        let source_id = convert::required(request.source_id, "source_id")?;
        let record = self
            .store
            .source(&source_id)
            .await?
            .ok_or_else(|| PolicyError::NotFound("source".into()))?;
        Ok(pb::GetSourcePolicyResponse {
            enabled: record.enabled,
            policy: record.policy.as_ref().map(convert::policy_to_proto),
        })
    }

    async fn set_source_enabled(
        &self,
        token: BearerToken,
        request: pb::SetSourceEnabledRequest,
    ) -> Result<pb::SetSourceEnabledResponse, PolicyError> {
        self.admin(&token)?;
        let source_id = convert::required(request.source_id, "source_id")?;
        self.store
            .set_source_enabled(&source_id, request.enabled)
            .await?;
        tracing::info!(source_id, enabled = request.enabled, "source switched");
        Ok(pb::SetSourceEnabledResponse {})
    }

    async fn put_role_grants(
        &self,
        token: BearerToken,
        request: pb::PutRoleGrantsRequest,
    ) -> Result<pb::PutRoleGrantsResponse, PolicyError> {
        self.admin(&token)?;
        let grants = admin::grants_from_proto(request)?;
        self.store.put_role_grants(&grants).await?;
        tracing::info!(grantor = %grants.grantor.key(), roles = grants.roles.len(), "role grants stored");
        Ok(pb::PutRoleGrantsResponse {})
    }

    async fn set_package_enabled(
        &self,
        token: BearerToken,
        request: pb::SetPackageEnabledRequest,
    ) -> Result<pb::SetPackageEnabledResponse, PolicyError> {
        let caller = self.admin(&token)?;
        let project = convert::required(request.project_id, "project_id")?;
        authorize::check_project(&caller, &project)?;
        let package_key = convert::required(request.package_key, "package_key")?;
        self.store
            .set_package_enabled(&project, &package_key, request.enabled)
            .await?;
        Ok(pb::SetPackageEnabledResponse {})
    }

    async fn set_file_override(
        &self,
        token: BearerToken,
        request: pb::SetFileOverrideRequest,
    ) -> Result<pb::SetFileOverrideResponse, PolicyError> {
        let caller = self.caller(&token)?;
        let (target, file, state) = admin::override_from_proto(request)?;
        match &target {
            OverrideTarget::Agent(_) => self.authority.require_admin(&caller)?,
            OverrideTarget::Conversation(id) => {
                authorize::conversation(&caller, Some(id.clone()))?;
            }
        }
        self.store.set_file_override(&target, &file, state).await?;
        Ok(pb::SetFileOverrideResponse {})
    }

    async fn register_conversation(
        &self,
        token: BearerToken,
        request: pb::RegisterConversationRequest,
    ) -> Result<pb::RegisterConversationResponse, PolicyError> {
        let caller = self.caller(&token)?;
        let record = admin::conversation_from_proto(request)?;
        authorize::check_project(&caller, &record.project)?;
        self.store.register_conversation(&record).await?;
        Ok(pb::RegisterConversationResponse {})
    }

    async fn evaluate(
        &self,
        token: BearerToken,
        request: pb::EvaluateRequest,
    ) -> Result<pb::EvaluateResponse, PolicyError> {
        let caller = self.caller(&token)?;
        let (batch, conversation) = convert::batch_from_proto(request)?;
        let evaluation = self.evaluate_for(&caller, conversation, &batch).await?;
        Ok(convert::evaluation_to_proto(evaluation))
    }
}
