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

/// [`activation`], telling `recorder` the package's state and the switch (or default)
/// that decided. The predicate is evaluated as written; the steps name which of its
/// terms held, built only when a recorder keeps them.
pub fn activation_with<R: Recorder>(
    default_enabled: bool,
    switches: Switches,
    recorder: &mut R,
) -> Activation {
    let activation = if !switches.package_enabled
        || switches.agent == Some(false)
        || switches.conversation == Some(false)
    {
        Activation::Disabled
    } else if default_enabled || switches.agent == Some(true) || switches.conversation == Some(true)
    {
        Activation::Active
    } else {
        Activation::OptIn
    };
    recorder.step(|| package_step(switches.package_enabled));
    if switches.package_enabled {
        recorder.step(|| deciding_step(default_enabled, switches));
    }
    activation
}

fn package_step(enabled: bool) -> Step {
    if enabled {
        Step::new(
            StepKind::PackageState,
            "package enabled in the project",
            Effect::Passes,
        )
    } else {
        step(
            StepKind::PackageState,
            "package disabled in the project",
            DecisionCode::VisibleDisabled,
        )
    }
}

/// The term of the predicate that decided an enabled package's file, in the order the
/// seed gives: the agent's off (final), the conversation's off, an explicit enable at
/// either scope, the default.
fn deciding_step(default_enabled: bool, switches: Switches) -> Step {
    use DecisionCode::{VisibleActive, VisibleDisabled, VisibleOptIn};
    match (switches.agent, switches.conversation) {
        (Some(false), _) => step(
            StepKind::AgentOverride,
            "agent-scope override: off (final)",
            VisibleDisabled,
        ),
        (_, Some(false)) => step(
            StepKind::ConversationOverride,
            "conversation-scope override: off",
            VisibleDisabled,
        ),
        (Some(true), _) => step(
            StepKind::AgentOverride,
            "agent-scope override: on",
            VisibleActive,
        ),
        (_, Some(true)) => step(
            StepKind::ConversationOverride,
            "conversation-scope override: on",
            VisibleActive,
        ),
        _ if default_enabled => step(StepKind::Default, "on by default", VisibleActive),
        _ => step(
            StepKind::Default,
            "off by default, no explicit enable (opt-in)",
            VisibleOptIn,
        ),
    }
}

fn step(kind: StepKind, matched: &str, code: DecisionCode) -> Step {
    Step::new(kind, matched, Effect::Decides(code))
}
