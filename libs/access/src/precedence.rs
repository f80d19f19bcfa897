//! The per-file precedence predicate, written once (seed 000, "Defaults and per-file
//! control"): "a disabled package turns everything off; an agent-level per-file off is
//! final (a conversation cannot re-enable it); a conversation-level off wins next; and an
//! opt-in (default-off) file activates only with an explicit enable at either scope."

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
    if !switches.package_enabled
        || switches.agent == Some(false)
        || switches.conversation == Some(false)
    {
        return Activation::Disabled;
    }
    let enabled_explicitly = switches.agent == Some(true) || switches.conversation == Some(true);
    if default_enabled || enabled_explicitly {
        Activation::Active
    } else {
        Activation::OptIn
    }
}
