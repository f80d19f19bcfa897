//! A URI policy compiled for one caller, once per request, so that deciding each of
//! thousands of files costs a walk over the rules that apply to that caller only.
//!
//! The order is DESIGN.md section 4's: start from `default`; apply the matching rules
//! whose roles/agents include the caller from least to most specific, declaration order
//! breaking ties, `override: true` rules last; then every matching floor forces its false
//! capabilities.

use std::collections::HashMap;

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
    /// the order they apply, and every floor.
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
        let floors: Vec<usize> = (0..self.rules.len())
            .filter(|at| self.rules[*at].1.floor)
            .collect();
        CallerPolicy {
            default: self.default,
            applied_index: FirstSegmentIndex::new(applied.iter().map(|at| &self.rules[*at].0)),
            floor_index: FirstSegmentIndex::new(floors.iter().map(|at| &self.rules[*at].0)),
            applied,
            floors,
            rules: self.rules,
        }
    }
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
    /// The positions of the rules that apply to the caller, in the order they apply.
    applied: Vec<usize>,
    applied_index: FirstSegmentIndex,
    /// The positions of the floors.
    floors: Vec<usize>,
    floor_index: FirstSegmentIndex,
}

/// The rules that can match a path, by the path's first segment: a rule whose pattern
/// opens with a literal segment is listed under it, every other rule under `anywhere`.
/// Both lists keep the rules' order, so a path's candidates are two sorted lists.
#[derive(Debug, Clone, Default)]
struct FirstSegmentIndex {
    by_first: HashMap<String, Vec<usize>>,
    anywhere: Vec<usize>,
}

impl FirstSegmentIndex {
    fn new<'p>(patterns: impl Iterator<Item = &'p PathPattern>) -> Self {
        let mut index = FirstSegmentIndex::default();
        for (at, pattern) in patterns.enumerate() {
            match pattern.first_literal() {
                Some(first) => index.by_first.entry(first.to_owned()).or_default().push(at),
                None => index.anywhere.push(at),
            }
        }
        index
    }

    /// The positions of the rules that may match `path`, last to apply first.
    fn candidates_backwards<'a>(&'a self, path: &[&str]) -> impl Iterator<Item = usize> + 'a {
        let listed: &[usize] = path
            .first()
            .and_then(|first| self.by_first.get(*first))
            .map_or(&[], Vec::as_slice);
        let (mut listed, mut anywhere) = (
            listed.iter().rev().peekable(),
            self.anywhere.iter().rev().peekable(),
        );
        std::iter::from_fn(move || match (listed.peek(), anywhere.peek()) {
            (Some(a), Some(b)) if a > b => listed.next().copied(),
            (Some(_), None) => listed.next().copied(),
            _ => anywhere.next().copied(),
        })
    }
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

    /// One capability of `path`. Walks the candidate rules from the last to apply back to
    /// the first and stops at the first that matches and sets the capability: the last
    /// rule that sets it is the one that wins, so this equals applying them forwards. Any
    /// matching floor that denies it then has the final word.
    fn decide(&self, path: &[&str], capability: Capability) -> bool {
        let ruled = self
            .applied_index
            .candidates_backwards(path)
            .map(|at| &self.rules[self.applied[at]])
            .find_map(|(pattern, rule)| capability.of(rule).filter(|_| pattern.matches(path)));
        let allowed = ruled.unwrap_or(capability.of_default(self.default));
        let floored = || {
            self.floor_index
                .candidates_backwards(path)
                .map(|at| &self.rules[self.floors[at]])
                .any(|(pattern, rule)| capability.of(rule) == Some(false) && pattern.matches(path))
        };
        allowed && !floored()
    }
}

/// One of the three capabilities.
#[derive(Debug, Clone, Copy)]
enum Capability {
    Read,
    Write,
    Exec,
}

impl Capability {
    fn of(self, rule: &PathRule) -> Option<bool> {
        match self {
            Capability::Read => rule.read,
            Capability::Write => rule.write,
            Capability::Exec => rule.exec,
        }
    }

    fn of_default(self, default: Capabilities) -> bool {
        match self {
            Capability::Read => default.read,
            Capability::Write => default.write,
            Capability::Exec => default.exec,
        }
    }
}
