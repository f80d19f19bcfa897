//! The `Scope` of a request, validated, and what a verified caller may ask for in it.

use neuralis_proto::bounds;
use neuralis_proto::discovery::v1 as pb;

use crate::base::error::DiscoveryError;

/// The validated `Scope` of a request.
pub(crate) struct Scope {
    pub project: String,
    pub agent: Option<String>,
    pub conversation: Option<String>,
}

impl Scope {
    /// Why a verified caller may still not ask for this scope: its token is bound to
    /// another project, agent or conversation. Such a call is answered empty.
    pub(crate) fn mismatch(&self, caller: &neuralis_access::Caller) -> Option<&'static str> {
        let differs = |bound: &Option<String>, asked: &Option<String>| match (bound, asked) {
            (Some(bound), Some(asked)) => bound != asked,
            _ => false,
        };
        if caller.project.as_deref().is_some_and(|p| p != self.project) {
            return Some("project_mismatch");
        }
        // The token decides which agent the caller acts as; asking as another is refused.
        if self.agent.is_some() && caller.agent != self.agent {
            return Some("agent_mismatch");
        }
        if differs(&caller.conversation, &self.conversation) {
            return Some("conversation_mismatch");
        }
        None
    }
}

/// The project of an already-validated scope.
pub(crate) fn project_of(scope: &Option<pb::Scope>) -> &str {
    scope.as_ref().map_or("", |s| s.project_id.as_str())
}

pub(crate) fn validate_scope(scope: Option<&pb::Scope>) -> Result<Scope, DiscoveryError> {
    let Some(scope) = scope else {
        return Err(DiscoveryError::invalid("scope", "is required"));
    };
    if scope.project_id.trim().is_empty() {
        return Err(DiscoveryError::invalid("scope.project_id", "is required"));
    }
    bounds::project("scope.project_id", &scope.project_id)?;
    bounds::id("scope.agent_id", &scope.agent_id)?;
    bounds::id("scope.conversation_id", &scope.conversation_id)?;
    let conversation = Some(scope.conversation_id.clone()).filter(|c| !c.is_empty());
    let agent = Some(scope.agent_id.clone()).filter(|a| !a.is_empty());
    Ok(Scope {
        agent,
        project: scope.project_id.clone(),
        conversation,
    })
}

/// Hides, for `caller`, every package of the batch that came from a source its scope
/// does not reach, with its files (seed 000: a package source's "own scope then governs
/// who those packages are advertised to, so a user- or agent-scoped source contributes
/// capabilities to that user or agent alone"). `source_scope` names the scope of a
/// package's source; a package installed on the host has none and is left as decided.
pub(crate) fn hide_beyond_source_scope(
    request: &neuralis_access::EvaluationRequest,
    evaluation: &mut neuralis_access::Evaluation,
    caller: &neuralis_access::Caller,
    source_scope: impl Fn(&str) -> Option<neuralis_access::SourceScope>,
) {
    let hidden: Vec<bool> = request
        .packages
        .iter()
        .map(|package| {
            package.origin == neuralis_access::Origin::Installed
                && source_scope(&package.key)
                    .is_some_and(|scope| !scope.reaches(caller, &request.project))
        })
        .collect();
    if !hidden.contains(&true) {
        return;
    }
    let hide = neuralis_access::DecisionCode::Hidden;
    for decision in &mut evaluation.packages {
        if hidden.get(decision.index).copied().unwrap_or(false) {
            decision.code = hide;
        }
    }
    for decision in &mut evaluation.files {
        let package = request.files.get(decision.index).map(|file| file.package);
        if package.is_some_and(|at| hidden.get(at).copied().unwrap_or(false)) {
            decision.code = hide;
        }
    }
}
