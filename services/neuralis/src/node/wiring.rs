//! Wiring one process: each service it runs is built from its settings and mounted;
//! each service it does not run, but needs, is reached through its gRPC client. Both
//! sides implement the same tonic-free trait, so discovery never knows which it has.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use neuralis_bus::InvalidationBus;
use neuralis_catalog::{Catalog, Extras, ReadLimits, Roots};
use neuralis_discovery::adapters::{LoadedCatalog, PolicyAccess, SyncIndex, TokenVerifier};
use neuralis_discovery::grpc::DiscoveryGrpcServer;
use neuralis_discovery::inventory::InventoryShell;
use neuralis_discovery::service::DiscoveryParts;
use neuralis_discovery::{Discovery, DiscoveryApi};
use neuralis_host::tls::ClientTls;
use neuralis_identity::{IdentityConfig, Verifier};
use neuralis_policy::{PolicyApi, PolicyGrpcClient, PolicyService};
use neuralis_sync::config::IndexStoreConfig;
use neuralis_sync::grpc::SyncGrpcClient;
use neuralis_sync::{SyncApi, SyncParts, SyncService};
use tonic::service::Routes;
use tonic::transport::Channel;

use super::authorize::VerifiedAdmins;
use super::keys;
use super::settings::NodeSettings;
use super::target::{Target, Targets};

/// In-process clients of the services a node runs (or reaches).
#[derive(Clone, Default)]
pub struct Clients {
    pub sync: Option<Arc<dyn SyncApi>>,
    pub policy: Option<Arc<dyn PolicyApi>>,
    pub discovery: Option<Arc<dyn DiscoveryApi>>,
}

/// What wiring produced: the routes to serve and the names to report.
pub(crate) struct Wired {
    pub routes: Routes,
    pub service_names: Vec<&'static str>,
    pub clients: Clients,
}

/// Builds every service `targets` names.
pub(crate) async fn wire(
    settings: &NodeSettings,
    targets: &Targets,
    peers: &ClientTls,
) -> Result<Wired> {
    let identity = identity(settings, targets)?;
    let verifier = Arc::new(Verifier::from_config(&identity).context("identity")?);
    let mut routes = Routes::default();
    let mut names = Vec::new();
    let mut clients = Clients::default();

    if targets.runs(Target::Policy) {
        let mut config = settings.policy.clone();
        config.identity = identity.clone();
        if let neuralis_access_store::StoreConfig::Embedded { path } = &mut config.store {
            *path = under_data_dir(path, &settings.data_dir, "policy.db");
        }
        let service = PolicyService::from_config(&config)
            .await
            .context("starting policy")?;
        clients.policy = Some(service.local() as Arc<dyn PolicyApi>);
        routes = routes.add_service(service.into_server());
        names.push(neuralis_policy::SERVICE_NAME);
    }

    let mut bus: Option<Arc<dyn InvalidationBus>> = None;
    if targets.runs(Target::Sync) {
        let mut config = settings.sync.clone();
        if let IndexStoreConfig::Embedded { path } = &mut config.index {
            *path = under_data_dir(path, &settings.data_dir, "index.db");
        }
        let admins = VerifiedAdmins::new(verifier.clone(), settings.policy.admin_roles.clone());
        let parts = SyncParts {
            store: neuralis_sync::service::open_store(&config.index)
                .await
                .context("opening the index")?,
            bus: neuralis_sync::service::open_bus(&config.bus)
                .await
                .context("connecting the bus")?,
            rules: Arc::new(neuralis_sync::layout_rules::LayoutCore),
            embedder: neuralis_sync::service::open_embedder(&config.embedder)
                .context("embedder")?,
            authorizer: Arc::new(admins),
        };
        let service = SyncService::from_parts(&config, parts)
            .await
            .context("starting sync")?;
        bus = Some(service.bus());
        clients.sync = Some(service.api());
        routes = routes.add_service(service.grpc());
        names.push(neuralis_sync::grpc::SERVICE_NAME);
    }

    if targets.runs(Target::Discovery) {
        let sync: Arc<dyn SyncApi> = match &clients.sync {
            Some(local) => local.clone(),
            None => Arc::new(SyncGrpcClient::new(peer(
                peers,
                settings.peers.sync_url.as_deref(),
                "peers.sync_url",
            )?)),
        };
        let policy: Arc<dyn PolicyApi> = match &clients.policy {
            Some(local) => local.clone(),
            None => Arc::new(PolicyGrpcClient::new(
                peer(
                    peers,
                    settings.peers.policy_url.as_deref(),
                    "peers.policy_url",
                )?,
                settings.policy.max_message_bytes,
            )),
        };
        let bus = match bus {
            Some(bus) => bus,
            None => neuralis_sync::service::open_bus(&settings.sync.bus)
                .await
                .context("connecting the bus")?,
        };
        let discovery = discovery(settings, sync, policy, bus, verifier).await?;
        clients.discovery = Some(discovery.clone() as Arc<dyn DiscoveryApi>);
        routes = routes.add_service(DiscoveryGrpcServer::service(discovery));
        names.push(neuralis_discovery::grpc::SERVICE_NAME);
    }
    Ok(Wired {
        routes,
        service_names: names,
        clients,
    })
}

