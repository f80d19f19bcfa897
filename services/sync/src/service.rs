//! Assembling the service from its configuration: the one call `neuralis serve` makes.

use crate::api::{IndexFeedApi, SourceApi};
use crate::config::{BusConfig, EmbedderConfig, IndexStoreConfig, SearchConfig, SyncConfig};
use crate::core::SyncCore;
use crate::embedder::{Embedder, OpenAiCompatibleEmbedder};
use crate::forget::{AccessForgetter, NoForget};
use crate::grpc::SyncGrpcServer;
use crate::in_process::InProcess;
use crate::layout_rules::{LayoutCore, LayoutRules};
use crate::lease::Leases;
use crate::run::{RunDeps, RunLimits};
use crate::{LocalSync, SyncError};
use neuralis_authz::{Authorized, Gate, Verifiers, tables};
use neuralis_bus::{InProcessBus, InvalidationBus, RedisBus};
use neuralis_index::{EmbeddedSettings, IndexStore, SqlIndexStore};
use neuralis_proto::sync::internal::v1::index_feed_service_server::IndexFeedServiceServer;
use neuralis_proto::sync::v1::source_service_server::SourceServiceServer;
use neuralis_sync_core::ChunkLimits;
use std::path::PathBuf;
use std::sync::Arc;

/// See [`SyncService::root_checker`].
pub type RootChecker =
    Arc<dyn Fn(&str, &std::path::Path) -> Option<std::path::PathBuf> + Send + Sync>;

/// The sync service with everything it was built from: the handlers, and a gate per
/// gRPC service (the administration of sources, the index feed).
pub struct SyncService {
    local: Arc<LocalSync>,
    sources_gate: Gate,
    feed_gate: Gate,
    store: Arc<dyn IndexStore>,
    bus: Arc<dyn InvalidationBus>,
}

/// The parts a service is built from; tests swap any of them.
pub struct SyncParts {
    /// The index store.
    pub store: Arc<dyn IndexStore>,
    /// The invalidation bus.
    pub bus: Arc<dyn InvalidationBus>,
    /// The layout core's rules.
    pub rules: Arc<dyn LayoutRules>,
    /// The embedder, if any.
    pub embedder: Option<Arc<dyn Embedder>>,
    /// How callers and services are verified (both gates decide with them).
    pub verifiers: Arc<Verifiers>,
    /// Forgets a source's access state before `DeleteSource` deletes its rows.
    pub forgetter: Arc<dyn AccessForgetter>,
    /// The directories the server keeps (its data directory, the directories of its
    /// key files): no source root holds or lies inside one, no connector enters one.
    pub kept_dirs: Vec<PathBuf>,
    /// A process that runs sync without discovery: roots must lie under
    /// `sync.allowed_roots`, and an empty list refuses every root.
    pub require_allowed_roots: bool,
    /// The exclude globs a new data source created without any starts with: the
    /// installed trusted and first-party packages' metrics files (seed 002,
    /// "machineWritten"), anchored to their zones.
    pub data_excludes: Vec<String>,
}

impl SyncService {
    /// Builds the service from configuration: opens (and migrates) the store, connects
    /// the bus, and arms the trigger of every stored source.
    pub async fn from_config(
        config: &SyncConfig,
        verifiers: Arc<Verifiers>,
    ) -> Result<Self, SyncError> {
        let parts = SyncParts {
            store: open_store(&config.index, &config.search, config.migrations).await?,
            bus: open_bus(&config.bus).await?,
            rules: Arc::new(LayoutCore),
            embedder: open_embedder(&config.embedder)?,
            verifiers,
            forgetter: Arc::new(NoForget),
            kept_dirs: Vec::new(),
            require_allowed_roots: false,
            data_excludes: Vec::new(),
        };
        Self::from_parts(config, parts).await
    }

    /// Builds the service from ready parts.
    pub async fn from_parts(config: &SyncConfig, parts: SyncParts) -> Result<Self, SyncError> {
        let deps = RunDeps {
            store: Arc::clone(&parts.store),
            bus: Arc::clone(&parts.bus),
            rules: parts.rules,
            embedder: parts.embedder,
            limits: RunLimits {
                batch_size: config.batch_size.max(1),
                write_timeout: config.write_timeout(),
                chunks: ChunkLimits {
                    max_bytes: config.chunk_max_bytes,
                },
                tombstone_retention: config.tombstone_retention_revisions,
                bounds: config.run_bounds(),
            },
        };
        let roots = crate::roots::rules(
            &parts.kept_dirs,
            &config.allowed_roots,
            parts.require_allowed_roots,
        )
        .map_err(|error| SyncError::invalid("sync.allowed_roots", error.to_string()))?;
        // One process owns an embedded store; PostgreSQL may be shared by replicas.
        let single_process = matches!(config.index, IndexStoreConfig::Embedded { .. });
        let leases = Leases::new(
            Arc::clone(&parts.store),
            crate::lease::replica_id(single_process)?,
            config.lease_ttl(),
        );
        let core = Arc::new(SyncCore::new(
            deps,
            config.max_file_size,
            roots,
            leases,
            config.schedule.clone(),
        ));
        let mut local = LocalSync::new(core, config.auto_debounce(), parts.forgetter)
            .with_fair_share(config.fair_share)
            .with_query_embed_deadline(config.search.embed_deadline())
            .with_data_excludes(parts.data_excludes);
        // Replicas share Redis: source changes are announced beside the invalidations.
        if let BusConfig::Redis { url, channel } = &config.bus {
            let notices = BusConfig::Redis {
                url: url.clone(),
                channel: crate::notices::channel_beside(channel),
            };
            local = local.with_source_notices(open_bus(&notices).await?);
        }
        let local = Arc::new(local);
        local.arm_triggers(config.sources_refresh()).await?;
        Ok(Self {
            local,
            sources_gate: Gate::new(&tables::sources::TABLE, Arc::clone(&parts.verifiers)),
            feed_gate: Gate::new(&tables::index_feed::TABLE, parts.verifiers),
            store: parts.store,
            bus: parts.bus,
        })
    }

