//! The `Scope` of a request, validated, and what a verified caller may ask for in it.

use neuralis_proto::bounds;
use neuralis_proto::discovery::v1 as pb;

use std::collections::HashMap;

use crate::base::error::DiscoveryError;
use crate::base::ports::PackageSource;

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
/// capabilities to that user or agent alone"). `sources` holds, per package candidate,
/// the flagged source it was found in; a package installed on the host has none and
/// is left as decided. One id found in several sources that reach the caller: the
/// narrowest scope's wins (agent, then user, then project; then the first source),
/// the others are hidden, so the caller gets that id once.
pub(crate) fn hide_beyond_source_scope(
    request: &neuralis_access::EvaluationRequest,
    evaluation: &mut neuralis_access::Evaluation,
    caller: &neuralis_access::Caller,
    sources: &[Option<PackageSource>],
) {
    let reaches = |at: usize| {
        sources
            .get(at)
            .and_then(Option::as_ref)
            .map(|from| from.scope.reaches(caller, &request.project))
    };
    let mut hidden: Vec<bool> = (0..request.packages.len())
        .map(|at| reaches(at) == Some(false))
        .collect();
    // Per id, the reaching candidate kept: the narrowest scope, then the first.
    let mut kept: HashMap<&str, usize> = HashMap::new();
    for (at, package) in request.packages.iter().enumerate() {
        if reaches(at) != Some(true) {
            continue;
        }
        let Some(&held) = kept.get(package.key.as_str()) else {
            kept.insert(&package.key, at);
            continue;
        };
        let (loser, winner) = if narrowness(sources, at) < narrowness(sources, held) {
            (held, at)
        } else {
            (at, held)
        };
        hidden[loser] = true;
        kept.insert(&package.key, winner);
    }
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

/// How narrow the scope of candidate `at`'s source is: 0 for an agent, 1 for a user,
/// 2 for a project (the narrower wins an id found in two sources).
fn narrowness(sources: &[Option<PackageSource>], at: usize) -> u8 {
    match sources
        .get(at)
        .and_then(Option::as_ref)
        .map(|s| s.scope.scope)
    {
        Some(neuralis_access::Scope::Agent) => 0,
        Some(neuralis_access::Scope::User) => 1,
        _ => 2,
    }
}
