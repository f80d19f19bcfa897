//! URI policies on the wire.

use neuralis_access::{Capabilities, PathRule, UriPolicy};
use neuralis_proto::bounds;
use neuralis_proto::policy::v1 as pb;

use crate::PolicyError;

/// Every caller string of a wire policy within `neuralis_proto::bounds`, before the
/// access model reads it: patterns printable (a NUL in a stored rule made every later
/// sync fail), roles and agents bounded ids, and the lists bounded in length.
pub fn check_bounds(policy: &pb::UriPolicy, field: &str) -> Result<(), PolicyError> {
    let rules = format!("{field}.paths");
    bounds::count(
        &rules,
        policy.paths.len(),
        neuralis_access::policy::MAX_RULES,
    )?;
    for (at, rule) in policy.paths.iter().enumerate() {
        let rule_field = format!("{rules}[{at}]");
        bounds::path(&format!("{rule_field}.pattern"), &rule.pattern)?;
        bounds::each(&format!("{rule_field}.roles"), &rule.roles, bounds::id)?;
        bounds::each(&format!("{rule_field}.agents"), &rule.agents, bounds::id)?;
    }
    Ok(())
}

/// A wire policy as the access model reads it (validated by the caller).
pub fn policy_from_proto(policy: pb::UriPolicy) -> UriPolicy {
    let default = policy.default_capabilities.unwrap_or_default();
    UriPolicy {
        hide_flagged_files: policy.hide_flagged_files,
        default: Capabilities {
            read: default.read,
            write: default.write,
            exec: default.exec,
        },
        paths: policy.paths.into_iter().map(rule_from_proto).collect(),
    }
}

fn rule_from_proto(rule: pb::PathRule) -> PathRule {
    PathRule {
        pattern: rule.pattern,
        read: rule.read,
        write: rule.write,
        exec: rule.exec,
        roles: rule.roles,
        agents: rule.agents,
        override_rule: rule.r#override,
        floor: rule.floor,
    }
}

/// A policy on the wire.
pub fn policy_to_proto(policy: &UriPolicy) -> pb::UriPolicy {
    pb::UriPolicy {
        hide_flagged_files: policy.hide_flagged_files,
        default_capabilities: Some(pb::Capabilities {
            read: policy.default.read,
            write: policy.default.write,
            exec: policy.default.exec,
        }),
        paths: policy
            .paths
            .iter()
            .map(|rule| pb::PathRule {
                pattern: rule.pattern.clone(),
                read: rule.read,
                write: rule.write,
                exec: rule.exec,
                roles: rule.roles.clone(),
                agents: rule.agents.clone(),
                r#override: rule.override_rule,
                floor: rule.floor,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_survives_the_wire_unchanged() {
        let policy = UriPolicy {
            hide_flagged_files: true,
            default: Capabilities {
                read: true,
                write: false,
                exec: true,
            },
            paths: vec![
                PathRule {
                    read: Some(false),
                    floor: true,
                    ..PathRule::new("secret/**")
                },
                PathRule {
                    read: Some(true),
                    write: Some(false),
                    roles: vec!["admin".into()],
                    agents: vec!["a1".into()],
                    override_rule: true,
                    ..PathRule::new("docs/*")
                },
            ],
        };
        assert_eq!(policy_from_proto(policy_to_proto(&policy)), policy);
    }
}
