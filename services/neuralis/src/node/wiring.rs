//! Wiring one process: each service it runs is built from its settings and mounted
//! behind its authorization layer; each service it does not run, but needs, is reached
//! through its gRPC client. Both sides implement the same tonic-free trait, so
//! discovery never knows which it has.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use neuralis_authz::{Gate, Verifiers, tables};
use neuralis_bus::InvalidationBus;
use neuralis_catalog::{Catalog, Extras, ReadLimits, Roots};
use neuralis_discovery::adapters::{LinkedAccess, LoadedCatalog, PolicyAccess, SyncIndex};
use neuralis_discovery::grpc::DiscoveryGrpcServer;
use neuralis_discovery::inventory::InventoryShell;
use neuralis_discovery::ports::AccessPort;
use neuralis_discovery::service::DiscoveryParts;
use neuralis_discovery::{Discovery, DiscoveryApi, InProcessDiscovery};
use neuralis_host::peer::{PeerChannel, SystemResolver, peer_channel};
use neuralis_host::tls::ClientTls;
use neuralis_identity::{ServiceSigner, ServiceVerifier, Verifier};
use neuralis_policy::{InProcessPolicy, PolicyApi, PolicyGrpcClient, PolicyService};
use neuralis_sync::config::IndexStoreConfig;
use neuralis_sync::grpc::IndexFeedGrpcClient;
use neuralis_sync::{AccessForgetter, IndexFeedApi, SourceApi, SyncParts, SyncService};
use tonic::service::Routes;
use tonic::transport::Channel;

use super::forget::PolicyForgetter;
use super::keys;
use super::readiness::{Dependency, Probe};
use super::settings::NodeSettings;
use super::subscription::{self, BusSource};
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
    let keys = Keys::load(settings, targets)?;
    let mut routes = Routes::default();
    let mut names = Vec::new();
    let mut clients = Clients::default();
    let mut internal = None;
    let mut remote = Vec::new();

    let mut policy_local: Option<Arc<dyn PolicyApi>> = None;
    let mut policy_linked: Option<Arc<InProcessPolicy>> = None;
    if targets.runs(Target::Policy) {
        let mut config = settings.policy.clone();
        if let neuralis_access_store::StoreConfig::Embedded { path } = &mut config.store {
            *path = under_data_dir(path, &settings.data_dir, "policy.db");
        }
        let service = PolicyService::from_config(&config, keys.verifiers.clone())
            .await
            .context("starting policy")?;
        // Policy answers nothing without its store; nor does discovery beside it.
        let mut needed_by = vec![neuralis_policy::SERVICE_NAME];
        if targets.runs(Target::Discovery) {
            needed_by.push(neuralis_discovery::grpc::SERVICE_NAME);
        }
        remote.push(Dependency {
            check: "access_store",
            needed_by,
            probe: Probe::AccessStore(service.store()),
        });
        let api = service.api();
        policy_linked = Some(Arc::clone(&api));
        policy_local = Some(api as Arc<dyn PolicyApi>);
        routes = routes.add_service(service.into_server());
        names.push(neuralis_policy::SERVICE_NAME);
    }
    clients.policy = policy_local.clone();

    let mut bus: Option<Arc<dyn InvalidationBus>> = None;
    let mut feed_local: Option<Arc<dyn IndexFeedApi>> = None;
    if targets.runs(Target::Sync) {
        let split = !targets.runs(Target::Discovery);
        let policy = match &policy_local {
            Some(local) => local.clone(),
            None => policy_client(settings, peers)?.1,
        };
        let forgetter = Arc::new(PolicyForgetter::new(policy, Arc::new(keys.signer("sync")?)));
        let (service, store) = sync(settings, keys.verifiers.clone(), split, forgetter).await?;
        // Sync answers nothing without its index. Discovery beside it keeps answering
        // warm listings (a read of the index that fails is its project's UNAVAILABLE).
        remote.push(Dependency {
            check: "index_store",
            needed_by: vec![neuralis_sync::grpc::SOURCES_SERVICE_NAME],
            probe: Probe::IndexStore(store),
        });
        bus = Some(service.bus());
        clients.sources = Some(service.sources_api());
        routes = routes.add_service(service.sources_server());
        names.push(neuralis_sync::grpc::SOURCES_SERVICE_NAME);
        if targets.runs(Target::Discovery) {
            feed_local = Some(service.feed_api());
        } else {
            internal = Some(Routes::new(service.feed_server()));
        }
    }

    if targets.runs(Target::Discovery) {
        let feed: Arc<dyn IndexFeedApi> = match feed_local {
            Some(local) => local,
            None => {
                let channel = peer(
                    settings,
                    peers,
                    settings.peers.sync_feed_url.as_deref(),
                    "peers.sync_feed_url",
                )?;
                // Reported, never gating: with sync away discovery answers warm
                // listings, and each read that needs sync is its project's UNAVAILABLE.
                remote.push(Dependency {
                    check: "sync",
                    needed_by: Vec::new(),
                    probe: Probe::Health {
                        channel: channel.channel.clone(),
                        service: neuralis_sync::grpc::FEED_SERVICE_NAME,
                    },
                });
                Arc::new(IndexFeedGrpcClient::new(channel))
            }
        };
        let signer = Arc::new(keys.signer("discovery")?);
        // Policy's API (for the rare calls: attach, key moves) and the port that
        // decides access.
        let (policy, access): (Arc<dyn PolicyApi>, Arc<dyn AccessPort>) = match policy_linked {
            // Policy runs here: decisions asked in domain terms, discovery's credential
            // decided by policy's gate once, now.
            Some(linked) => {
                let credential = signer.credential().context("discovery's credential")?;
                let evaluate = linked
                    .linked_evaluate(&credential)
                    .context("policy refused discovery's service credential")?;
                let api: Arc<dyn PolicyApi> = linked;
                let access =
                    LinkedAccess::new(evaluate, PolicyAccess::new(api.clone(), signer.clone()));
                (api, Arc::new(access))
            }
            None => {
                let (channel, client) = policy_client(settings, peers)?;
                remote.push(Dependency {
                    check: "policy",
                    needed_by: vec![neuralis_discovery::grpc::SERVICE_NAME],
                    probe: Probe::Health {
                        channel,
                        service: neuralis_policy::SERVICE_NAME,
                    },
                });
                let access = PolicyAccess::new(client.clone(), signer.clone());
                (client, Arc::new(access))
            }
        };
        let bus = match bus {
            Some(bus) => BusSource::Shared(bus),
            None => BusSource::Configured(settings.sync.bus.clone()),
        };
        let discovery = discovery(settings, feed, policy, access, bus, signer).await?;
        let gate = Gate::new(&tables::discovery::TABLE, keys.verifiers.clone());
        clients.discovery = Some(
            Arc::new(InProcessDiscovery::new(gate.clone(), discovery.clone()))
                as Arc<dyn DiscoveryApi>,
        );
        routes = routes.add_service(DiscoveryGrpcServer::service(discovery, gate));
        names.push(neuralis_discovery::grpc::SERVICE_NAME);
    }
    Ok(Wired {
        routes,
        service_names: names,
        internal,
        clients,
        dependencies: remote,
    })
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

