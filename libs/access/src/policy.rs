//! The URI-policy language (DESIGN.md section 4):
//! `{ default: {read, write, exec}, paths: [ {pattern, read?, write?, exec?, roles?,
//! agents?, override?, floor?} ] }`, persisted per source and validated before it is
//! stored.

use serde::{Deserialize, Serialize};

use crate::{AccessError, PathPattern};

/// The most rules one policy may carry.
pub const MAX_RULES: usize = 1024;

/// The three capabilities a policy decides. Discovery needs `read`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capabilities {
    /// May list and read.
    #[serde(default)]
    pub read: bool,
    /// May write.
    #[serde(default)]
    pub write: bool,
    /// May execute.
    #[serde(default)]
    pub exec: bool,
}

/// One entry of `paths`: the capabilities it sets for the paths its pattern matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathRule {
    /// `*` one segment, `**` any depth, relative to the source root.
    pub pattern: String,
    /// Sets `read` when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<bool>,
    /// Sets `write` when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<bool>,
    /// Sets `exec` when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec: Option<bool>,
    /// The roles the rule applies to; empty means everyone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// The agents the rule applies to; empty means everyone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    /// Applied after every non-override rule.
    #[serde(default, rename = "override", skip_serializing_if = "is_false")]
    pub override_rule: bool,
    /// A restrict-only floor: its false capabilities hold whatever any rule says.
    #[serde(default, skip_serializing_if = "is_false")]
    pub floor: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl PathRule {
    /// A rule matching `pattern` that changes nothing yet; set fields with struct update.
    pub fn new(pattern: impl Into<String>) -> Self {
        PathRule {
            pattern: pattern.into(),
            read: None,
            write: None,
            exec: None,
            roles: Vec::new(),
            agents: Vec::new(),
            override_rule: false,
            floor: false,
        }
    }

    /// The capabilities this rule sets, in `read, write, exec` order.
    pub fn changes(&self) -> [Option<bool>; 3] {
        [self.read, self.write, self.exec]
    }

    /// Checks the rule at `paths[at]`. Field names are only formatted for an error:
    /// every request compiles its policies, so the valid path allocates nothing extra.
    fn validate(&self, at: usize) -> Result<PathPattern, AccessError> {
        let field = |name: &str| format!("paths[{at}]{name}");
        let pattern = PathPattern::new(&self.pattern)
            .map_err(|message| AccessError::invalid(field(".pattern"), message))?;
        for (list, names) in [(".roles", &self.roles), (".agents", &self.agents)] {
            if let Some(blank) = names.iter().position(|name| name.trim().is_empty()) {
                return Err(AccessError::invalid(
                    field(&format!("{list}[{blank}]")),
                    "is empty",
                ));
            }
        }
        if self.floor {
            check_floor_shape(self).map_err(|e| e.within(&field("")))?;
        } else if self.changes().iter().all(Option::is_none) {
            return Err(AccessError::invalid(field(""), "sets no capability"));
        }
        Ok(pattern)
    }
}

/// Checks the authoring shape of a floor rule (seed 002: a restrict-only denial; field
/// names are relative to the rule).
pub fn check_floor_shape(rule: &PathRule) -> Result<(), AccessError> {
    if rule.override_rule {
        return Err(AccessError::invalid(
            "override",
            "a floor cannot be an override",
        ));
    }
    if !rule.roles.is_empty() {
        return Err(AccessError::invalid("roles", "a floor applies to everyone"));
    }
    if !rule.agents.is_empty() {
        return Err(AccessError::invalid(
            "agents",
            "a floor applies to everyone",
        ));
    }
    let changes = rule.changes();
    if changes.contains(&Some(true)) {
        return Err(AccessError::invalid(
            "floor",
            "a floor may carry only false capabilities",
        ));
    }
    if !changes.contains(&Some(false)) {
        return Err(AccessError::invalid(
            "floor",
            "a floor must deny at least one capability",
        ));
    }
    Ok(())
}

/// A source's URI policy as persisted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UriPolicy {
    /// The starting capabilities of every path (all false when absent: deny by default).
    #[serde(default)]
    pub default: Capabilities,
    /// The path rules, in declaration order.
    #[serde(default)]
    pub paths: Vec<PathRule>,
    /// Hide flagged files (issue 10 item 6): a file with content flags is denied to
    /// every caller, as if no rule let them read it. Off by default (flags are data).
    #[serde(default, rename = "hideFlaggedFiles", skip_serializing_if = "is_false")]
    pub hide_flagged_files: bool,
}

