//! Wiring one process: each service it runs is built from its settings and mounted
//! behind its authorization layer; each service it does not run, but needs, is reached
//! through its gRPC client. Both sides implement the same tonic-free trait, so
//! discovery never knows which it has.
//!
//! What each target builds ([`wire`]), in this order:
//! - **policy**: the policy service over its access store, mounted, and its in-process
//!   client;
//! - **sync**: the sources service over its index store, mounted; the index feed
//!   handed to discovery when it runs here, otherwise served on the internal listener;
//!   forgetting a source asks policy (here, or its peer);
//! - **discovery**: the discovery service over the feed and the access decisions (sync
//!   and policy here, or their peers), mounted, and its in-process client;
//! - **all-in-one**: all three, calling each other in process.

use std::sync::Arc;

use anyhow::{Context, Result};
use neuralis_authz::{Gate, Verifiers, tables};
use neuralis_bus::InvalidationBus;
use neuralis_discovery::adapters::{LinkedAccess, PolicyAccess};
use neuralis_discovery::grpc::DiscoveryGrpcServer;
use neuralis_discovery::ports::AccessPort;
use neuralis_discovery::{DiscoveryApi, InProcessDiscovery};
use neuralis_host::tls::ClientTls;
use neuralis_identity::{ServiceSigner, ServiceVerifier, Verifier};
use neuralis_policy::{InProcessPolicy, PolicyApi, PolicyService};
use neuralis_sync::grpc::IndexFeedGrpcClient;
use neuralis_sync::{IndexFeedApi, SourceApi};
use tonic::service::Routes;

use super::forget::PolicyForgetter;
use super::keys;
use super::peers::{peer, policy_client};
use super::readiness::{Dependency, Probe};
use super::services;
use super::settings::NodeSettings;
use super::subscription::BusSource;
use super::target::{Target, Targets};

/// In-process clients of the services a node runs (or reaches), every call decided by
/// the same gate as over gRPC.
#[derive(Clone, Default)]
pub struct Clients {
    /// The administration of sources.
    pub sources: Option<Arc<dyn SourceApi>>,
    pub policy: Option<Arc<dyn PolicyApi>>,
    pub discovery: Option<Arc<dyn DiscoveryApi>>,
}

/// What wiring produced: the routes to serve and the names to report.
#[derive(Default)]
pub(crate) struct Wired {
    /// The public listener's services.
    pub routes: Routes,
    pub service_names: Vec<&'static str>,
    /// The index feed, for the internal listener: only when this process runs sync
    /// without discovery (otherwise discovery calls it in process and it is not served).
    pub internal: Option<Routes>,
    pub clients: Clients,
    /// What the services need in order to answer (peers, the index store), for
    /// readiness.
    pub dependencies: Vec<Dependency>,
}

/// Builds every service `targets` names (`checks::check` passed), calling peers with
/// `peers`' TLS.
pub(crate) async fn wire(
    settings: &NodeSettings,
    targets: &Targets,
    peers: &ClientTls,
) -> Result<Wired> {
    let mut wiring = Wiring {
        settings,
        targets,
        peers,
        keys: Keys::load(settings, targets)?,
        wired: Wired::default(),
    };
    let policy = if targets.runs(Target::Policy) {
        Some(wiring.policy().await?)
    } else {
        None
    };
    wiring.wired.clients.policy = policy.clone().map(|api| api as Arc<dyn PolicyApi>);
    let sync = if targets.runs(Target::Sync) {
        wiring.sync(policy.clone()).await?
    } else {
        None
    };
    if targets.runs(Target::Discovery) {
        wiring.discovery(policy, sync).await?;
    }
    Ok(wiring.wired)
}

/// What discovery takes from a sync running in the same process.
struct LocalSync {
    feed: Arc<dyn IndexFeedApi>,
    bus: Arc<dyn InvalidationBus>,
    /// Sync's root rules, for the flagged sources discovery scans here (the same
    /// shape as discovery's `RootGate`).
    roots: neuralis_sync::service::RootChecker,
}

/// One process being wired: what it is asked to run, and what is built so far.
struct Wiring<'a> {
    settings: &'a NodeSettings,
    targets: &'a Targets,
    peers: &'a ClientTls,
    keys: Keys,
    wired: Wired,
}