/// The sync service, refusing roots over what this process keeps (`split`: sync without
/// discovery requires roots under `sync.allowed_roots`), and its index store
/// (readiness probes it).
async fn sync(
    settings: &NodeSettings,
    verifiers: Arc<Verifiers>,
    split: bool,
    forgetter: Arc<dyn AccessForgetter>,
) -> Result<(SyncService, Arc<dyn neuralis_index::IndexStore>)> {
    let mut config = settings.sync.clone();
    if let IndexStoreConfig::Embedded { path } = &mut config.index {
        *path = under_data_dir(path, &settings.data_dir, "index.db");
    }
    let store =
        neuralis_sync::service::open_store(&config.index, &config.search, config.migrations)
            .await
            .context("opening the index")?;
    let parts = SyncParts {
        store: store.clone(),
        bus: neuralis_sync::service::open_bus(&config.bus)
            .await
            .context("connecting the bus")?,
        rules: Arc::new(neuralis_sync::layout_rules::LayoutCore),
        embedder: neuralis_sync::service::open_embedder(&config.embedder).context("embedder")?,
        verifiers,
        forgetter,
        kept_dirs: super::kept::kept_dirs(settings),
        require_allowed_roots: split,
    };
    let service = SyncService::from_parts(&config, parts)
        .await
        .context("starting sync")?;
    Ok((service, store))
}

async fn discovery(
    settings: &NodeSettings,
    feed: Arc<dyn IndexFeedApi>,
    policy: Arc<dyn PolicyApi>,
    access: Arc<dyn AccessPort>,
    bus: BusSource,
    signer: Arc<ServiceSigner>,
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
    // Manifest access at attach (seed 002): policy keeps what the store decides an
    // attach may change; discovery does not wait for it (an unreachable policy answers
    // nothing unfiltered anyway).
    tokio::spawn(neuralis_discovery::adapters::attach::attach_installed(
        policy.clone(),
        signer.clone(),
        neuralis_discovery::adapters::attach::attach_request(&catalog),
    ));
    let inventory = InventoryShell::new(settings.discovery.inventory.settings());
    subscription::follow(&inventory, bus).await?;
    Ok(Arc::new(Discovery::new(DiscoveryParts {
        index: Arc::new(SyncIndex::new(feed, signer)),
        access,
        catalog: Arc::new(LoadedCatalog::new(catalog, &roots)),
        inventory,
        settings: settings.discovery.clone(),
    })))
}

/// Policy's gRPC client (and its channel, for health probes), for a process that calls
/// policy without running it.
fn policy_client(
    settings: &NodeSettings,
    peers: &ClientTls,
) -> Result<(Channel, Arc<dyn PolicyApi>)> {
    let channel = peer(
        settings,
        peers,
        settings.peers.policy_url.as_deref(),
        "peers.policy_url",
    )?;
    let probe = channel.channel.clone();
    let client = PolicyGrpcClient::new(channel, settings.policy.max_message_bytes);
    Ok((probe, Arc::new(client)))
}

/// A channel to every replica of a peer, with deadlines and budgeted retries. Lazy:
/// the peer may start after us; calls answer UNAVAILABLE or DEADLINE_EXCEEDED until it
/// is up.
fn peer(
    settings: &NodeSettings,
    tls: &ClientTls,
    url: Option<&str>,
    field: &str,
) -> Result<PeerChannel> {
    let Some(url) = url else {
        bail!("{field}: required when this process does not run that service");
    };
    Ok(peer_channel(
        tls,
        url,
        field,
        settings.peers.options(),
        Arc::new(SystemResolver),
    )?)
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
