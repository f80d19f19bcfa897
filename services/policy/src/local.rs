//! The real implementation over the store: each call holds the permit its rule issued
//! (`neuralis-authz`, table `policy`), takes the binding step the rule names, reads the
//! persisted configuration afresh and decides with the pure access core.

use std::sync::Arc;

use neuralis_access::{
    Caller, CheckedBatch, Evaluation, EvaluationRequest, KeptBatch, PolicyCache, decide_cached,
};
use neuralis_access_store::{AccessStore, OverrideTarget, SnapshotQuery};
use neuralis_authz::{Permit, Refusal};
use neuralis_proto::policy::v1 as pb;

use crate::PolicyError;
use crate::caller_scope;
use crate::convert::{self, admin};

/// The policy service's handlers.
pub struct LocalPolicy {
    pub(crate) store: Arc<dyn AccessStore>,
    /// Compiled forms of the policies last read, reused only while the policy read
    /// afresh for a request equals the one compiled (`neuralis_access::policy_cache`).
    pub(crate) compiled: PolicyCache,
    /// Verifies a caller token `ExplainAccess` is given to describe a caller; none
    /// refuses such a request.
    pub(crate) callers: Option<Arc<neuralis_identity::Verifier>>,
}

impl LocalPolicy {
    /// The handlers over `store`.
    pub fn new(store: Arc<dyn AccessStore>) -> Self {
        LocalPolicy {
            store,
            compiled: PolicyCache::new(),
            callers: None,
        }
    }

    /// Caller tokens given to `ExplainAccess` are verified with `callers`.
    pub fn verifying_callers(mut self, callers: Arc<neuralis_identity::Verifier>) -> Self {
        self.callers = Some(callers);
        self
    }

    /// The store it reads (readiness probes it).
    pub fn store(&self) -> Arc<dyn AccessStore> {
        self.store.clone()
    }

    /// Reads everything one batch needs in one consistent read, then decides.
    async fn evaluate_for(
        &self,
        caller: &Caller,
        conversation: Option<String>,
        request: &EvaluationRequest,
    ) -> Result<Evaluation, PolicyError> {
        self.decide_for(caller, conversation, &request.check()?)
            .await
    }

    /// [`LocalPolicy::evaluate_for`] of a batch already checked.
    async fn decide_for(
        &self,
        caller: &Caller,
        conversation: Option<String>,
        batch: &CheckedBatch<'_>,
    ) -> Result<Evaluation, PolicyError> {
        let request = batch.request();
        caller_scope::check_project(caller, &request.project)?;
        let conversation = caller_scope::conversation(caller, conversation)?;
        let query = snapshot_query(caller, conversation, request);
        let snapshot = self.store.snapshot(&query).await?;
        let evaluation = decide_cached(caller, &snapshot, batch, &self.compiled);
        count_decisions(&evaluation);
        tracing::debug!(
            packages = evaluation.packages.len(),
            files = evaluation.files.len(),
            "evaluated"
        );
        Ok(evaluation)
    }