impl UriPolicy {
    /// Checks every rule and returns the parsed patterns, in declaration order. Errors
    /// name the field, e.g. `paths[3].pattern`.
    pub fn validate(&self) -> Result<Vec<PathPattern>, AccessError> {
        if self.paths.len() > MAX_RULES {
            return Err(AccessError::invalid(
                "paths",
                format!("has more than {MAX_RULES} rules"),
            ));
        }
        self.paths
            .iter()
            .enumerate()
            .map(|(at, rule)| rule.validate(at))
            .collect()
    }

    /// Parses and validates a policy from its JSON form.
    pub fn from_json(text: &str) -> Result<Self, AccessError> {
        let policy: UriPolicy = serde_json::from_str(text).map_err(|error| {
            AccessError::invalid("policy", format!("is not a valid URI policy: {error}"))
        })?;
        policy.validate()?;
        Ok(policy)
    }

    /// Reads a stored policy without validating it: it was validated when it was put,
    /// and evaluation validates again when it compiles it (a policy that fails then
    /// contributes nothing), so a read costs one parse.
    pub fn from_stored_json(text: &str) -> Result<Self, AccessError> {
        serde_json::from_str(text)
            .map_err(|_| AccessError::invalid("policy", "is not a stored URI policy"))
    }

    /// The JSON form stored by the access store.
    pub fn to_json(&self) -> String {
        // Serializing plain strings, booleans and vectors cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_form_uses_the_design_names() {
        let text = r#"{"default":{"read":true},"paths":[
            {"pattern":"secret/**","read":false,"floor":true},
            {"pattern":"docs/**","read":true,"roles":["admin"],"override":true}]}"#;
        let policy = UriPolicy::from_json(text).unwrap();
        assert!(policy.default.read && !policy.default.write);
        assert!(policy.paths[0].floor);
        assert!(policy.paths[1].override_rule);
        assert_eq!(UriPolicy::from_json(&policy.to_json()).unwrap(), policy);
    }

    #[test]
    fn the_stored_form_carries_only_what_the_policy_sets_and_reads_back_unvalidated() {
        let policy = UriPolicy {
            hide_flagged_files: false,
            default: Capabilities {
                read: true,
                ..Capabilities::default()
            },
            paths: vec![PathRule {
                read: Some(false),
                ..PathRule::new("secret/**")
            }],
        };
        let stored = policy.to_json();
        assert_eq!(
            stored,
            r#"{"default":{"read":true,"write":false,"exec":false},"paths":[{"pattern":"secret/**","read":false}]}"#
        );
        assert_eq!(UriPolicy::from_stored_json(&stored).unwrap(), policy);
        // Stored before a rule tightened: read back as stored, for evaluation to refuse.
        let invalid = r#"{"paths":[{"pattern":"/abs","read":true}]}"#;
        assert_eq!(
            UriPolicy::from_stored_json(invalid).unwrap().paths[0].pattern,
            "/abs"
        );
        let AccessError::InvalidArgument { field, message } =
            UriPolicy::from_stored_json(r#"{"paths":"secret"}"#).unwrap_err();
        assert_eq!(field, "policy");
        assert!(!message.contains("secret"), "{message}");
    }

    #[test]
    fn a_missing_default_denies_everything() {
        let policy = UriPolicy::from_json(r#"{"paths":[]}"#).unwrap();
        assert_eq!(policy.default, Capabilities::default());
    }

    #[test]
    fn malformed_policies_name_the_field() {
        let cases = [
            (
                r#"{"paths":[{"pattern":"a","read":true},{"pattern":"/b","read":true}]}"#,
                "paths[1].pattern",
            ),
            (r#"{"paths":[{"pattern":"a"}]}"#, "paths[0]"),
            (
                r#"{"paths":[{"pattern":"a","read":true,"roles":[""]}]}"#,
                "paths[0].roles[0]",
            ),
            (
                r#"{"paths":[{"pattern":"a","read":true,"agents":["x"," "]}]}"#,
                "paths[0].agents[1]",
            ),
            (
                r#"{"paths":[{"pattern":"a","read":true,"color":"red"}]}"#,
                "policy",
            ),
            (r#"{"default":{"read":"yes"}}"#, "policy"),
        ];
        for (text, expected) in cases {
            let AccessError::InvalidArgument { field, .. } =
                UriPolicy::from_json(text).unwrap_err();
            assert_eq!(field, expected, "{text}");
        }
    }
}
