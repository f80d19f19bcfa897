//! Assembling the service from its configuration: the one call `neuralis serve` makes.

use crate::auth::{AllowAll, Authorizer, DenyAll, SharedToken};
use crate::config::{AuthConfig, BusConfig, EmbedderConfig, IndexStoreConfig, SyncConfig};
use crate::core::SyncCore;
use crate::embedder::{Embedder, OpenAiCompatibleEmbedder};
use crate::grpc::SyncGrpcServer;
use crate::layout_rules::{LayoutCore, LayoutRules};
use crate::run::{RunDeps, RunLimits};
use crate::{LocalSync, SyncApi, SyncError};
use neuralis_bus::{InProcessBus, InvalidationBus, RedisBus};
use neuralis_index::{IndexStore, SqlIndexStore};
use neuralis_proto::sync::v1::sync_service_server::SyncServiceServer;
use neuralis_sync_core::ChunkLimits;
use std::sync::Arc;

/// The sync service with everything it was built from.
pub struct SyncService {
    local: Arc<LocalSync>,
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
    /// Who may change state.
    pub authorizer: Arc<dyn Authorizer>,
}

impl SyncService {
    /// Builds the service from configuration: opens (and migrates) the store, connects
    /// the bus, and arms the trigger of every stored source.
    pub async fn from_config(config: &SyncConfig) -> Result<Self, SyncError> {
        let parts = SyncParts {
            store: open_store(&config.index).await?,
            bus: open_bus(&config.bus).await?,
            rules: Arc::new(LayoutCore),
            embedder: open_embedder(&config.embedder)?,
            authorizer: authorizer(&config.auth)?,
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
            },
        };
        let core = Arc::new(SyncCore::new(deps, config.max_file_size));
        let local = Arc::new(LocalSync::new(
            core,
            parts.authorizer,
            config.auto_debounce(),
        ));
        local.arm_triggers().await?;
        Ok(Self {
            local,
            store: parts.store,
            bus: parts.bus,
        })
    }

    /// The in-process API (the all-in-one binary calls it directly).
    pub fn api(&self) -> Arc<dyn SyncApi> {
        Arc::clone(&self.local) as Arc<dyn SyncApi>
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

    /// The tonic service to mount on a server.
    pub fn grpc(&self) -> SyncServiceServer<SyncGrpcServer<LocalSync>> {
        SyncGrpcServer::service(Arc::clone(&self.local))
    }
}

pub async fn open_store(config: &IndexStoreConfig) -> Result<Arc<dyn IndexStore>, SyncError> {
    let store = match config {
        IndexStoreConfig::Embedded { path } => SqlIndexStore::open_embedded(path).await?,
        IndexStoreConfig::Postgres { url, schema } => {
            SqlIndexStore::connect_postgres(url, schema).await?
        }
    };
    Ok(Arc::new(store))
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

fn authorizer(config: &AuthConfig) -> Result<Arc<dyn Authorizer>, SyncError> {
    if config.allow_unauthenticated {
        tracing::warn!("sync accepts state-changing calls without a verified caller");
        return Ok(Arc::new(AllowAll));
    }
    match &config.shared_token_env {
        Some(variable) => match std::env::var(variable) {
            Ok(token) if !token.is_empty() => Ok(Arc::new(SharedToken::new(token))),
            _ => Err(SyncError::invalid(
                "auth.shared_token_env",
                format!("{variable} is not set"),
            )),
        },
        None => Ok(Arc::new(DenyAll)),
    }
}
