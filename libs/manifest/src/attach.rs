//! What a manifest's access declarations become when the host first attaches the
//! package (seed 002, "requires" and "uriPolicies"): default role grants and URI-policy
//! baselines with `<self>` substituted by the package's own URI scope, floors included.
//!
//! Pure: the policy service's store persists the result ([`Attachment`]); how a stored
//! default interacts with an administrator's edits is the store's (a revoked default
//! stays revoked, a floor cannot be loosened).

use std::collections::{BTreeMap, BTreeSet};

use neuralis_access::{Capabilities, PathRule, UriPolicy};
use neuralis_layout::Trust;

use crate::Manifest;
use crate::uri_policies::UriPolicyBaseline;

/// The URI scheme of a package's own files (`packages://<id>/`).
pub const PACKAGES_SCHEME: &str = "packages://";
/// The URI scheme of a package's data zone (`data://<zone>/`).
pub const DATA_SCHEME: &str = "data://";

/// One package's access declarations, ready to persist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// The package id: the grantor of its default grants.
    pub package_id: String,
    /// Role to the features it receives by default (any feature id, see
    /// [`attachment`]).
    pub default_role_grants: BTreeMap<String, BTreeSet<String>>,
    /// One policy per URI scope the package declares (`packages://<id>`,
    /// `data://<zone>`), paths relative to that scope.
    pub baselines: Vec<ScopeBaseline>,
}

/// The baseline policy of one URI scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeBaseline {
    /// The scope with `<self>` substituted, without a trailing `/`: the key the store
    /// keeps the policy under (`packages://acme`).
    pub scope: String,
    /// The policy, rules relative to the scope.
    pub policy: UriPolicy,
}

/// The scope `packages://<self>` names for package `id`.
pub fn packages_scope(id: &str) -> String {
    format!("{PACKAGES_SCHEME}{id}")
}

/// The scope `data://<self>` names: the platform's provisioning mapping (seed 002,
/// "dataLayout"): `data://<id>` for a first-party package, `data://_installed/<id>` for
/// every other install class.
pub fn data_scope(id: &str, trust: Trust) -> String {
    // The zone is one folder of the data tree (`@acme/reports` is `acme-reports`).
    let slug = crate::data_layout::zone_slug(id);
    match trust {
        Trust::FirstParty => format!("{DATA_SCHEME}{slug}"),
        _ => format!("{DATA_SCHEME}_installed/{slug}"),
    }
}

/// The attachment of a validated manifest.
///
/// - `defaultRoleGrants` "maps role names to the feature ids each role receives by
///   default": every id is kept, the package's own or another's (the seed limits
///   nothing; docs/decisions/policy.md). The package is the grantor, so a later version
///   replaces these grants and a removed package stops granting them.
/// - `uriPolicies`: "The loader substitutes <self> at boot and seeds matching baselines
///   into source configuration at first attach." Each declared pattern
///   `<scheme><self>/<rest>` lands in its scope's policy; a `rest` of `**` sets the
///   scope's default, any other `rest` becomes a rule carrying the declared default for
///   the paths it matches. A scope that declares no `**` baseline starts readable (an
///   installed package without baselines is visible), nothing else.
pub fn attachment(manifest: &Manifest) -> Attachment {
    let id = manifest.id();
    let default_role_grants = manifest
        .requires
        .default_role_grants
        .iter()
        .filter(|(_, features)| !features.is_empty())
        .map(|(role, features)| (role.clone(), features.iter().cloned().collect()))
        .collect();
    let mut scopes: BTreeMap<String, Vec<&UriPolicyBaseline>> = BTreeMap::new();
    for baseline in &manifest.uri_policies {
        if let Some((scope, _)) = split(baseline, id, manifest.trust) {
            scopes.entry(scope).or_default().push(baseline);
        }
    }
    let baselines = scopes
        .into_iter()
        .map(|(scope, declared)| ScopeBaseline {
            policy: scope_policy(&declared, id, manifest.trust),
            scope,
        })
        .collect();
    Attachment {
        package_id: id.to_owned(),
        default_role_grants,
        baselines,
    }
}

/// The scope and the rest of a declared pattern (`data://<self>/cache/**` gives
/// `data://<zone>` and `cache/**`).
fn split(baseline: &UriPolicyBaseline, id: &str, trust: Trust) -> Option<(String, String)> {
    let pattern = baseline.pattern.as_str();
    if let Some(rest) = pattern.strip_prefix("packages://<self>/") {
        return Some((packages_scope(id), rest.to_owned()));
    }
    pattern
        .strip_prefix("data://<self>/")
        .map(|rest| (data_scope(id, trust), rest.to_owned()))
}

