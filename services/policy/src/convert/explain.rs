//! ExplainAccess on the wire: the request is one Evaluate batch of one file, so it is
//! read by the same conversion; the answer is the core's [`Explanation`].

use neuralis_access::{Effect, Explanation, Step, StepKind};
use neuralis_proto::policy::v1 as pb;

use super::batch::{EvaluateCall, batch_from_proto, code_to_proto};
use crate::PolicyError;

/// The request as an Evaluate call of one package and one file. An empty subject is the
/// role's: a described caller needs no user unless a user-scoped source is explained.
pub fn explain_call(request: pb::ExplainAccessRequest) -> Result<EvaluateCall, PolicyError> {
    let mut caller = request
        .caller
        .ok_or_else(|| PolicyError::invalid("caller", "is required"))?;
    if caller.subject.trim().is_empty() {
        caller.subject = caller.role.clone();
    }
    let package = request
        .package
        .ok_or_else(|| PolicyError::invalid("package", "is required"))?;
    let file = request
        .file
        .ok_or_else(|| PolicyError::invalid("file", "is required"))?;
    batch_from_proto(pb::EvaluateRequest {
        project_id: request.project_id,
        conversation_id: request.conversation_id,
        sources: request.source.into_iter().collect(),
        packages: vec![package],
        files: vec![pb::FileCandidate {
            package_index: 0,
            ..file
        }],
        caller: Some(caller),
    })
}

/// The explanation on the wire, the deciding step marked.
pub fn explanation_to_proto(explanation: Explanation) -> pb::ExplainAccessResponse {
    let deciding = explanation.deciding;
    pb::ExplainAccessResponse {
        code: code_to_proto(explanation.code).into(),
        steps: explanation
            .steps
            .into_iter()
            .enumerate()
            .map(|(at, step)| step_to_proto(step, deciding == Some(at)))
            .collect(),
    }
}

fn step_to_proto(step: Step, deciding: bool) -> pb::ExplainStep {
    let (effect, decides) = match step.effect {
        Effect::Passes => (pb::ExplainEffect::Passes, None),
        Effect::Hides => (pb::ExplainEffect::Hides, None),
        Effect::Overruled => (pb::ExplainEffect::Overruled, None),
        Effect::Decides(code) => (pb::ExplainEffect::Decides, Some(code_to_proto(code))),
    };
    pb::ExplainStep {
        kind: kind_to_proto(step.kind).into(),
        matched: step.matched,
        effect: effect.into(),
        decides: decides.map_or(0, i32::from),
        rule_index: step.rule.as_ref().map(|rule| rule.index),
        rule_pattern: step.rule.map(|rule| rule.pattern).unwrap_or_default(),
        deciding,
    }
}

fn kind_to_proto(kind: StepKind) -> pb::ExplainStepKind {
    use pb::ExplainStepKind as K;
    match kind {
        StepKind::SourceSwitch => K::SourceSwitch,
        StepKind::SourceScope => K::SourceScope,
        StepKind::UriRule => K::UriRule,
        StepKind::Floor => K::Floor,
        StepKind::ContentFlags => K::ContentFlags,
        StepKind::RoleGrant => K::RoleGrant,
        StepKind::RequiredFeatures => K::RequiredFeatures,
        StepKind::PrivacyOwner => K::PrivacyOwner,
        StepKind::PackageState => K::PackageState,
        StepKind::AgentOverride => K::AgentOverride,
        StepKind::ConversationOverride => K::ConversationOverride,
        StepKind::Default => K::Default,
        StepKind::Category => K::Category,
        StepKind::RealPath => K::RealPath,
        StepKind::DataZone => K::DataZone,
        StepKind::TrustTier => K::TrustTier,
    }
}
