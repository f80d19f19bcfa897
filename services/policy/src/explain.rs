//! ExplainAccess (issue 30 item 1): why one file is decided as it is for a described
//! caller. It reads the store exactly as Evaluate does and runs the same evaluation,
//! told to a recorder (`neuralis_access::explain`), so its state is Evaluate's.

use neuralis_access::explain;
use neuralis_authz::Permit;
use neuralis_proto::policy::v1 as pb;

use crate::local::{LocalPolicy, snapshot_query};
use crate::{PolicyError, caller_scope, convert};

impl LocalPolicy {
    /// Explains one file for a described caller (administrators of the project): the
    /// same snapshot read and the same evaluation as Evaluate, told to a recorder.
    pub async fn explain_access(
        &self,
        permit: &Permit,
        mut request: pb::ExplainAccessRequest,
    ) -> Result<pb::ExplainAccessResponse, PolicyError> {
        if !request.caller_token.is_empty() {
            request.caller = Some(self.described_by_token(&request)?);
        }
        let call = convert::explain::explain_call(request)?;
        permit.for_project(&call.batch.project)?;
        for source in &call.batch.sources {
            check_source_of_project(&source.id, &call.batch.project)?;
        }
        let caller = &call.caller;
        caller_scope::check_project(caller, &call.batch.project)?;
        let conversation = caller_scope::conversation(caller, call.conversation)?;
        let batch = call.batch.check()?;
        let snapshot = self
            .store
            .snapshot(&snapshot_query(caller, conversation, &call.batch))
            .await?;
        let explanation = explain(caller, &snapshot, &batch, Some(&self.compiled))?;
        Ok(convert::explain::explanation_to_proto(explanation))
    }

    /// The caller a token describes, verified like any caller token: its claims, when
    /// it is bound to the project explained (or platform-wide). Never both a token and a
    /// described caller; the token itself never reaches an error or a log line.
    fn described_by_token(
        &self,
        request: &pb::ExplainAccessRequest,
    ) -> Result<pb::CallerScope, PolicyError> {
        const FIELD: &str = "caller_token";
        if request.caller.is_some() {
            return Err(PolicyError::invalid(
                FIELD,
                "give a caller or a token, not both",
            ));
        }
        neuralis_proto::bounds::at_most(FIELD, &request.caller_token, 16 * 1024)
            .map_err(|refused| PolicyError::invalid(refused.field, refused.message))?;
        let verifier = self
            .callers
            .as_ref()
            .ok_or_else(|| PolicyError::invalid(FIELD, "is not accepted by this server"))?;
        let identity = verifier
            .verify_identity(&request.caller_token)
            .map_err(|_| PolicyError::invalid(FIELD, "is not a valid caller token"))?;
        let bound = identity.caller.project.as_deref();
        if !identity.platform && bound != Some(request.project_id.as_str()) {
            return Err(PolicyError::invalid(FIELD, "is bound to another project"));
        }
        Ok(convert::caller::caller_to_proto(&identity.caller))
    }
}

/// A source explained belongs to the project asked in: its id is `<project>/...`, as
/// sync gives every source. Evaluate's headers come from sync's records; these come
/// from the administrator, who must not reach another project's stored state (its
/// switch, its rules' patterns) by naming its source here. A URI scope
/// (`packages://...`) is no source: an installed package is explained without one.
fn check_source_of_project(source_id: &str, project: &str) -> Result<(), PolicyError> {
    match source_id.split_once('/') {
        Some((owner, _)) if owner == project && !source_id.contains("://") => Ok(()),
        _ => Err(PolicyError::invalid(
            "source.source_id",
            "is not a source of the project asked in",
        )),
    }
}
