//! What evaluation considered, as it considers it (issue 30 item 1, `ExplainAccess`).
//!
//! Evaluation takes a [`Recorder`] and tells it each step it takes: the gates a
//! candidate passes or fails, the URI rule or default that set its `read`, the floor
//! that forced it, the switches that turned it on or off. [`NoRecord`] keeps nothing and
//! is what [`crate::evaluate`] passes: its `step` is empty and inlined, and a step is
//! built by a closure that is never called, so deciding costs what it did before
//! (`BENCHMARKS.md`, "recorder off vs on"). [`Trace`] keeps every step, for
//! [`crate::explain`]. The steps come from the code that decides, never from a second
//! reading of the rules.

use crate::DecisionCode;

/// Told each step evaluation takes.
pub trait Recorder {
    /// Records the step `make` builds; a recorder that keeps nothing never calls it.
    fn step(&mut self, make: impl FnOnce() -> Step);
}

/// Keeps nothing: the recorder of every decision that is not explained.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoRecord;

impl Recorder for NoRecord {
    #[inline(always)]
    fn step(&mut self, _make: impl FnOnce() -> Step) {}
}

/// Keeps every step, in the order evaluation took them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    pub steps: Vec<Step>,
}

impl Recorder for Trace {
    fn step(&mut self, make: impl FnOnce() -> Step) {
        self.steps.push(make());
    }
}

/// One step evaluation took for a candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub kind: StepKind,
    /// What it matched, in words: the switch, the pattern, the feature, the override.
    pub matched: String,
    /// The URI rule that matched, when the step is a rule or a floor.
    pub rule: Option<RuleRef>,
    pub effect: Effect,
}

impl Step {
    /// A step with no rule.
    pub fn new(kind: StepKind, matched: impl Into<String>, effect: Effect) -> Self {
        Step {
            kind,
            matched: matched.into(),
            rule: None,
            effect,
        }
    }
}

/// A rule of a URI policy: its position in the policy's `paths` and its pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleRef {
    pub index: u32,
    pub pattern: String,
}

/// The kinds of step, in the order evaluation meets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepKind {
    /// The source's (or installed scope's) switch and persisted policy.
    SourceSwitch,
    /// Whether the source's scope (project, user, agent) reaches the caller.
    SourceScope,
    /// The URI rule (or the policy's default) that set `read` for a path.
    UriRule,
    /// A floor that forced `read` off.
    Floor,
    /// Content flags on a file whose policy hides flagged files.
    ContentFlags,
    /// A package's `accessFeature`, held through a role grant (the administrator's or
    /// a package's `defaultRoleGrants`) or the caller's token.
    RoleGrant,
    /// A file's `requiredFeatures`.
    RequiredFeatures,
    /// An agent-private subtree owned by an agent.
    PrivacyOwner,
    /// The package's enable state in the project.
    PackageState,
    /// A per-file override on the caller's agent.
    AgentOverride,
    /// A per-file override on the conversation or an ancestor along its delegate chain.
    ConversationOverride,
    /// The file's default (server-pinned for a source file).
    Default,
    /// The category: docs are listed, never injected.
    Category,
    /// A file reached through an in-root link, decided again under its real path.
    RealPath,
    /// A data-source file against its package zone's `data://` baseline.
    DataZone,
    /// The package's trust tier served the file as another category.
    TrustTier,
}

/// What a step did to the decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// The gate let the candidate through.
    Passes,
    /// The gate hid the candidate.
    Hides,
    /// Matched, but a later step has the final word (a rule a floor overrules).
    Overruled,
    /// Set the candidate's state.
    Decides(DecisionCode),
}

/// Why one candidate was decided as it was: the state, every step, and the one that
/// decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// The state [`crate::evaluate`] gives the same caller for the same candidate.
    pub code: DecisionCode,
    pub steps: Vec<Step>,
    /// The step that decided: the first that hid a hidden candidate, else the last that
    /// set the state it has.
    pub deciding: Option<usize>,
}

impl Explanation {
    /// The explanation of `code` from the steps that led to it.
    pub fn new(code: DecisionCode, steps: Vec<Step>) -> Self {
        let deciding = if code.is_visible() {
            steps
                .iter()
                .rposition(|step| step.effect == Effect::Decides(code))
        } else {
            steps.iter().position(|step| step.effect == Effect::Hides)
        };
        Explanation {
            code,
            steps,
            deciding,
        }
    }

    /// The deciding step.
    pub fn deciding_step(&self) -> Option<&Step> {
        self.deciding.and_then(|at| self.steps.get(at))
    }
}
