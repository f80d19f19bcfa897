//! `uriPolicies` (seed 002 "uriPolicies — path-protection baselines"): baselines in
//! the URI policy language of DESIGN.md section 4, only inside the package's own
//! namespace (`packages://<self>/`, `data://<self>/`). A floor rule is restrict-only:
//! false capabilities, never with override, roles, agents or a true capability, and
//! only from trusted (or first-party) manifests.

use crate::issue::Pointer;
use crate::shape::Cx;
use neuralis_layout::Trust;
use serde::Serialize;
use serde_json::{Map, Value};

/// The three capabilities of the default block; absent means denied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Capabilities {
    pub read: bool,
    pub write: bool,
    pub exec: bool,
}

/// One `paths[]` rule; an absent capability leaves the current decision alone.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PathRule {
    pub pattern: String,
    pub read: Option<bool>,
    pub write: Option<bool>,
    pub exec: Option<bool>,
    pub roles: Vec<String>,
    pub agents: Vec<String>,
    #[serde(rename = "override")]
    pub override_: bool,
    /// An immutable, restrict-only floor.
    pub floor: bool,
}

/// A baseline policy for one pattern of the package's namespace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UriPolicyBaseline {
    /// As declared, with the `<self>` placeholder.
    pub pattern: String,
    pub default: Capabilities,
    pub paths: Vec<PathRule>,
}

impl UriPolicyBaseline {
    /// The pattern with `<self>` substituted, as the loader seeds it at boot.
    pub fn pattern_for(&self, slug: &str) -> String {
        self.pattern.replacen("<self>", slug, 1)
    }

    /// The floor rules, for the policy service to seed as immutable denials.
    pub fn floors(&self) -> impl Iterator<Item = &PathRule> {
        self.paths.iter().filter(|rule| rule.floor)
    }
}

const PREFIXES: &[&str] = &["packages://<self>/", "data://<self>/"];
const RULE_KEYS: &[&str] = &[
    "pattern", "read", "write", "exec", "roles", "agents", "override", "floor",
];

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
        .unwrap_or_default();
    own.then(|| UriPolicyBaseline {
        pattern: pattern.to_owned(),
        default,
        paths,
    })
}

/// Starts with an own prefix and never climbs out of it with a `..` segment.
pub fn in_own_namespace(pattern: &str) -> bool {
    PREFIXES.iter().any(|prefix| {
        pattern
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.split('/').all(|s| s != ".."))
    })
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

fn rules(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<PathRule> {
    let Some(items) = cx.array(value, at) else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| rule(cx, item, &at.index(i)))
        .collect()
}

fn rule(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<PathRule> {
    let map = cx.object(value, at)?;
    cx.closed(map, at, RULE_KEYS);
    let pattern = rule_pattern(cx, map, at);
    let has_pattern = pattern.is_some();
    let rule = PathRule {
        pattern: pattern.unwrap_or_default(),
        read: capability(cx, map, at, "read"),
        write: capability(cx, map, at, "write"),
        exec: capability(cx, map, at, "exec"),
        roles: names(cx, map, at, "roles"),
        agents: names(cx, map, at, "agents"),
        override_: capability(cx, map, at, "override").unwrap_or(false),
        floor: capability(cx, map, at, "floor").unwrap_or(false),
    };
    if rule.floor && !floor_is_valid(cx, map, &rule, at) {
        return None;
    }
    has_pattern.then_some(rule)
}

fn rule_pattern(cx: &mut Cx<'_>, map: &Map<String, Value>, at: &Pointer) -> Option<String> {
    let pattern = cx.required_text(map, at, "pattern")?;
    let bad = pattern.starts_with('/') || pattern.split('/').any(|s| s == ".." || s.is_empty());
    if bad {
        cx.error(
            &at.key("pattern"),
            "must be relative, with no empty or .. segment",
        );
        return None;
    }
    Some(pattern.to_owned())
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
        .filter_map(|(i, n)| cx.text(n, &list_at.index(i)).map(str::to_owned))
        .collect()
}

/// "a floor rule may carry only false capabilities and is rejected if it is combined
/// with override, roles, agents, or any granting/true capability. Floors come from
/// trusted package manifests only."
fn floor_is_valid(
    cx: &mut Cx<'_>,
    map: &Map<String, Value>,
    rule: &PathRule,
    at: &Pointer,
) -> bool {
    let before = cx.issues.errors.len();
    if cx.trust < Trust::Trusted {
        cx.error(
            &at.key("floor"),
            "floors come from trusted and first-party manifests only",
        );
    }
    for (key, granted) in [
        ("read", rule.read),
        ("write", rule.write),
        ("exec", rule.exec),
    ] {
        if granted == Some(true) {
            cx.error(&at.key(key), "a floor may carry only false capabilities");
        }
    }
    for key in ["override", "roles", "agents"] {
        if map.contains_key(key) {
            cx.error(
                &at.key(key),
                format!("a floor cannot be combined with {key}"),
            );
        }
    }
    cx.issues.errors.len() == before
}
