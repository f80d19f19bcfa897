//! A URI policy compiled once (patterns parsed, rules ranked and filed by literal prefix)
//! and narrowed to one caller per request, so that deciding each of thousands of files
//! costs a walk over the few rules filed along its path.
//!
//! The order is DESIGN.md section 4's: start from `default`; apply the matching rules
//! whose roles/agents include the caller from least to most specific, declaration order
//! breaking ties, `override: true` rules last; then every matching floor forces its false
//! capabilities.
//!
//! The compiled form depends on the policy text alone, never on a caller: the rank of a
//! rule among all rules orders it the same way among the rules that name a caller, so
//! narrowing to a caller ([`CompiledPolicy::for_caller`]) only marks which rules apply.
//! That is what lets [`crate::PolicyCache`] reuse it across requests for identical text.

use std::sync::Arc;

use crate::prefix_tree::{Position, PrefixTree};
use crate::recorder::{Effect, NoRecord, Recorder, RuleRef, Step, StepKind};
use crate::{AccessError, Caller, Capabilities, PathPattern, PathRule, UriPolicy};

/// A validated policy with its patterns parsed and its rules filed: valid for every
/// caller. It keeps the policy it was compiled from, for a cache to compare.
#[derive(Debug, Clone)]
pub struct CompiledPolicy {
    policy: UriPolicy,
    /// Every rule's pattern, in declaration order.
    patterns: Vec<PathPattern>,
    /// Every rule and floor, by the literal prefix of its pattern.
    tree: PrefixTree<Filed>,
    /// Whether some rule names roles or agents (else every rule applies to everyone).
    has_audiences: bool,
}

/// The rules filed at one prefix, per capability (`read`, `write`, `exec`).
#[derive(Debug, Clone, Default)]
struct Filed {
    /// The non-floor rules that set the capability, by ascending rank (the order they
    /// apply in).
    applied: [Vec<Ranked>; 3],
    /// The floors that deny the capability (positions in the policy).
    floors: [Vec<u32>; 3],
}

/// A rule that sets a capability, with its place in the order rules apply in.
#[derive(Debug, Clone, Copy)]
struct Ranked {
    rank: u32,
    allow: bool,
    /// The position of the rule in the policy.
    rule: u32,
}

impl CompiledPolicy {
    /// Validates and parses `policy`.
    pub fn new(policy: &UriPolicy) -> Result<Self, AccessError> {
        let patterns = policy.validate()?;
        let rules = &policy.paths;
        // `validate` caps a policy at MAX_RULES, so every position fits in a u32.
        let mut order: Vec<u32> = (0..rules.len() as u32)
            .filter(|at| !rules[*at as usize].floor)
            .collect();
        order.sort_by_key(|at| {
            let at = *at as usize;
            (rules[at].override_rule, patterns[at].specificity(), at)
        });
        let mut tree: PrefixTree<Filed> = PrefixTree::new();
        for (rank, at) in order.into_iter().enumerate() {
            let rule = &rules[at as usize];
            let filed = tree.at(literal_prefix(rule, &patterns[at as usize]));
            for (capability, change) in rule.changes().into_iter().enumerate() {
                if let Some(allow) = change {
                    // Ranks ascend as rules are filed, so every list stays sorted.
                    filed.applied[capability].push(Ranked {
                        rank: rank as u32,
                        allow,
                        rule: at,
                    });
                }
            }
        }
        for (at, rule) in rules.iter().enumerate().filter(|(_, rule)| rule.floor) {
            let filed = tree.at(literal_prefix(rule, &patterns[at]));
            for (capability, change) in rule.changes().into_iter().enumerate() {
                if change == Some(false) {
                    filed.floors[capability].push(at as u32);
                }
            }
        }
        Ok(CompiledPolicy {
            policy: policy.clone(),
            patterns,
            tree,
            has_audiences: rules
                .iter()
                .any(|rule| !rule.roles.is_empty() || !rule.agents.is_empty()),
        })
    }

