//! Building the services that need more than their own settings: sync over its index
//! store, bus and embedder; discovery over its catalog, inventory and the ports wiring
//! hands it. Which of them a process runs, and what each is given, is `wiring`'s.

use std::sync::Arc;

use anyhow::{Context, Result};
use neuralis_authz::Verifiers;
use neuralis_catalog::{Catalog, Extras, ReadLimits, Roots};
use neuralis_discovery::Discovery;
use neuralis_discovery::adapters::source_packages::{RootGate, WithSourcePackages};
use neuralis_discovery::adapters::{LoadedCatalog, SyncIndex};
use neuralis_discovery::inventory::InventoryShell;
use neuralis_discovery::ports::AccessPort;
use neuralis_discovery::service::DiscoveryParts;
use neuralis_identity::ServiceSigner;
use neuralis_policy::PolicyApi;
use neuralis_sync::{AccessForgetter, IndexFeedApi, SyncParts, SyncService};

use super::settings::NodeSettings;
use super::subscription::{self, BusSource};

/// The sync service, refusing roots over what this process keeps (`split`: sync without
/// discovery requires roots under `sync.allowed_roots`), and its index store
/// (readiness probes it).
pub(super) async fn sync(
    settings: &NodeSettings,
    verifiers: Arc<Verifiers>,
    split: bool,
    forgetter: Arc<dyn AccessForgetter>,
) -> Result<(SyncService, Arc<dyn neuralis_index::IndexStore>)> {
    let mut config = settings.sync.clone();
    config.index = settings.index_store();
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
        data_excludes: data_excludes(settings).await,
    };
    let service = SyncService::from_parts(&config, parts)
        .await
        .context("starting sync")?;
    Ok((service, store))
}

/// The exclude globs a new data source starts with (seed 002, "machineWritten"): the
/// metrics files of the installed trusted and first-party packages, read from the same
/// roots discovery loads. A catalog that cannot be read seeds nothing (logged): the
/// source then indexes those files, as before, and its owner can still exclude them.
async fn data_excludes(settings: &NodeSettings) -> Vec<String> {
    let installed = &settings.discovery.installed;
    let roots = Roots {
        dependency_tree: installed.dependency_root.clone(),
        drop_zone: installed.drop_zone.clone(),
        trusted_dirs: installed.trusted_dirs.clone(),
    };
    let loaded = tokio::task::spawn_blocking(move || {
        Catalog::load(&roots, ReadLimits::default(), &Extras::default())
    })
    .await;
    match loaded {
        Ok(Ok(catalog)) => catalog
            .packages()
            .iter()
            .flat_map(|package| {
                neuralis_manifest::data_layout::metrics_excludes(
                    &package.id,
                    package.trust,
                    &package.manifest.data_layout,
                )
            })
            .collect(),
        Ok(Err(error)) => {
            tracing::warn!(%error, "installed packages unreadable; new data sources seed no excludes");
            Vec::new()
        }
        Err(error) => {
            tracing::warn!(%error, "catalog task failed; new data sources seed no excludes");
            Vec::new()
        }
    }
}

/// The discovery service: the installed packages loaded (and attached to policy in the
/// background), its inventory following the invalidation bus.
pub(super) async fn discovery(
    settings: &NodeSettings,
    feed: Arc<dyn IndexFeedApi>,
    policy: Arc<dyn PolicyApi>,
    access: Arc<dyn AccessPort>,
    bus: BusSource,
    signer: Arc<ServiceSigner>,
    roots_here: Option<RootGate>,
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
        // Local sources flagged `recognizesPackages` are package sources too (seed 000).
        catalog: Arc::new(package_sources(
            Arc::new(LoadedCatalog::new(catalog, &roots)),
            roots_here,
        )),
        inventory,
        settings: settings.discovery.clone(),
    })))
}

/// The installed catalog with the packages of flagged sources beside it: scanned on
/// this host when sync runs here (its paths are this host's), each root only as the
/// sync's root rules allow it for its project; refused in split mode.
fn package_sources(inner: Arc<LoadedCatalog>, roots_here: Option<RootGate>) -> WithSourcePackages {
    match roots_here {
        Some(gate) => WithSourcePackages::new(inner, gate),
        None => WithSourcePackages::split(inner),
    }
}
