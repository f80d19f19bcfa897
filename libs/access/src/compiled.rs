//! A URI policy compiled for one caller, once per request, so that deciding each of
//! thousands of files costs a walk over the rules that apply to that caller only.
//!
//! The order is DESIGN.md section 4's: start from `default`; apply the matching rules
//! whose roles/agents include the caller from least to most specific, declaration order
//! breaking ties, `override: true` rules last; then every matching floor forces its false
//! capabilities.

use crate::{AccessError, Caller, Capabilities, PathPattern, PathRule, UriPolicy, floor};

/// A validated policy with its patterns parsed: still valid for every caller.
#[derive(Debug, Clone)]
pub struct CompiledPolicy {
    default: Capabilities,
    rules: Vec<(PathPattern, PathRule)>,
}

impl CompiledPolicy {
    /// Validates and parses `policy`.
    pub fn new(policy: &UriPolicy) -> Result<Self, AccessError> {
        let patterns = policy.validate()?;
        Ok(CompiledPolicy {
            default: policy.default,
            rules: patterns
                .into_iter()
                .zip(policy.paths.iter().cloned())
                .collect(),
        })
    }

    /// The policy as `caller` sees it: the rules that name the caller (or everyone), in
    /// the order they apply, and every floor.
    pub fn for_caller(&self, caller: &Caller) -> CallerPolicy {
        let mut rules: Vec<(usize, &(PathPattern, PathRule))> = self
            .rules
            .iter()
            .enumerate()
            .filter(|(_, (_, rule))| !rule.floor && applies_to(rule, caller))
            .collect();
        rules.sort_by_key(|(declared, (pattern, rule))| {
            (rule.override_rule, pattern.specificity(), *declared)
        });
        CallerPolicy {
            default: self.default,
            rules: rules
                .into_iter()
                .map(|(_, rule)| Step::from(rule))
                .collect(),
            floors: self
                .rules
                .iter()
                .filter(|(_, rule)| rule.floor)
                .map(Step::from)
                .collect(),
        }
    }
}

/// Whether a rule's `roles` and `agents` include the caller (empty means everyone).
fn applies_to(rule: &PathRule, caller: &Caller) -> bool {
    let role = rule.roles.is_empty() || rule.roles.contains(&caller.role);
    let agent = rule.agents.is_empty() || rule.agents.iter().any(|agent| caller.is_agent(agent));
    role && agent
}

#[derive(Debug, Clone)]
struct Step {
    pattern: PathPattern,
    rule: PathRule,
}

impl From<&(PathPattern, PathRule)> for Step {
    fn from((pattern, rule): &(PathPattern, PathRule)) -> Self {
        Step {
            pattern: pattern.clone(),
            rule: rule.clone(),
        }
    }
}

/// A policy compiled for one caller: decides the capabilities of any path.
#[derive(Debug, Clone)]
pub struct CallerPolicy {
    default: Capabilities,
    /// Applicable rules, in the order they apply.
    rules: Vec<Step>,
    floors: Vec<Step>,
}

impl CallerPolicy {
    /// The capabilities of a path given as its segments (the source root is `&[]`).
    ///
    /// Walks the rules from the last to apply back to the first and stops as soon as all
    /// three capabilities are decided: the last rule that sets a capability is the one
    /// that wins, so this equals applying them forwards.
    pub fn capabilities(&self, path: &[&str]) -> Capabilities {
        let mut decided: [Option<bool>; 3] = [None; 3];
        for step in self.rules.iter().rev() {
            if decided.iter().all(Option::is_some) {
                break;
            }
            if step.pattern.matches(path) {
                for (slot, change) in decided.iter_mut().zip(step.rule.changes()) {
                    *slot = slot.or(change);
                }
            }
        }
        let [read, write, exec] = decided;
        let mut capabilities = Capabilities {
            read: read.unwrap_or(self.default.read),
            write: write.unwrap_or(self.default.write),
            exec: exec.unwrap_or(self.default.exec),
        };
        for step in self.floors.iter().filter(|step| step.pattern.matches(path)) {
            capabilities = floor::restrict(&step.rule, capabilities);
        }
        capabilities
    }

    /// Whether `path` may be read, the capability discovery needs.
    pub fn can_read(&self, path: &[&str]) -> bool {
        self.capabilities(path).read
    }
}
