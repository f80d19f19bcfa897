//! A URI policy compiled for one caller, once per request, so that deciding each of
//! thousands of files costs a walk over the rules that apply to that caller only.
//!
//! The order is DESIGN.md section 4's: start from `default`; apply the matching rules
//! whose roles/agents include the caller from least to most specific, declaration order
//! breaking ties, `override: true` rules last; then every matching floor forces its false
//! capabilities.

use crate::prefix_tree::PrefixTree;
use crate::{AccessError, Caller, Capabilities, PathPattern, PathRule, UriPolicy};

/// A validated policy with its patterns parsed, borrowing its rules from the policy:
/// still valid for every caller.
#[derive(Debug, Clone)]
pub struct CompiledPolicy<'a> {
    default: Capabilities,
    rules: Vec<(PathPattern, &'a PathRule)>,
}

impl<'a> CompiledPolicy<'a> {
    /// Validates and parses `policy`.
    pub fn new(policy: &'a UriPolicy) -> Result<Self, AccessError> {
        let patterns = policy.validate()?;
        Ok(CompiledPolicy {
            default: policy.default,
            rules: patterns.into_iter().zip(&policy.paths).collect(),
        })
    }

    /// The policy as `caller` sees it: the rules that name the caller (or everyone), in
    /// the order they apply, and every floor, each filed under the literal prefix of its
    /// pattern and under each capability it sets.
    pub fn for_caller(self, caller: &Caller) -> CallerPolicy<'a> {
        let mut applied: Vec<usize> = (0..self.rules.len())
            .filter(|at| {
                let rule = self.rules[*at].1;
                !rule.floor && applies_to(rule, caller)
            })
            .collect();
        applied.sort_by_key(|at| {
            let (pattern, rule) = &self.rules[*at];
            (rule.override_rule, pattern.specificity(), *at)
        });
        let mut tree: PrefixTree<'a, Filed> = PrefixTree::new();
        for (rank, at) in applied.into_iter().enumerate() {
            let filed = tree.at(literal_prefix(&self.rules[at]));
            for (capability, change) in self.rules[at].1.changes().into_iter().enumerate() {
                if let Some(allow) = change {
                    // Ranks ascend as rules are filed, so every list stays sorted.
                    filed.applied[capability].push(Ranked {
                        rank,
                        allow,
                        rule: at,
                    });
                }
            }
        }
        for (at, entry) in self.rules.iter().enumerate() {
            if !entry.1.floor {
                continue;
            }
            let filed = tree.at(literal_prefix(entry));
            for (capability, change) in entry.1.changes().into_iter().enumerate() {
                if change == Some(false) {
                    filed.floors[capability].push(at);
                }
            }
        }
        CallerPolicy {
            default: self.default,
            rules: self.rules,
            tree,
        }
    }
}

/// The leading literal segments of a rule's pattern, borrowed from the policy (a valid
/// pattern's text splits into exactly its parsed segments).
fn literal_prefix<'a>(
    (pattern, rule): &(PathPattern, &'a PathRule),
) -> impl Iterator<Item = &'a str> + use<'a> {
    rule.pattern.split('/').take(pattern.prefix_len())
}

/// Whether a rule's `roles` and `agents` include the caller (empty means everyone).
fn applies_to(rule: &PathRule, caller: &Caller) -> bool {
    let role = rule.roles.is_empty() || rule.roles.contains(&caller.role);
    let agent = rule.agents.is_empty() || rule.agents.iter().any(|agent| caller.is_agent(agent));
    role && agent
}

/// A policy compiled for one caller: decides the capabilities of any path.
#[derive(Debug, Clone)]
pub struct CallerPolicy<'a> {
    default: Capabilities,
    /// Every rule, in declaration order.
    rules: Vec<(PathPattern, &'a PathRule)>,
    /// The rules that apply to the caller and the floors, by literal prefix.
    tree: PrefixTree<'a, Filed>,
}

/// The rules filed at one prefix, per capability (`read`, `write`, `exec`).
#[derive(Debug, Clone, Default)]
struct Filed {
    /// The rules that apply to the caller and set the capability, by ascending rank
    /// (the order they apply in).
    applied: [Vec<Ranked>; 3],
    /// The floors that deny the capability (positions in the policy).
    floors: [Vec<usize>; 3],
}

/// A rule that sets a capability, with its place in the order rules apply in.
#[derive(Debug, Clone, Copy)]
struct Ranked {
    rank: usize,
    allow: bool,
    /// The position of the rule in the policy.
    rule: usize,
}

impl CallerPolicy<'_> {
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

    /// One capability of `path`. The rule that wins is the last to apply among those
    /// that match and set the capability; at each node along the path its rules are
    /// walked from the last to apply back, stopping at the first that matches or at a
    /// rank already beaten, so this equals applying every rule forwards. Any matching
    /// floor that denies the capability then has the final word.
    fn decide(&self, path: &[&str], capability: Capability) -> bool {
        let at = capability as usize;
        let mut winner: Option<&Ranked> = None;
        let mut floored = false;
        for (filed, depth) in self.tree.along(path) {
            let tail = &path[depth..];
            let matches = |rule: usize| self.rules[rule].0.matches_after_prefix(tail);
            let beats = |ranked: &&Ranked| winner.is_none_or(|best| ranked.rank > best.rank);
            let found = filed.applied[at]
                .iter()
                .rev()
                .take_while(beats)
                .find(|ranked| matches(ranked.rule));
            winner = found.or(winner);
            floored = floored || filed.floors[at].iter().any(|rule| matches(*rule));
        }
        let allowed = winner.map_or(capability.of_default(self.default), |ranked| ranked.allow);
        allowed && !floored
    }
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