impl Wiring<'_> {
    /// The policy service, mounted; its in-process API for the services beside it.
    async fn policy(&mut self) -> Result<Arc<InProcessPolicy>> {
        let mut config = self.settings.policy.clone();
        config.store = self.settings.policy_store();
        let service = PolicyService::from_config(&config, self.keys.verifiers.clone())
            .await
            .context("starting policy")?;
        // Policy answers nothing without its store; nor does discovery beside it.
        self.depend(Dependency {
            check: "access_store",
            needed_by: self.with_discovery(neuralis_policy::SERVICE_NAME),
            probe: Probe::AccessStore(service.store()),
        });
        let api = service.api();
        self.mount(neuralis_policy::SERVICE_NAME, |routes| {
            routes.add_service(service.into_server())
        });
        Ok(api)
    }

    /// The sync service, mounted; its feed and bus when discovery runs beside it (the
    /// feed is served on the internal listener otherwise).
    async fn sync(&mut self, policy: Option<Arc<InProcessPolicy>>) -> Result<Option<LocalSync>> {
        let discovery_here = self.targets.runs(Target::Discovery);
        let policy: Arc<dyn PolicyApi> = match policy {
            Some(local) => local,
            None => policy_client(self.settings, self.peers)?.1,
        };
        let forgetter = Arc::new(PolicyForgetter::new(
            policy,
            Arc::new(self.keys.signer("sync")?),
        ));
        let (service, store) = services::sync(
            self.settings,
            self.keys.verifiers.clone(),
            !discovery_here,
            forgetter,
        )
        .await?;
        // Sync answers nothing without its index. Discovery beside it keeps answering
        // warm listings (a read of the index that fails is its project's UNAVAILABLE).
        self.depend(Dependency {
            check: "index_store",
            needed_by: vec![neuralis_sync::grpc::SOURCES_SERVICE_NAME],
            probe: Probe::IndexStore(store),
        });
        let bus = service.bus();
        self.wired.clients.sources = Some(service.sources_api());
        self.mount(neuralis_sync::grpc::SOURCES_SERVICE_NAME, |routes| {
            routes.add_service(service.sources_server())
        });
        if !discovery_here {
            self.wired.internal = Some(Routes::new(service.feed_server()));
            return Ok(None);
        }
        Ok(Some(LocalSync {
            feed: service.feed_api(),
            bus,
            roots: service.root_checker(),
        }))
    }

    /// The discovery service over sync and policy (here or their peers), mounted, and
    /// its in-process client.
    async fn discovery(
        &mut self,
        policy: Option<Arc<InProcessPolicy>>,
        sync: Option<LocalSync>,
    ) -> Result<()> {
        // A flagged source's directory is on this host only when sync runs here, and
        // is scanned only as sync's root rules allow it.
        let (feed, bus, roots_here) = match sync {
            Some(local) => (local.feed, BusSource::Shared(local.bus), Some(local.roots)),
            None => (
                self.remote_feed()?,
                BusSource::Configured(self.settings.sync.bus.clone()),
                None,
            ),
        };
        let signer = Arc::new(self.keys.signer("discovery")?);
        let (policy, access) = match policy {
            Some(linked) => linked_access(linked, &signer)?,
            None => self.remote_access(&signer)?,
        };
        let discovery =
            services::discovery(self.settings, feed, policy, access, bus, signer, roots_here)
                .await?;
        let gate = Gate::new(&tables::discovery::TABLE, self.keys.verifiers.clone());
        self.wired.clients.discovery = Some(Arc::new(InProcessDiscovery::new(
            gate.clone(),
            discovery.clone(),
        )) as Arc<dyn DiscoveryApi>);
        self.mount(neuralis_discovery::grpc::SERVICE_NAME, |routes| {
            routes.add_service(DiscoveryGrpcServer::service(discovery, gate))
        });
        Ok(())
    }

    /// Sync's index feed over gRPC, for discovery without sync beside it.
    fn remote_feed(&mut self) -> Result<Arc<dyn IndexFeedApi>> {
        let channel = peer(
            self.settings,
            self.peers,
            self.settings.peers.sync_feed_url.as_deref(),
            "peers.sync_feed_url",
        )?;
        self.depend(Dependency {
            // Reported, never gating: with sync away discovery answers warm
            // listings, and each read that needs sync is its project's UNAVAILABLE.
            check: "sync",
            needed_by: Vec::new(),
            probe: Probe::Health {
                channel: channel.channel.clone(),
                service: neuralis_sync::grpc::FEED_SERVICE_NAME,
            },
        });
        Ok(Arc::new(IndexFeedGrpcClient::new(channel)))
    }

    /// Policy's API (for the rare calls: attach, key moves) and the port that decides
    /// access, both over gRPC, for discovery without policy beside it.
    fn remote_access(
        &mut self,
        signer: &Arc<ServiceSigner>,
    ) -> Result<(Arc<dyn PolicyApi>, Arc<dyn AccessPort>)> {
        let (channel, client) = policy_client(self.settings, self.peers)?;
        self.depend(Dependency {
            check: "policy",
            needed_by: vec![neuralis_discovery::grpc::SERVICE_NAME],
            probe: Probe::Health {
                channel,
                service: neuralis_policy::SERVICE_NAME,
            },
        });
        let access = PolicyAccess::new(client.clone(), signer.clone());
        Ok((client, Arc::new(access)))
    }

    /// `service` and, when it runs here, discovery: what cannot answer without a store
    /// of `service`'s.
    fn with_discovery(&self, service: &'static str) -> Vec<&'static str> {
        let mut needed_by = vec![service];
        if self.targets.runs(Target::Discovery) {
            needed_by.push(neuralis_discovery::grpc::SERVICE_NAME);
        }
        needed_by
    }

    fn depend(&mut self, dependency: Dependency) {
        self.wired.dependencies.push(dependency);
    }

    /// Serves `name` on the public listener (`add` mounts it).
    fn mount(&mut self, name: &'static str, add: impl FnOnce(Routes) -> Routes) {
        self.wired.routes = add(std::mem::take(&mut self.wired.routes));
        self.wired.service_names.push(name);
    }
}

