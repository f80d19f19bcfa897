//! The answer for one candidate. A denial is one single code, [`DecisionCode::Hidden`],
//! whatever gate denied it, so the answer cannot reveal which rule matched; a decision
//! carries only the candidate's index in the batch, never its path or name.

/// What the caller may see of a candidate, and whether it is in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecisionCode {
    /// Not visible: absent from the answer, with no placeholder.
    Hidden,
    /// Visible and active (on by default or enabled explicitly).
    VisibleActive,
    /// Visible, available but off by default, with no explicit enable.
    VisibleOptIn,
    /// Visible but turned off by a package, agent or conversation switch.
    VisibleDisabled,
    /// Docs: listed and readable, never injected.
    VisibleManual,
}

impl DecisionCode {
    /// Whether the candidate may appear in an answer.
    pub fn is_visible(self) -> bool {
        self != DecisionCode::Hidden
    }

    /// Whether the candidate is in use: may be injected or activated.
    pub fn is_active(self) -> bool {
        self == DecisionCode::VisibleActive
    }
}

/// The decision for the candidate at `index` of its list in the batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Decision {
    /// The candidate's position in the batch.
    pub index: usize,
    /// The decision.
    pub code: DecisionCode,
}

/// One decision per candidate, in batch order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Evaluation {
    /// One per package root.
    pub packages: Vec<Decision>,
    /// One per member file.
    pub files: Vec<Decision>,
}
