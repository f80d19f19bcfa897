//! The access model and its evaluation: who may see which package and file, and which
//! files are active for one caller.
//!
//! Pure: no I/O, no async. The policy service reads the persisted configuration into an
//! [`AccessSnapshot`] on every request and hands it here with the verified [`Caller`] and
//! one batch of candidates; [`evaluate`] returns one [`Decision`] per candidate. Nothing
//! in this crate caches a decision (seed 000, "How current the answer is": "nothing about
//! it is ever reused").
//!
//! The rules, one module each:
//! - [`policy`]: the URI-policy language (DESIGN.md section 4) and its validation;
//! - [`pattern`]: `*` and `**` path patterns;
//! - [`compiled`]: a policy compiled once and narrowed to one caller, so per-file
//!   decisions are cheap; [`policy_cache`]: the compiled form of an unchanged policy text
//!   reused across requests (the text is still read and compared on every request);
//! - [`floor`]: restrict-only floors that no rule can lift;
//! - [`scope`]: whether a caller's scope reaches a source;
//! - [`data_zone`]: package data zones deciding a data tree's files;
//! - [`privacy`]: agent-private subtrees;
//! - [`recognized`]: an installed package found in a flagged source, decided as that
//!   source's files too;
//! - [`feature`] and [`grant`]: features held by a caller, `requiredFeatures`, `accessFeature`;
//! - [`overrides`] and [`precedence`]: the per-file precedence predicate;
//! - [`decision`]: the codes an answer may carry (one single code for every denial);
//! - [`recorder`] and [`explain`]: the steps one decision took, told by the evaluation
//!   itself (`ExplainAccess`).
#![forbid(unsafe_code)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod caller;
pub mod candidate;
pub mod compiled;
pub mod data_zone;
pub mod decision;
pub mod error;
pub mod evaluate;
pub mod explain;
pub mod feature;
pub mod floor;
pub mod grant;
pub mod kept;
pub mod overrides;
mod package_gates;
pub mod pattern;
pub mod policy;
pub mod policy_cache;
pub mod precedence;
mod prefix_tree;
pub mod privacy;
pub mod recognized;
pub mod recorder;
pub mod scope;
pub mod snapshot;
mod steps;

pub use caller::Caller;
pub use candidate::{
    CheckedBatch, EvaluationRequest, FileCandidate, FoundIn, Origin, PackageCandidate, SourceHeader,
};
pub use compiled::{CallerPolicy, CompiledPolicy};
pub use decision::{Decision, DecisionCode, Evaluation};
pub use error::AccessError;
pub use evaluate::{decide, decide_cached, decide_with, evaluate, evaluate_cached};
pub use explain::explain;
pub use feature::FeatureSet;
pub use grant::{Grantor, RoleGrants};
pub use kept::KeptBatch;
pub use overrides::{FileOverrides, OverrideScope};
pub use pattern::PathPattern;
pub use policy::{Capabilities, PathRule, UriPolicy};
pub use policy_cache::PolicyCache;
pub use precedence::{Activation, Switches};
pub use recorder::{Effect, Explanation, NoRecord, Recorder, RuleRef, Step, StepKind, Trace};
pub use scope::{Scope, SourceScope};
pub use snapshot::{AccessSnapshot, SourceRecord, installed_scope};
