//! Manifest access at attach (issue 10 item 3; seed 002): when discovery loads the
//! installed catalog, it hands policy every package's `defaultRoleGrants` and
//! `uriPolicies` baselines (`<self>` substituted), so a package gated by its
//! `accessFeature` is visible to the roles its manifest grants without an administrator
//! copying grants by hand. Policy's store decides what an attach may change (a revoked
//! default stays revoked, a floor is never lost).

use std::sync::Arc;
use std::time::Duration;

use neuralis_catalog::Catalog;
use neuralis_identity::ServiceSigner;
use neuralis_manifest::Manifest;
use neuralis_manifest::attach::{Attachment, attachment};
use neuralis_policy::PolicyApi;
use neuralis_policy::convert::policy_to_proto;
use neuralis_proto::policy::v1 as pb;

/// The longest wait between two attempts while policy is not reachable yet.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The attach request for every loaded package of `catalog`, complete: a package that
/// granted by default before and is no longer loaded (removed) stops granting. A package
/// declaring nothing is left out, which drops whatever an earlier version granted.
pub fn attach_request(catalog: &Catalog) -> pb::AttachPackagesRequest {
    attach_request_of(catalog.packages().iter().map(|package| &package.manifest))
}

/// [`attach_request`] over the loaded manifests.
pub fn attach_request_of<'a>(
    manifests: impl IntoIterator<Item = &'a Manifest>,
) -> pb::AttachPackagesRequest {
    let packages = manifests
        .into_iter()
        .map(|manifest| to_proto(&attachment(manifest)))
        .filter(|attached| {
            !attached.default_role_grants.is_empty() || !attached.baselines.is_empty()
        })
        .collect();
    pb::AttachPackagesRequest {
        packages,
        complete: true,
    }
}

/// An attachment on the wire.
pub fn to_proto(attached: &Attachment) -> pb::PackageAttachment {
    pb::PackageAttachment {
        package_id: attached.package_id.clone(),
        default_role_grants: attached
            .default_role_grants
            .iter()
            .map(|(role, features)| pb::RoleGrant {
                role: role.clone(),
                features: features.iter().cloned().collect(),
                revoked: Vec::new(),
            })
            .collect(),
        baselines: attached
            .baselines
            .iter()
            .map(|baseline| pb::ScopeBaseline {
                scope: baseline.scope.clone(),
                policy: Some(policy_to_proto(&baseline.policy)),
            })
            .collect(),
    }
}

/// Attaches `request` once policy answers: retried with backoff while policy is
/// unreachable (in split mode it may start after discovery), given up on a refusal or a
/// bad request, which no retry can fix.
pub async fn attach_installed(
    policy: Arc<dyn PolicyApi>,
    signer: Arc<ServiceSigner>,
    request: pb::AttachPackagesRequest,
) {
    // An empty complete request still matters: every package granting before is gone.
    let mut backoff = Duration::from_millis(200);
    loop {
        let outcome = match signer.credential() {
            Ok(credential) => policy.attach_packages(credential, request.clone()).await,
            Err(error) => {
                tracing::error!(%error, "no service credential to attach installed packages");
                return;
            }
        };
        match outcome {
            Ok(_) => {
                tracing::info!(
                    packages = request.packages.len(),
                    "installed packages' access attached"
                );
                return;
            }
            Err(neuralis_policy::PolicyError::Unavailable(reason)) => {
                tracing::warn!(%reason, "policy unavailable; attaching installed packages again later");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
            Err(error) => {
                tracing::error!(%error, "installed packages' access not attached");
                return;
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use neuralis_layout::Trust;
    use serde_json::json;

    fn manifest(requires: serde_json::Value) -> Manifest {
        let doc = json!({"name": "acme", "neuralis": {"id": "acme", "requires": requires}});
        neuralis_manifest::validate(&doc, Trust::Trusted)
            .manifest
            .unwrap()
    }

    #[test]
    fn a_new_version_that_drops_its_grants_replaces_the_old_grants() {
        let dropped = manifest(json!({"providesFeatures": ["acme.read"]}));
        let request = attach_request_of([&dropped]);
        assert!(request.complete, "packages not named lose their defaults");
        assert!(request.packages.is_empty());
    }

    #[test]
    fn a_default_grant_of_another_package_feature_is_attached() {
        let granting = manifest(json!({"defaultRoleGrants": {"member": ["other.read"]}}));
        let request = attach_request_of([&granting]);
        assert_eq!(
            request.packages[0].default_role_grants[0].features,
            ["other.read"]
        );
    }
}
