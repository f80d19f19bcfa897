//! The words of the steps evaluation records ([`crate::recorder`]) for the gates that
//! are not URI rules: built only when a [`crate::recorder::Trace`] asks, so deciding
//! without one never formats anything.

use neuralis_layout::Category;

use crate::DecisionCode;
use crate::recorder::{Effect, Step, StepKind};
use crate::{AccessSnapshot, Caller, EvaluationRequest, FeatureSet, Origin, UriPolicy};
use crate::{CompiledPolicy, installed_scope};

fn gate(passes: bool) -> Effect {
    if passes {
        Effect::Passes
    } else {
        Effect::Hides
    }
}

/// The source switch (or installed scope) of a package: why its paths have a policy,
/// none, or no gate at all. `reached` says whether evaluation found a policy for it.
pub(crate) fn source_switch(
    caller: &Caller,
    snapshot: &AccessSnapshot,
    request: &EvaluationRequest,
    origin: &Origin,
    key: &str,
    reached: bool,
) -> Step {
    let (kind, matched) = match origin {
        Origin::Source(id) => source_reason(caller, snapshot, request, id),
        Origin::Installed => installed_reason(snapshot, key),
    };
    Step::new(kind, matched, gate(reached))
}

fn source_reason(
    caller: &Caller,
    snapshot: &AccessSnapshot,
    request: &EvaluationRequest,
    id: &str,
) -> (StepKind, String) {
    let header = request.sources.iter().find(|header| header.id == id);
    if !header.is_some_and(|header| header.scope.reaches(caller, &request.project)) {
        let owner = header.map_or("", |header| header.scope.owner.as_str());
        let text =
            format!("source `{id}` is owned by `{owner}`, which the caller's scope does not reach");
        return (StepKind::SourceScope, text);
    }
    let text = match snapshot.sources.get(id) {
        None => format!("source `{id}` is unknown to the policy store"),
        Some(record) if !record.enabled => format!("source `{id}` is disabled"),
        Some(record) => match &record.policy {
            None => format!("source `{id}` is enabled but has no URI policy"),
            Some(policy) if !compiles(policy) => {
                format!("source `{id}`'s stored policy no longer validates")
            }
            Some(_) => format!("source `{id}` is enabled, with a URI policy"),
        },
    };
    (StepKind::SourceSwitch, text)
}

fn installed_reason(snapshot: &AccessSnapshot, key: &str) -> (StepKind, String) {
    let scope = installed_scope(key);
    let text = match snapshot.sources.get(&scope) {
        None => format!("installed package: no policy attached under `{scope}`, no path gate"),
        Some(record) if !record.enabled => format!("`{scope}` is switched off"),
        Some(record) => match &record.policy {
            None => format!("`{scope}` is enabled with no policy: no path gate"),
            Some(policy) if !compiles(policy) => {
                format!("`{scope}`'s attached policy no longer validates")
            }
            Some(_) => format!("`{scope}` is enabled, with its attached policy"),
        },
    };
    (StepKind::SourceSwitch, text)
}

fn compiles(policy: &UriPolicy) -> bool {
    CompiledPolicy::new(policy).is_ok()
}

/// A package's `accessFeature`, and where the caller holds it from.
pub(crate) fn access_feature(
    caller: &Caller,
    snapshot: &AccessSnapshot,
    feature: &str,
    held: bool,
) -> Step {
    let matched = if snapshot.role_features.contains(feature) {
        format!(
            "accessFeature `{feature}` is granted to role `{}`",
            caller.role
        )
    } else if caller.features.contains(feature) {
        format!("accessFeature `{feature}` is carried by the caller's token")
    } else {
        format!(
            "accessFeature `{feature}` is not granted to role `{}` nor carried by the token",
            caller.role
        )
    };
    Step::new(StepKind::RoleGrant, matched, gate(held))
}

/// A file's `requiredFeatures`, naming the ones the caller lacks.
pub(crate) fn required_features(features: &FeatureSet, required: &[String]) -> Step {
    let missing: Vec<&str> = required
        .iter()
        .filter(|feature| !features.holds(feature))
        .map(String::as_str)
        .collect();
    let matched = if missing.is_empty() {
        format!("requiredFeatures [{}] all held", required.join(", "))
    } else {
        format!("requiredFeatures: `{}` not held", missing.join("`, `"))
    };
    Step::new(
        StepKind::RequiredFeatures,
        matched,
        gate(missing.is_empty()),
    )
}

/// An agent-private subtree's owner against the caller's agent.
pub(crate) fn privacy_owner(owner: &str, caller: &Caller, passes: bool) -> Step {
    let matched = match (&caller.agent, passes) {
        (_, true) => format!("private to agent `{owner}`, the caller's agent"),
        (Some(agent), false) => format!("private to agent `{owner}`; the caller acts as `{agent}`"),
        (None, false) => format!("private to agent `{owner}`; the caller acts as no agent"),
    };
    Step::new(StepKind::PrivacyOwner, matched, gate(passes))
}

/// A data-source file against the baseline of the package zone it lies in.
pub(crate) fn data_zone(path: &[&str], readable: bool) -> Step {
    let zone = crate::data_zone::zone_of(path).map(|(zone, _)| zone.scope());
    let matched = match (zone, readable) {
        (Some(zone), true) => format!("in data zone `{zone}`, whose baseline lets it be read"),
        (Some(zone), false) => {
            format!("in data zone `{zone}`, whose baseline (or switch) does not let it be read")
        }
        (None, _) => "in a data source, outside every package zone".to_owned(),
    };
    Step::new(StepKind::DataZone, matched, gate(readable))
}

/// A flagged file under a policy that hides flagged files.
pub(crate) fn content_flags(hidden: bool) -> Step {
    let matched = if hidden {
        "content flags found; the source's policy hides flagged files"
    } else {
        "content flags found; the policy does not hide flagged files"
    };
    Step::new(StepKind::ContentFlags, matched, gate(!hidden))
}

pub(crate) fn real_path(real: &[&str]) -> Step {
    let matched = format!(
        "reached through a link: decided again under its real path `{}`; the stricter wins",
        real.join("/")
    );
    Step::new(StepKind::RealPath, matched, Effect::Passes)
}

/// A file its package's trust tier serves as docs (seed 001).
pub(crate) fn trust_tier(declared: Category) -> Step {
    let matched = format!(
        "declared `{declared}`; its package's trust tier is below first party, so it is served as docs: listed and readable, never injected"
    );
    Step::new(
        StepKind::TrustTier,
        matched,
        Effect::Decides(DecisionCode::VisibleManual),
    )
}

pub(crate) fn docs() -> Step {
    let matched = "docs: listed and readable, never injected";
    Step::new(
        StepKind::Category,
        matched,
        Effect::Decides(DecisionCode::VisibleManual),
    )
}