    /// The administration of sources in process (the demo and the tests), every call
    /// decided by the same gate as over gRPC.
    pub fn sources_api(&self) -> Arc<dyn SourceApi> {
        Arc::new(InProcess::new(
            self.sources_gate.clone(),
            Arc::clone(&self.local),
        ))
    }

    /// What a source root of a project resolves to when this process's root rules
    /// (`sync.allowed_roots`, the server's own directories) allow it, else `None`: for
    /// the all-in-one discovery, which scans a flagged source's directory on this host.
    pub fn root_checker(&self) -> RootChecker {
        let local = Arc::clone(&self.local);
        Arc::new(move |project: &str, root: &std::path::Path| local.checked_root(project, root))
    }

    /// The index feed in process (discovery in the all-in-one process), every call
    /// decided by the same gate as over gRPC.
    pub fn feed_api(&self) -> Arc<dyn IndexFeedApi> {
        Arc::new(InProcess::new(
            self.feed_gate.clone(),
            Arc::clone(&self.local),
        ))
    }

    /// The in-process implementation itself.
    pub fn local(&self) -> Arc<LocalSync> {
        Arc::clone(&self.local)
    }

    /// The bus the service publishes invalidation events on (discovery subscribes).
    pub fn bus(&self) -> Arc<dyn InvalidationBus> {
        Arc::clone(&self.bus)
    }

    /// The index store.
    pub fn store(&self) -> Arc<dyn IndexStore> {
        Arc::clone(&self.store)
    }

    /// `SourceService`, behind its authorization layer (the public listener).
    pub fn sources_server(&self) -> Authorized<SourceServiceServer<SyncGrpcServer>> {
        SyncGrpcServer::sources(Arc::clone(&self.local), self.sources_gate.clone())
    }

    /// `IndexFeedService`, behind its authorization layer (the internal listener only).
    pub fn feed_server(&self) -> Authorized<IndexFeedServiceServer<SyncGrpcServer>> {
        SyncGrpcServer::feed(Arc::clone(&self.local), self.feed_gate.clone())
    }
}

pub async fn open_store(
    config: &IndexStoreConfig,
    search: &SearchConfig,
    migrations: neuralis_schema::Mode,
) -> Result<Arc<dyn IndexStore>, SyncError> {
    let store = match config {
        IndexStoreConfig::Embedded {
            path,
            page_cache_bytes,
        } => {
            let settings = EmbeddedSettings {
                page_cache_bytes: *page_cache_bytes,
            };
            SqlIndexStore::open_embedded_with(path, settings).await?
        }
        IndexStoreConfig::Postgres { url, schema } => {
            SqlIndexStore::connect_postgres_with(url, schema, migrations).await?
        }
    };
    Ok(Arc::new(store.with_search_budget(search.budget())))
}

pub async fn open_bus(config: &BusConfig) -> Result<Arc<dyn InvalidationBus>, SyncError> {
    match config {
        BusConfig::InProcess => Ok(Arc::new(InProcessBus::default())),
        BusConfig::Redis { url, channel } => RedisBus::connect(url, channel)
            .await
            .map(|bus| Arc::new(bus) as Arc<dyn InvalidationBus>)
            .map_err(|err| match err {
                neuralis_bus::BusError::InvalidConfig { field, message } => {
                    SyncError::invalid(field, message)
                }
                other => SyncError::Unavailable(other.to_string()),
            }),
    }
}

pub fn open_embedder(config: &EmbedderConfig) -> Result<Option<Arc<dyn Embedder>>, SyncError> {
    match config {
        EmbedderConfig::None => Ok(None),
        EmbedderConfig::OpenaiCompatible {
            url,
            model,
            api_key_env,
        } => {
            let key = std::env::var(api_key_env)
                .ok()
                .filter(|key| !key.is_empty());
            Ok(Some(Arc::new(OpenAiCompatibleEmbedder::new(
                url, model, key,
            )?)))
        }
    }
}