async fn discovery(
    settings: &NodeSettings,
    sync: Arc<dyn SyncApi>,
    policy: Arc<dyn PolicyApi>,
    bus: Arc<dyn InvalidationBus>,
    verifier: Arc<Verifier>,
) -> Result<Arc<Discovery>> {
    let installed = &settings.discovery.installed;
    let roots = Roots {
        dependency_tree: installed.dependency_root.clone(),
        drop_zone: installed.drop_zone.clone(),
        trusted_dirs: installed.trusted_dirs.clone(),
    };
    let catalog = tokio::task::spawn_blocking({
        let roots = roots.clone();
        move || Catalog::load(&roots, ReadLimits::default(), &Extras::default())
    })
    .await
    .context("catalog task")?
    .context("loading installed packages")?;
    for rejection in catalog.rejected() {
        tracing::warn!(root = %rejection.root, errors = rejection.errors.len(), "installed package rejected");
    }
    let inventory = InventoryShell::new(settings.discovery.inventory.settings());
    inventory.attach(
        bus.subscribe()
            .await
            .context("subscribing to invalidation events")?,
    );
    Ok(Arc::new(Discovery::new(DiscoveryParts {
        index: Arc::new(SyncIndex::new(sync)),
        access: Arc::new(PolicyAccess::new(policy)),
        verifier: Arc::new(TokenVerifier::new(verifier)),
        catalog: Arc::new(LoadedCatalog::new(catalog, &roots)),
        inventory,
        settings: settings.discovery.clone(),
    })))
}

/// All-in-one may use a local key created on first start; split mode never generates
/// one: every replica must verify with the same configured keys.
fn identity(settings: &NodeSettings, targets: &Targets) -> Result<IdentityConfig> {
    if targets.is_all_in_one() {
        return keys::with_local_key(settings.identity.clone(), &settings.data_dir);
    }
    if !keys::has_configured_keys(&settings.identity) {
        bail!(
            "identity.keys: split mode needs configured verification keys (an hs256 secret, \
             public keys or a JWKS file); it never generates one"
        );
    }
    Ok(settings.identity.clone())
}

fn peer(tls: &ClientTls, url: Option<&str>, field: &str) -> Result<Channel> {
    let Some(url) = url else {
        bail!("{field}: required when this process does not run that service");
    };
    let endpoint = tls.endpoint(url, field)?;
    // Lazy: the peer may start after us; calls answer UNAVAILABLE until it is up.
    Ok(endpoint.connect_lazy())
}

/// The default embedded store path follows `data_dir`.
fn under_data_dir(path: &Path, data_dir: &Path, file: &str) -> std::path::PathBuf {
    if path == Path::new(".neuralis").join(file) {
        data_dir.join(file)
    } else {
        path.to_owned()
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
        let error = identity(&settings, &Targets::new([Target::Policy]))
            .unwrap_err()
            .to_string();
        assert!(error.contains("identity.keys"), "{error}");
        assert!(!keys::key_path(dir.path()).exists(), "no key was written");
        let all_in_one = identity(&settings, &Targets::new([])).unwrap();
        assert!(
            keys::has_configured_keys(&all_in_one),
            "all-in-one creates its local key"
        );
    }
}