/// Policy's API (for the rare calls: attach, key moves) and the port that decides
/// access, with policy in this process: decisions asked in domain terms, discovery's
/// credential decided by policy's gate once, now.
fn linked_access(
    linked: Arc<InProcessPolicy>,
    signer: &Arc<ServiceSigner>,
) -> Result<(Arc<dyn PolicyApi>, Arc<dyn AccessPort>)> {
    let credential = signer.credential().context("discovery's credential")?;
    let evaluate = linked
        .linked_evaluate(&credential)
        .context("policy refused discovery's service credential")?;
    let api: Arc<dyn PolicyApi> = linked;
    let access = LinkedAccess::new(evaluate, PolicyAccess::new(api.clone(), signer.clone()));
    Ok((api, Arc::new(access)))
}

/// The keys of one process: how callers and services are verified, and how this
/// process signs its own service credentials.
struct Keys {
    verifiers: Arc<Verifiers>,
    service: neuralis_identity::ServiceIdentityConfig,
}

impl Keys {
    /// All-in-one may use local keys created on first start; split mode uses the
    /// configured ones (`check` refused a split process without them).
    fn load(settings: &NodeSettings, targets: &Targets) -> Result<Self> {
        let (identity, service) = if targets.is_all_in_one() {
            (
                keys::with_local_key(settings.identity.clone(), &settings.data_dir)?,
                keys::with_local_service_key(
                    settings.service_identity.clone(),
                    &settings.data_dir,
                )?,
            )
        } else {
            (settings.identity.clone(), settings.service_identity.clone())
        };
        let callers = Verifier::from_config(&identity).context("identity")?;
        let services = ServiceVerifier::from_config(&service)?;
        let verifiers = Verifiers::new(
            Arc::new(callers),
            Arc::new(services),
            &settings.policy.admin_roles,
        );
        Ok(Keys {
            verifiers: Arc::new(verifiers),
            service,
        })
    }

    /// The signer of `service`'s own credentials.
    fn signer(&self, service: &str) -> Result<ServiceSigner> {
        Ok(ServiceSigner::from_config(&self.service, service)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_mode_never_falls_back_to_a_generated_key() {
        let dir = tempfile::tempdir().unwrap();
        let settings = NodeSettings {
            data_dir: dir.path().to_owned(),
            ..NodeSettings::default()
        };
        assert!(Keys::load(&settings, &Targets::new([Target::Policy])).is_err());
        assert!(!keys::key_path(dir.path()).exists(), "no key was written");
        assert!(!keys::service_key_path(dir.path()).exists());
        let all_in_one = Keys::load(&settings, &Targets::new([])).unwrap();
        assert!(
            all_in_one.signer("discovery").is_ok(),
            "all-in-one creates its local keys"
        );
        assert!(keys::service_key_path(dir.path()).exists());
    }
}
