//! `uriPolicies` (seed 002 "uriPolicies — path-protection baselines"): baselines in
//! the URI policy language of DESIGN.md section 4, only inside the package's own
//! namespace (`packages://<self>/`, `data://<self>/`).
//!
//! The policy language itself (patterns, names, the floor authoring shape: "a floor
//! rule may carry only false capabilities and is rejected if it is combined with
//! override, roles, agents") is the access model's ([`neuralis_access::UriPolicy`]);
//! this module adds the closed JSON shape with pointers, the namespace rule and the
//! manifest-only gate "Floors come from trusted package manifests only".

use crate::issue::Pointer;
use crate::shape::Cx;
use neuralis_access::{AccessError, Capabilities, PathRule, UriPolicy};
use neuralis_layout::Trust;
use serde::Serialize;
use serde_json::{Map, Value};

/// A baseline policy for one pattern of the package's namespace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UriPolicyBaseline {
    /// As declared, with the `<self>` placeholder.
    pub pattern: String,
    /// The policy, valid in the access model's language.
    pub policy: UriPolicy,
}

impl UriPolicyBaseline {
    /// The pattern with `<self>` substituted, as the loader seeds it at boot.
    pub fn pattern_for(&self, slug: &str) -> String {
        self.pattern.replacen("<self>", slug, 1)
    }

    /// The floor rules, for the policy service to seed as immutable denials.
    pub fn floors(&self) -> impl Iterator<Item = &PathRule> {
        self.policy.paths.iter().filter(|rule| rule.floor)
    }
}

const PREFIXES: &[&str] = &["packages://<self>/", "data://<self>/"];
const RULE_KEYS: &[&str] = &[
    "pattern", "read", "write", "exec", "roles", "agents", "override", "floor",
];

/// Starts with an own prefix and never climbs out of it with a `..` segment.
pub fn in_own_namespace(pattern: &str) -> bool {
    PREFIXES.iter().any(|prefix| {
        pattern
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.split('/').all(|s| s != ".."))
    })
}

pub(crate) fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<UriPolicyBaseline> {
    let Some(map) = cx.object(value, at) else {
        return Vec::new();
    };
    map.iter()
        .filter_map(|(pattern, policy)| baseline(cx, pattern, policy, &at.key(pattern)))
        .collect()
}

fn baseline(
    cx: &mut Cx<'_>,
    pattern: &str,
    value: &Value,
    at: &Pointer,
) -> Option<UriPolicyBaseline> {
    let own = in_own_namespace(pattern);
    if !own {
        cx.error(at, format!("{pattern:?} is outside the package's namespace; patterns start with packages://<self>/ or data://<self>/"));
    }
    let map = cx.object(value, at)?;
    cx.closed(map, at, &["default", "paths"]);
    let default = map
        .get("default")
        .map(|d| default_caps(cx, d, &at.key("default")))
        .unwrap_or_default();
    let paths = map
        .get("paths")
        .map(|p| rules(cx, p, &at.key("paths")))
        // No `paths` is no rule, not a broken baseline.
        .unwrap_or(Some(Vec::new()))?;
    let policy = UriPolicy {
        default,
        paths,
        hide_flagged_files: false,
    };
    if let Err(error) = policy.validate() {
        report(cx, at, error);
        return None;
    }
    own.then(|| UriPolicyBaseline {
        pattern: pattern.to_owned(),
        policy,
    })
}

/// Turns the access model's field path (`paths[2].roles`) into a pointer under `at`.
fn report(cx: &mut Cx<'_>, at: &Pointer, error: AccessError) {
    let AccessError::InvalidArgument { field, message } = error;
    let pointer = field
        .split(['.', '['])
        .filter(|s| !s.is_empty())
        .fold(at.clone(), |p, segment| {
            p.key(segment.trim_end_matches(']'))
        });
    cx.error(&pointer, message);
}

fn default_caps(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Capabilities {
    let Some(map) = cx.object(value, at) else {
        return Capabilities::default();
    };
    cx.closed(map, at, &["read", "write", "exec"]);
    let mut cap = |key: &str| capability(cx, map, at, key).unwrap_or(false);
    Capabilities {
        read: cap("read"),
        write: cap("write"),
        exec: cap("exec"),
    }
}

fn capability(cx: &mut Cx<'_>, map: &Map<String, Value>, at: &Pointer, key: &str) -> Option<bool> {
    map.get(key).and_then(|v| cx.boolean(v, &at.key(key)))
}

/// The rules, or `None` when any of them has a shape error (already reported).
fn rules(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<Vec<PathRule>> {
    let items = cx.array(value, at)?;
    let parsed: Vec<Option<PathRule>> = items
        .iter()
        .enumerate()
        .map(|(i, item)| rule(cx, item, &at.index(i)))
        .collect();
    parsed.into_iter().collect()
}

fn rule(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<PathRule> {
    let map = cx.object(value, at)?;
    let before = cx.issues.errors.len();
    cx.closed(map, at, RULE_KEYS);
    let pattern = cx
        .required_text(map, at, "pattern")
        .unwrap_or_default()
        .to_owned();
    let rule = PathRule {
        read: capability(cx, map, at, "read"),
        write: capability(cx, map, at, "write"),
        exec: capability(cx, map, at, "exec"),
        roles: names(cx, map, at, "roles"),
        agents: names(cx, map, at, "agents"),
        override_rule: capability(cx, map, at, "override").unwrap_or(false),
        floor: capability(cx, map, at, "floor").unwrap_or(false),
        ..PathRule::new(pattern)
    };
    if rule.floor && cx.trust < Trust::Trusted {
        cx.error(
            &at.key("floor"),
            "floors come from trusted and first-party manifests only",
        );
    }
    (cx.issues.errors.len() == before).then_some(rule)
}

fn names(cx: &mut Cx<'_>, map: &Map<String, Value>, at: &Pointer, key: &str) -> Vec<String> {
    let Some(v) = map.get(key) else {
        return Vec::new();
    };
    let list_at = at.key(key);
    let Some(items) = cx.array(v, &list_at) else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, n)| cx.string(n, &list_at.index(i)).map(str::to_owned))
        .collect()
}
