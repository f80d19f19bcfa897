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
        request: pb::ExplainAccessRequest,
    ) -> Result<pb::ExplainAccessResponse, PolicyError> {
        let call = convert::explain::explain_call(request)?;
        permit.for_project(&call.batch.project)?;
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
}