    /// The policy it was compiled from.
    pub fn policy(&self) -> &UriPolicy {
        &self.policy
    }

    /// The policy as `caller` sees it: only the rules that name the caller (or
    /// everyone) apply, and every floor.
    pub fn for_caller(self, caller: &Caller) -> CallerPolicy {
        CallerPolicy::new(Arc::new(self), caller)
    }
}

/// The leading literal segments of a rule's pattern (a valid pattern's text splits into
/// exactly its parsed segments).
fn literal_prefix<'r>(rule: &'r PathRule, pattern: &PathPattern) -> impl Iterator<Item = &'r str> {
    rule.pattern.split('/').take(pattern.prefix_len())
}

/// Whether a rule's `roles` and `agents` include the caller (empty means everyone).
fn applies_to(rule: &PathRule, caller: &Caller) -> bool {
    let role = rule.roles.is_empty() || rule.roles.contains(&caller.role);
    let agent = rule.agents.is_empty() || rule.agents.iter().any(|agent| caller.is_agent(agent));
    role && agent
}

/// A policy narrowed to one caller: decides the capabilities of any path. Built per
/// request; the compiled policy it narrows may be shared.
#[derive(Debug, Clone)]
pub struct CallerPolicy {
    compiled: Arc<CompiledPolicy>,
    /// By position in the policy: whether the rule names the caller (or everyone).
    /// Empty when every rule applies to everyone.
    applies: Vec<bool>,
}

impl CallerPolicy {
    /// `compiled` as `caller` sees it.
    pub fn new(compiled: Arc<CompiledPolicy>, caller: &Caller) -> Self {
        let applies = if compiled.has_audiences {
            compiled
                .policy
                .paths
                .iter()
                .map(|rule| applies_to(rule, caller))
                .collect()
        } else {
            Vec::new()
        };
        CallerPolicy { compiled, applies }
    }

    /// The capabilities of a path given as its segments (the source root is `&[]`).
    pub fn capabilities(&self, path: &[&str]) -> Capabilities {
        Capabilities {
            read: self.decide(path, Capability::Read),
            write: self.decide(path, Capability::Write),
            exec: self.decide(path, Capability::Exec),
        }
    }

    /// Whether `path` may be read, the capability discovery needs.
    pub fn can_read(&self, path: &[&str]) -> bool {
        self.decide(path, Capability::Read)
    }

    /// Where deciding the paths under `root` (a package root) starts: the rules filed
    /// along the root's own segments are found once per package, not once per file.
    pub(crate) fn locate(&self, root: &[&str]) -> Located {
        Located(self.compiled.tree.descend(Position::ROOT, root))
    }

    /// [`CallerPolicy::can_read`] for a path that starts with the root `at` was located
    /// for (evaluation checks every file of a source package lies under its root),
    /// telling `recorder` the rule (or default) and the floor that decided.
    pub(crate) fn can_read_under<R: Recorder>(
        &self,
        at: Located,
        path: &[&str],
        recorder: &mut R,
    ) -> bool {
        self.decide_from(at.0, path, Capability::Read, recorder)
    }

    fn applies(&self, rule: u32) -> bool {
        self.applies.get(rule as usize).copied().unwrap_or(true)
    }

    /// One capability of `path`. The rule that wins is the last to apply among those
    /// that name the caller, match and set the capability. The nodes along the path are
    /// visited deepest first (their rules are the most specific, so the likeliest to
    /// win), and at each node its rules are walked from the last to apply back, stopping
    /// at the first that matches or at a rank already beaten: this equals applying
    /// every rule forwards. Any matching floor that denies the capability then has the
    /// final word.
    fn decide(&self, path: &[&str], capability: Capability) -> bool {
        self.decide_from(Position::ROOT, path, capability, &mut NoRecord)
    }

