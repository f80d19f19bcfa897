//! The per-file precedence predicate, written once (seed 000, "Defaults and per-file
//! control"): "a disabled package turns everything off; an agent-level per-file off is
//! final (a conversation cannot re-enable it); a conversation-level off wins next; and an
//! opt-in (default-off) file activates only with an explicit enable at either scope."

use crate::DecisionCode;
use crate::recorder::{Effect, NoRecord, Recorder, Step, StepKind};

/// The explicit switches that bear on one file for one caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switches {
    /// The package's enable state in the project (enabled unless switched off).
    pub package_enabled: bool,
    /// The agent-scope override of the file, if any.
    pub agent: Option<bool>,
    /// The nearest conversation-scope override along the delegate chain, if any.
    pub conversation: Option<bool>,
}

/// Whether a visible file is in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activation {
    /// On: by default or by an explicit enable.
    Active,
    /// Available but off by default, with no explicit enable.
    OptIn,
    /// Turned off by the package, the agent or the conversation.
    Disabled,
}

/// The precedence predicate for a file whose default is `default_enabled`.
pub fn activation(default_enabled: bool, switches: Switches) -> Activation {
    activation_with(default_enabled, switches, &mut NoRecord)
}

/// [`activation`], telling `recorder` each switch it reads and the one that decides.
/// The order is the predicate's: the package, the agent's off, the conversation's off,
/// then an explicit enable at either scope, then the default.
pub fn activation_with<R: Recorder>(
    default_enabled: bool,
    switches: Switches,
    recorder: &mut R,
) -> Activation {
    use DecisionCode::{VisibleActive, VisibleDisabled, VisibleOptIn};
    if !switches.package_enabled {
        recorder.step(|| {
            step(
                StepKind::PackageState,
                "package disabled in the project",
                VisibleDisabled,
            )
        });
        return Activation::Disabled;
    }
    recorder.step(|| {
        Step::new(
            StepKind::PackageState,
            "package enabled in the project",
            Effect::Passes,
        )
    });
    if switches.agent == Some(false) {
        recorder.step(|| {
            step(
                StepKind::AgentOverride,
                "agent-scope override: off (final)",
                VisibleDisabled,
            )
        });
        return Activation::Disabled;
    }
    if switches.conversation == Some(false) {
        recorder.step(|| {
            step(
                StepKind::ConversationOverride,
                "conversation-scope override: off",
                VisibleDisabled,
            )
        });
        return Activation::Disabled;
    }
    if switches.agent == Some(true) {
        recorder.step(|| {
            step(
                StepKind::AgentOverride,
                "agent-scope override: on",
                VisibleActive,
            )
        });
        return Activation::Active;
    }
    if switches.conversation == Some(true) {
        recorder.step(|| {
            step(
                StepKind::ConversationOverride,
                "conversation-scope override: on",
                VisibleActive,
            )
        });
        return Activation::Active;
    }
    if default_enabled {
        recorder.step(|| step(StepKind::Default, "on by default", VisibleActive));
        Activation::Active
    } else {
        recorder.step(|| {
            step(
                StepKind::Default,
                "off by default, no explicit enable (opt-in)",
                VisibleOptIn,
            )
        });
        Activation::OptIn
    }
}

fn step(kind: StepKind, matched: &str, code: DecisionCode) -> Step {
    Step::new(kind, matched, Effect::Decides(code))
}
