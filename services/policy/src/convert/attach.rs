//! `AttachPackages` on the wire: installed packages' access declarations as the store
//! keeps them. A scope must be one of the package's own (`packages://<id>`,
//! `data://<id>`, `data://_installed/<id>`), so one package's attach never reaches
//! another's policy.

use neuralis_access::grant::check_name;
use neuralis_access_store::{PackageDefaults, RoleFeatures};
use neuralis_proto::policy::v1 as pb;

use super::{policy_from_proto, required};
use crate::PolicyError;

/// The packages of one call, checked.
pub fn attachments_from_proto(
    request: pb::AttachPackagesRequest,
) -> Result<Vec<PackageDefaults>, PolicyError> {
    request
        .packages
        .into_iter()
        .enumerate()
        .map(|(at, package)| attachment(package, &format!("packages[{at}]")))
        .collect()
}

fn attachment(package: pb::PackageAttachment, at: &str) -> Result<PackageDefaults, PolicyError> {
    let package_id = required(package.package_id, &format!("{at}.package_id"))?;
    check_name(&package_id, &format!("{at}.package_id"))?;
    let mut default_role_grants = RoleFeatures::new();
    for (i, grant) in package.default_role_grants.into_iter().enumerate() {
        let field = format!("{at}.default_role_grants[{i}]");
        let role = required(grant.role, &format!("{field}.role"))?;
        check_name(&role, &format!("{field}.role"))?;
        for feature in &grant.features {
            check_name(feature, &format!("{field}.features"))?;
        }
        default_role_grants
            .entry(role)
            .or_default()
            .extend(grant.features);
    }
    let zone = neuralis_access::data_zone::zone_slug(&package_id);
    let own = [
        format!("packages://{package_id}"),
        format!("data://{zone}"),
        format!("data://_installed/{zone}"),
    ];
    let mut baselines = Vec::new();
    for (i, baseline) in package.baselines.into_iter().enumerate() {
        let field = format!("{at}.baselines[{i}]");
        if !own.contains(&baseline.scope) {
            return Err(PolicyError::invalid(
                format!("{field}.scope"),
                "is not one of the package's own scopes",
            ));
        }
        let policy = baseline
            .policy
            .ok_or_else(|| PolicyError::invalid(format!("{field}.policy"), "is required"))?;
        super::check_bounds(&policy, &format!("{field}.policy"))?;
        let policy = policy_from_proto(policy);
        policy
            .validate()
            .map_err(|error| PolicyError::from(error.within(&format!("{field}.policy"))))?;
        baselines.push((baseline.scope, policy));
    }
    Ok(PackageDefaults {
        package_id,
        default_role_grants,
        baselines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(result: Result<Vec<PackageDefaults>, PolicyError>) -> String {
        match result {
            Err(PolicyError::InvalidArgument { field, .. }) => field,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_attach_reaches_only_the_package_own_scopes() {
        let request = |scope: &str| pb::AttachPackagesRequest {
            packages: vec![pb::PackageAttachment {
                package_id: "acme".into(),
                default_role_grants: vec![],
                baselines: vec![pb::ScopeBaseline {
                    scope: scope.into(),
                    policy: Some(pb::UriPolicy::default()),
                }],
            }],
            complete: false,
        };
        for own in ["packages://acme", "data://acme", "data://_installed/acme"] {
            assert!(attachments_from_proto(request(own)).is_ok(), "{own}");
        }
        for foreign in ["packages://other", "p1/repo", "data://acme/../other"] {
            assert_eq!(
                field(attachments_from_proto(request(foreign))),
                "packages[0].baselines[0].scope"
            );
        }
    }
}