    fn decide_from<R: Recorder>(
        &self,
        from: Position,
        path: &[&str],
        capability: Capability,
        recorder: &mut R,
    ) -> bool {
        let at = capability as usize;
        let compiled = &*self.compiled;
        let mut winner: Option<&Ranked> = None;
        let mut floored = false;
        let deepest = compiled.tree.descend(from, path);
        for (filed, depth) in compiled.tree.climb(deepest) {
            let tail = &path[depth..];
            let matches = |rule: u32| compiled.patterns[rule as usize].matches_after_prefix(tail);
            let beats = |ranked: &&Ranked| winner.is_none_or(|best| ranked.rank > best.rank);
            let found = filed.applied[at]
                .iter()
                .rev()
                .take_while(beats)
                .find(|ranked| self.applies(ranked.rule) && matches(ranked.rule));
            winner = found.or(winner);
            floored = floored || filed.floors[at].iter().any(|rule| matches(*rule));
        }
        let allowed = winner.map_or(capability.of_default(compiled.policy.default), |ranked| {
            ranked.allow
        });
        recorder.step(|| self.rule_step(path, winner.map(|r| r.rule), allowed, floored));
        if floored {
            recorder.step(|| self.floor_step(from, path, capability));
        }
        allowed && !floored
    }

    /// The step of the rule (or the default) that set `read` for `path`.
    fn rule_step(&self, path: &[&str], rule: Option<u32>, allowed: bool, floored: bool) -> Step {
        let path = shown(path);
        let effect = match (floored, allowed) {
            (true, _) => Effect::Overruled,
            (false, true) => Effect::Passes,
            (false, false) => Effect::Hides,
        };
        let Some(index) = rule else {
            let matched =
                format!("`{path}`: no rule matches; the policy's default read is {allowed}");
            return Step::new(StepKind::UriRule, matched, effect);
        };
        let rule = &self.compiled.policy.paths[index as usize];
        let overriding = if rule.override_rule {
            " (override)"
        } else {
            ""
        };
        Step {
            matched: format!(
                "`{path}`: rule #{index} `{}`{overriding} sets read {allowed}",
                rule.pattern
            ),
            rule: Some(RuleRef {
                index,
                pattern: rule.pattern.clone(),
            }),
            ..Step::new(StepKind::UriRule, String::new(), effect)
        }
    }

    /// The step of the floor that forced `read` off for `path`: the first that matches,
    /// deepest node first, found again only when a recorder keeps the step.
    fn floor_step(&self, from: Position, path: &[&str], capability: Capability) -> Step {
        let compiled = &*self.compiled;
        let deepest = compiled.tree.descend(from, path);
        let index = compiled
            .tree
            .climb(deepest)
            .find_map(|(filed, depth)| {
                let tail = &path[depth..];
                filed.floors[capability as usize]
                    .iter()
                    .copied()
                    .find(|rule| compiled.patterns[*rule as usize].matches_after_prefix(tail))
            })
            .unwrap_or_default();
        let pattern = compiled.policy.paths[index as usize].pattern.clone();
        Step {
            matched: format!(
                "`{}`: floor #{index} `{pattern}` denies read; no rule can lift it",
                shown(path)
            ),
            rule: Some(RuleRef { index, pattern }),
            ..Step::new(StepKind::Floor, String::new(), Effect::Hides)
        }
    }
}

/// A path as a step names it; the source root has no segments.
fn shown(path: &[&str]) -> String {
    if path.is_empty() {
        "(source root)".to_owned()
    } else {
        path.join("/")
    }
}

/// Where the descent along a package root stopped ([`CallerPolicy::locate`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Located(Position);

impl Located {
    /// The root of the tree: right for any path.
    pub(crate) const ANY_PATH: Located = Located(Position::ROOT);
}

/// One of the three capabilities; its value is its place in [`PathRule::changes`].
#[derive(Debug, Clone, Copy)]
enum Capability {
    Read,
    Write,
    Exec,
}

impl Capability {
    fn of_default(self, default: Capabilities) -> bool {
        match self {
            Capability::Read => default.read,
            Capability::Write => default.write,
            Capability::Exec => default.exec,
        }
    }
}