fn scope_policy(declared: &[&UriPolicyBaseline], id: &str, trust: Trust) -> UriPolicy {
    let whole = declared
        .iter()
        .find(|baseline| split(baseline, id, trust).is_some_and(|(_, rest)| rest == "**"));
    let mut policy = UriPolicy {
        hide_flagged_files: false,
        default: whole.map_or(
            Capabilities {
                read: true,
                write: false,
                exec: false,
            },
            |baseline| baseline.policy.default,
        ),
        paths: Vec::new(),
    };
    for baseline in declared {
        let Some((_, rest)) = split(baseline, id, trust) else {
            continue;
        };
        if rest != "**" {
            let default = baseline.policy.default;
            policy.paths.push(PathRule {
                read: Some(default.read),
                write: Some(default.write),
                exec: Some(default.exec),
                ..PathRule::new(rest)
            });
        }
        policy.paths.extend(baseline.policy.paths.iter().cloned());
    }
    policy
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::{Status, validate};
    use serde_json::json;

    fn manifest(neuralis: serde_json::Value, trust: Trust) -> Manifest {
        let doc = json!({"name": "acme", "neuralis": neuralis});
        let report = validate(&doc, trust);
        assert_eq!(report.status, Status::Loads, "{:?}", report.errors);
        report.manifest.unwrap()
    }

    #[test]
    fn self_is_substituted_by_the_package_own_uri_scope() {
        let m = manifest(
            json!({"uriPolicies": {
                "packages://<self>/**": {"default": {"read": true}},
                "data://<self>/**": {"default": {"read": true, "write": true}}
            }}),
            Trust::Trusted,
        );
        let scopes: Vec<String> = attachment(&m)
            .baselines
            .into_iter()
            .map(|b| b.scope)
            .collect();
        assert_eq!(scopes, ["data://_installed/acme", "packages://acme"]);
        assert_eq!(data_scope("acme", Trust::FirstParty), "data://acme");
        assert_eq!(
            data_scope("@acme/reports", Trust::Trusted),
            "data://_installed/acme-reports",
            "the zone is the one folder dataLayout renders"
        );
    }

    #[test]
    fn a_narrow_baseline_becomes_a_rule_and_floors_are_kept() {
        let m = manifest(
            json!({"uriPolicies": {
                "packages://<self>/secret/**": {
                    "default": {"read": false},
                    "paths": [{"pattern": "secret/keys/**", "read": false, "floor": true}]
                }
            }}),
            Trust::Trusted,
        );
        let attached = attachment(&m);
        let policy = &attached.baselines[0].policy;
        assert!(
            policy.default.read,
            "a scope without a ** baseline starts readable"
        );
        assert_eq!(policy.paths[0].pattern, "secret/**");
        assert_eq!(policy.paths[0].read, Some(false));
        assert!(policy.paths[1].floor);
        assert!(policy.validate().is_ok());
    }

    #[test]
    fn a_narrow_baseline_rule_carries_every_capability_of_its_declared_default() {
        for (read, write, exec) in [(true, false, true), (false, true, false)] {
            let m = manifest(
                json!({"uriPolicies": {
                    "data://<self>/cache/**": {
                        "default": {"read": read, "write": write, "exec": exec}
                    }
                }}),
                Trust::Trusted,
            );
            let rule = &attachment(&m).baselines[0].policy.paths[0];
            assert_eq!(rule.pattern, "cache/**");
            assert_eq!(
                (rule.read, rule.write, rule.exec),
                (Some(read), Some(write), Some(exec)),
                "declared read {read}, write {write}, exec {exec}"
            );
        }
    }

    #[test]
    fn default_role_grants_may_name_any_feature_id() {
        let m = manifest(
            json!({"requires": {
                "providesFeatures": ["acme.read"],
                "accessFeature": "acme.access",
                "defaultRoleGrants": {"member": ["acme.read", "acme.access", "other.admin"], "guest": ["other.x"]}
            }}),
            Trust::Untrusted,
        );
        let set = |ids: &[&str]| ids.iter().map(|id| id.to_string()).collect::<BTreeSet<_>>();
        assert_eq!(
            attachment(&m).default_role_grants,
            BTreeMap::from([
                ("guest".to_owned(), set(&["other.x"])),
                (
                    "member".to_owned(),
                    set(&["acme.access", "acme.read", "other.admin"])
                ),
            ])
        );
    }
}