    /// Replaces a source's URI policy (administrators of the source's project).
    pub async fn put_source_policy(
        &self,
        permit: &Permit,
        request: pb::PutSourcePolicyRequest,
    ) -> Result<pb::PutSourcePolicyResponse, PolicyError> {
        let source_id = convert::source_id(request.source_id, "source_id")?;
        permit.for_source(&source_id)?;
        let policy = request
            .policy
            .ok_or_else(|| PolicyError::invalid("policy", "is required"))?;
        convert::check_bounds(&policy, "policy")?;
        let policy = convert::policy_from_proto(policy);
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

    /// A source's switch and policy (administrators of the source's project).
    pub async fn get_source_policy(
        &self,
        permit: &Permit,
        request: pb::GetSourcePolicyRequest,
    ) -> Result<pb::GetSourcePolicyResponse, PolicyError> {
        let source_id = convert::source_id(request.source_id, "source_id")?;
        permit.for_source(&source_id)?;
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

    /// Switches a source (administrators of the source's project).
    pub async fn set_source_enabled(
        &self,
        permit: &Permit,
        request: pb::SetSourceEnabledRequest,
    ) -> Result<pb::SetSourceEnabledResponse, PolicyError> {
        let source_id = convert::source_id(request.source_id, "source_id")?;
        permit.for_source(&source_id)?;
        self.store
            .set_source_enabled(&source_id, request.enabled)
            .await?;
        tracing::info!(source_id, enabled = request.enabled, "source switched");
        Ok(pb::SetSourceEnabledResponse {})
    }

    /// Forgets a source (services only: sync calls it before it deletes the source's
    /// rows, so a source recreated later starts with no policy and no state). The id must
    /// name a project and a source: the keys forgotten are those under `<source_id>/`,
    /// and a bare project would reach every source of the project.
    pub async fn forget_source(
        &self,
        permit: &Permit,
        request: pb::ForgetSourceRequest,
    ) -> Result<pb::ForgetSourceResponse, PolicyError> {
        let source_id = convert::source_id(request.source_id, "source_id")?;
        let names_a_source = source_id
            .split_once('/')
            .is_some_and(|(project, source)| !project.is_empty() && !source.is_empty());
        if !names_a_source {
            return Err(PolicyError::invalid(
                "source_id",
                "must be `<project>/<source>`",
            ));
        }
        permit.for_source(&source_id)?;
        self.store.forget_source(&source_id).await?;
        tracing::info!(source_id, "source forgotten");
        Ok(pb::ForgetSourceResponse {})
    }

    /// Moves a source's package states and overrides from legacy package keys to the
    /// stable ones, once per source (services only; issue 10). Keys are single segments
    /// of a package key, never a path: a key with `/` would reach another source's rows.
    pub async fn rekey_packages(
        &self,
        permit: &Permit,
        request: pb::RekeyPackagesRequest,
    ) -> Result<pb::RekeyPackagesResponse, PolicyError> {
        let source_id = convert::source_id(request.source_id, "source_id")?;
        permit.for_source(&source_id)?;
        let mut moves = Vec::with_capacity(request.moves.len());
        for (index, item) in request.moves.into_iter().enumerate() {
            let field = format!("moves[{index}]");
            let legacy = convert::required(item.legacy_key, &format!("{field}.legacy_key"))?;
            let key = convert::required(item.key, &format!("{field}.key"))?;
            for (name, value) in [("legacy_key", &legacy), ("key", &key)] {
                if value.contains('/') {
                    return Err(PolicyError::invalid(
                        format!("{field}.{name}"),
                        "must be one package key, without `/`",
                    ));
                }
            }
            moves.push(neuralis_access_store::PackageKeyMove { legacy, key });
        }
        let rekeyed = self.store.rekey_packages(&source_id, &moves).await?;
        if rekeyed {
            tracing::info!(
                source_id,
                moved = moves.len(),
                "package keys moved to stable keys"
            );
        }
        Ok(pb::RekeyPackagesResponse { rekeyed })
    }

    /// Replaces a grantor's role grants in one project (administrators of the project)
    /// or, with no project, in every project (platform-wide administrators).
    pub async fn put_role_grants(
        &self,
        permit: &Permit,
        request: pb::PutRoleGrantsRequest,
    ) -> Result<pb::PutRoleGrantsResponse, PolicyError> {
        let admin::GrantsCall {
            project,
            grants,
            revoked,
        } = admin::grants_from_proto(request)?;
        match &project {
            Some(project) => permit.for_project(project)?,
            None => permit.for_every_project()?,
        };
        if grants.grantor == neuralis_access::Grantor::Administrator {
            // The administrator's per-role override is their grants and their
            // revocations of package defaults, replaced together.
            self.store
                .put_administrator_grants(project.as_deref(), &grants.roles, &revoked)
                .await?;
        } else {
            self.store
                .put_role_grants(project.as_deref(), &grants)
                .await?;
        }
        tracing::info!(
            grantor = %grants.grantor.key(),
            project = project.as_deref().unwrap_or("*"),
            roles = grants.roles.len(),
            "role grants stored"
        );
        Ok(pb::PutRoleGrantsResponse {})
    }

    /// Attaches installed packages' access declarations (services only: discovery at
    /// catalog load), each in its own transaction.
    pub async fn attach_packages(
        &self,
        permit: &Permit,
        request: pb::AttachPackagesRequest,
    ) -> Result<pb::AttachPackagesResponse, PolicyError> {
        permit.for_every_project()?;
        let complete = request.complete;
        let packages = convert::attach::attachments_from_proto(request)?;
        if complete {
            // Removed packages first: a package never grants past its removal.
            let installed = packages.iter().map(|p| p.package_id.clone()).collect();
            self.store.retire_packages(&installed).await?;
        }
        for defaults in &packages {
            self.store.attach_package(defaults).await?;
            tracing::info!(
                package = %defaults.package_id,
                roles = defaults.default_role_grants.len(),
                scopes = defaults.baselines.len(),
                "package access attached"
            );
        }
        Ok(pb::AttachPackagesResponse {})
    }

    /// A package's state in a project, set or forgotten (administrators of the project).
    pub async fn set_package_enabled(
        &self,
        permit: &Permit,
        request: pb::SetPackageEnabledRequest,
    ) -> Result<pb::SetPackageEnabledResponse, PolicyError> {
        let project = convert::project_id(request.project_id, "project_id")?;
        permit.for_project(&project)?;
        let package_key = convert::required(request.package_key, "package_key")?;
        match (request.reset, request.enabled) {
            (true, true) => {
                return Err(PolicyError::invalid(
                    "enabled",
                    "must be false with reset: a reset forgets the state",
                ));
            }
            (true, false) => {
                self.store
                    .forget_package_state(&project, &package_key)
                    .await?
            }
            (false, enabled) => {
                self.store
                    .set_package_enabled(&project, &package_key, enabled)
                    .await?
            }
        }
        Ok(pb::SetPackageEnabledResponse {})
    }

    /// One file's override: at agent scope by a platform-wide administrator; at
    /// conversation scope by a caller of the conversation's project entitled to it.
    pub async fn set_file_override(
        &self,
        permit: &Permit,
        request: pb::SetFileOverrideRequest,
    ) -> Result<pb::SetFileOverrideResponse, PolicyError> {
        let (target, file, state) = admin::override_from_proto(request)?;
        match &target {
            OverrideTarget::Agent(_) => {
                permit.for_agent_override()?;
            }
            OverrideTarget::Conversation { project, id } => {
                // Conversation ids are per project. A caller of another project, a
                // conversation never registered in the named project, and one the caller
                // is not bound to all answer alike: nothing tells whether an id is in use.
                let foreign = || {
                    PolicyError::PermissionDenied(
                        "the conversation is not registered in the token's project".into(),
                    )
                };
                permit
                    .for_conversation(project, id)
                    .map_err(|refusal| match refusal {
                        Refusal::OtherProject => foreign(),
                        other => other.into(),
                    })?;
                self.store
                    .conversation(project, id)
                    .await?
                    .ok_or_else(foreign)?;
            }
        }
        self.store.set_file_override(&target, &file, state).await?;
        Ok(pb::SetFileOverrideResponse {})
    }

    /// Registers a conversation in a project (callers of the project).
    pub async fn register_conversation(
        &self,
        permit: &Permit,
        request: pb::RegisterConversationRequest,
    ) -> Result<pb::RegisterConversationResponse, PolicyError> {
        let record = admin::conversation_from_proto(request)?;
        permit.for_project(&record.project)?;
        self.store.register_conversation(&record).await?;
        Ok(pb::RegisterConversationResponse {})
    }

    /// Decides one batch for the caller the request names (services only).
    pub async fn evaluate(
        &self,
        permit: &Permit,
        request: pb::EvaluateRequest,
    ) -> Result<pb::EvaluateResponse, PolicyError> {
        let call = convert::batch_from_proto(request)?;
        let evaluation = self
            .evaluate_batch(permit, &call.caller, call.conversation, &call.batch)
            .await?;
        Ok(convert::evaluation_to_proto(evaluation))
    }

    /// Decides one batch in domain terms (the in-process path, no wire conversion).
    pub async fn evaluate_batch(
        &self,
        permit: &Permit,
        caller: &Caller,
        conversation: Option<String>,
        request: &EvaluationRequest,
    ) -> Result<Evaluation, PolicyError> {
        permit.for_project(&request.project)?;
        self.evaluate_for(caller, conversation, request).await
    }

    /// [`LocalPolicy::evaluate_batch`] of a batch checked once and kept by the linked
    /// service (discovery keeps one per prepared answer): decided as a fresh check of
    /// it would be, without checking it again.
    pub async fn evaluate_kept(
        &self,
        permit: &Permit,
        caller: &Caller,
        conversation: Option<String>,
        kept: &KeptBatch,
    ) -> Result<Evaluation, PolicyError> {
        permit.for_project(&kept.request().project)?;
        self.decide_for(caller, conversation, &kept.batch()).await
    }
}

/// What one batch reads of the store, in one consistent read.
pub(crate) fn snapshot_query(
    caller: &Caller,
    conversation: Option<String>,
    request: &EvaluationRequest,
) -> SnapshotQuery {
    SnapshotQuery {
        project: request.project.clone(),
        role: caller.role.clone(),
        agent: caller.agent.clone(),
        conversation,
        // Installed packages' attached policies are read like sources' (seed 002,
        // "uriPolicies": baselines seeded "into source configuration at first attach").
        source_ids: request
            .sources
            .iter()
            .map(|source| source.id.clone())
            .chain(
                request
                    .packages
                    .iter()
                    .filter(|package| package.origin == neuralis_access::Origin::Installed)
                    .map(|package| neuralis_access::installed_scope(&package.key)),
            )
            // The package zones a data source's files lie in (seed 002, `data://<self>`).
            .chain(neuralis_access::data_zone::zone_scopes(request))
            .collect(),
    }
}

/// Counts a batch's decisions by kind and outcome (one update per pair, not per file).
fn count_decisions(evaluation: &Evaluation) {
    use neuralis_access::DecisionCode;
    use neuralis_metrics::{Candidate, Decision};
    for (candidate, decisions) in [
        (Candidate::Package, &evaluation.packages),
        (Candidate::File, &evaluation.files),
    ] {
        let mut counts = [0u64; 5];
        for decision in decisions {
            let slot = match decision.code {
                DecisionCode::Hidden => 0,
                DecisionCode::VisibleActive => 1,
                DecisionCode::VisibleOptIn => 2,
                DecisionCode::VisibleDisabled => 3,
                DecisionCode::VisibleManual => 4,
            };
            counts[slot] += 1;
        }
        let outcomes = [
            Decision::Hidden,
            Decision::Active,
            Decision::OptIn,
            Decision::Disabled,
            Decision::Manual,
        ];
        for (outcome, count) in outcomes.into_iter().zip(counts) {
            neuralis_metrics::policy_decisions(candidate, outcome, count);
        }
    }
}
