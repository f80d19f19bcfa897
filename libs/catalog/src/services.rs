//! Host service contracts across packages (seed 002 "provides"): "Runtime and ticket
//! verifier are required singletons; the other service families are optional
//! singletons", and OAuth callback prefixes "cannot overlap" — between packages as
//! within one. A package that would break either is rejected whole (load order
//! decides which is later); a missing required singleton is reported, not fatal,
//! because a collision or a gap "never refuses to start".

use neuralis_manifest::provides::{Service, prefixes_overlap};
use serde::Serialize;

/// One contract and the package that implements it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provider {
    pub service: Service,
    pub package: String,
}

/// Every host service contract implemented by a loaded package.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ServiceRegistry {
    providers: Vec<Provider>,
}

impl ServiceRegistry {
    /// Why `package` cannot add `services` (one message per conflict); empty when it can.
    pub fn conflicts(&self, package: &str, services: &[Service]) -> Vec<String> {
        services
            .iter()
            .filter_map(|s| self.conflict(package, s))
            .collect()
    }

    fn conflict(&self, package: &str, service: &Service) -> Option<String> {
        let other = self
            .providers
            .iter()
            .filter(|p| p.package != package)
            .find(|p| clash(&p.service, service))?;
        Some(format!(
            "{} clashes with {} provided by {}",
            service.contract_id(),
            other.service.contract_id(),
            other.package
        ))
    }

    /// Records the services of an admitted package.
    pub fn register(&mut self, package: &str, services: &[Service]) {
        let added = services.iter().map(|s| Provider {
            service: s.clone(),
            package: package.to_owned(),
        });
        self.providers.extend(added);
    }

    /// The implementation of a contract, by contract id.
    pub fn provider(&self, contract_id: &str) -> Option<&Provider> {
        self.providers
            .iter()
            .find(|p| p.service.contract_id() == contract_id)
    }

    /// Required singletons nobody provides.
    pub fn missing_required(&self) -> Vec<Service> {
        [Service::Runtime, Service::SessionTicketVerifier]
            .into_iter()
            .filter(|s| !self.providers.iter().any(|p| &p.service == s))
            .collect()
    }
}

/// Two declarations clash when they are the same singleton or overlapping OAuth prefixes.
fn clash(a: &Service, b: &Service) -> bool {
    match (a, b) {
        (Service::OauthCallback(x), Service::OauthCallback(y)) => prefixes_overlap(x, y),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn singletons_have_one_provider_across_packages() {
        let mut registry = ServiceRegistry::default();
        assert!(
            registry
                .conflicts("a", &[Service::Runtime, Service::AgentDirectory])
                .is_empty()
        );
        registry.register("a", &[Service::Runtime, Service::AgentDirectory]);
        assert_eq!(registry.conflicts("b", &[Service::Runtime]).len(), 1);
        assert_eq!(
            registry
                .conflicts("b", &[Service::AgentDirectory, Service::McpServer])
                .len(),
            1
        );
        assert!(
            registry
                .conflicts("b", &[Service::SessionTicketVerifier])
                .is_empty()
        );
        assert_eq!(
            registry.provider("runtime").map(|p| p.package.as_str()),
            Some("a")
        );
    }

    #[test]
    fn oauth_prefixes_never_overlap_across_packages() {
        let mut registry = ServiceRegistry::default();
        registry.register("a", &[Service::OauthCallback("git_".into())]);
        assert!(
            registry
                .conflicts("b", &[Service::OauthCallback("codex_".into())])
                .is_empty()
        );
        assert_eq!(
            registry
                .conflicts("b", &[Service::OauthCallback("git_hub_".into())])
                .len(),
            1
        );
        assert_eq!(
            registry
                .conflicts("b", &[Service::OauthCallback("git_".into())])
                .len(),
            1
        );
    }

    #[test]
    fn required_singletons_are_reported_when_missing() {
        let mut registry = ServiceRegistry::default();
        assert_eq!(
            registry.missing_required(),
            [Service::Runtime, Service::SessionTicketVerifier]
        );
        registry.register("a", &[Service::SessionTicketVerifier]);
        assert_eq!(registry.missing_required(), [Service::Runtime]);
    }
}
