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

    /// The rank of the code in the total order of permissiveness, least first:
    /// hidden < disabled (listed, turned off) < manual (listed, read on demand, never
    /// injected) < opt-in (listed, read on demand, one switch from active) < active.
    pub fn permissiveness(self) -> u8 {
        match self {
            DecisionCode::Hidden => 0,
            DecisionCode::VisibleDisabled => 1,
            DecisionCode::VisibleManual => 2,
            DecisionCode::VisibleOptIn => 3,
            DecisionCode::VisibleActive => 4,
        }
    }

    /// The stricter of two decisions (the less permissive; either when equal): a file
    /// reached through a symlink is decided under its path and its real path, and
    /// this one wins.
    pub fn stricter(self, other: DecisionCode) -> DecisionCode {
        if other.permissiveness() < self.permissiveness() {
            other
        } else {
            self
        }
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
