//! The sync service's settings (loaded by `neuralis-host`'s layered configuration:
//! defaults < file < `NEURALIS__SYNC__*` environment).

use neuralis_host::share::ShareLimits;
use neuralis_index::{EmbeddedSettings, SearchBudget};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

mod schedule;
pub use schedule::ScheduleLimits;

/// Everything the sync service reads at start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SyncConfig {
    /// Where the index lives.
    pub index: IndexStoreConfig,
    /// `apply` (the default): a PostgreSQL index's missing migrations are applied at
    /// start; `check`: never change the schema, and refuse to be ready until
    /// `neuralis migrate up` has applied them (the chart's hook Job does, once per
    /// release). The embedded index always applies its own.
    pub migrations: neuralis_schema::Mode,
    /// How invalidation events travel.
    pub bus: BusConfig,
    /// Files larger than this (bytes) are skipped and reported.
    pub max_file_size: u64,
    /// File rows per write batch (one transaction, one revision).
    pub batch_size: usize,
    /// A write batch closes before its rows' paths and chunk text pass this many bytes,
    /// whatever its row count (a single larger file makes a batch of its own). With
    /// `batch_size` it bounds what a batch holds in memory, twice over: one batch fills
    /// while the previous one commits.
    pub batch_max_bytes: usize,
    /// File content read ahead of the writer (read, not yet handed to a batch), in
    /// bytes: the readers wait past it. A file larger than it is read alone.
    pub read_ahead_bytes: u64,
    /// Files prepared ahead of the writer (read, hashed and chunked, not yet handed to
    /// a batch): the readers wait past it, however small the files.
    pub read_ahead_files: usize,
    /// Chunk text of content files (manifests, contributions) kept in memory from their
    /// capture, which precedes every write of a run, to their batch; past it, a batch
    /// reads such a file again to chunk it.
    pub content_retain_bytes: usize,
    /// A batch (events and transaction together) that takes longer fails (`failed`).
    pub write_timeout_secs: u64,
    /// How long an `auto` source waits after the last change before it syncs.
    pub auto_debounce_ms: u64,
    /// The largest search chunk, in bytes.
    pub chunk_max_bytes: usize,
    /// How many of a project's latest revisions keep their tombstones (the deletes a
    /// delta carries); older ones are pruned at the end of a sync run that wrote, and a
    /// reader holding a revision from before them re-reads the project in full. `0`
    /// never prunes.
    pub tombstone_retention_revisions: u64,
    /// Vectors for search; none by default (full-text search).
    pub embedder: EmbedderConfig,
    /// Base directories source roots must lie under. Empty: any root that is not `/`, a
    /// system directory or the server's own data is accepted, except in a process that
    /// runs sync without discovery (split mode), which then refuses every root.
    pub allowed_roots: Vec<PathBuf>,
    /// What one full-text search may spend in the store.
    pub search: SearchConfig,
    /// Concurrent `SyncSource` calls per caller and per project; past them a call is
    /// answered RESOURCE_EXHAUSTED with a `RetryInfo`.
    pub fair_share: ShareLimits,
    /// What syncs nobody asked for at that moment (`interval:`, `auto`) may cost, and
    /// how many sources a project may hold.
    pub schedule: ScheduleLimits,
    /// How long a source's lease outlives its replica's last renewal (renewed three
    /// times as often): a replica that dies mid-run holds the source this long at most.
    pub lease_ttl_ms: u64,
    /// How often every replica re-reads the stored sources and re-arms the triggers
    /// that changed through another replica (an `interval:` source also sees its own
    /// trigger change at every read of its due time).
    pub sources_refresh_ms: u64,
}

impl Default for SyncConfig {
    fn default() -> Self {
        Self {
            index: IndexStoreConfig::default(),
            migrations: neuralis_schema::Mode::Apply,
            bus: BusConfig::default(),
            max_file_size: 1024 * 1024,
            batch_size: 2_000,
            batch_max_bytes: 16 * 1024 * 1024,
            read_ahead_bytes: 64 * 1024 * 1024,
            read_ahead_files: 4_096,
            content_retain_bytes: 64 * 1024 * 1024,
            write_timeout_secs: 30,
            auto_debounce_ms: 500,
            chunk_max_bytes: 2_000,
            tombstone_retention_revisions: 1_000,
            embedder: EmbedderConfig::default(),
            allowed_roots: Vec::new(),
            search: SearchConfig::default(),
            fair_share: ShareLimits::default(),
            schedule: ScheduleLimits::default(),
            lease_ttl_ms: 15_000,
            sources_refresh_ms: 5_000,
        }
    }
}

/// `sync.search`: the work budget of one full-text search (issue 25).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// A search still running after this long is stopped (waiting for a connection
    /// included) and answered RESOURCE_EXHAUSTED.
    pub deadline_ms: u64,
    /// Embedded store: the SQLite virtual-machine steps one search may take.
    pub max_steps: u64,
    /// Searches running at once (embedded store: each on a read connection of its own;
    /// PostgreSQL: each on a connection of the store's pool, so keep it under the pool).
    pub connections: usize,
    /// With an embedder: a query not embedded after this long is answered
    /// RESOURCE_EXHAUSTED, before the store is searched (the embedder's own HTTP
    /// timeout is a minute, meant for a sync's batches). With `deadline_ms` it must
    /// stay under discovery's `peers.timeout_ms` (5 s), or in split mode discovery
    /// gives up first and its caller sees UNAVAILABLE.
    pub embed_deadline_ms: u64,
}

impl Default for SearchConfig {
    fn default() -> Self {
        let budget = SearchBudget::default();
        Self {
            deadline_ms: budget.deadline.as_millis() as u64,
            max_steps: budget.max_steps,
            connections: budget.connections,
            embed_deadline_ms: 2_000,
        }
    }
}

impl SearchConfig {
    /// How long a query's embedding may take, at least 1 ms.
    pub fn embed_deadline(&self) -> Duration {
        Duration::from_millis(self.embed_deadline_ms.max(1))
    }

    /// The store's budget.
    pub fn budget(&self) -> SearchBudget {
        SearchBudget {
            deadline: Duration::from_millis(self.deadline_ms.max(1)),
            max_steps: self.max_steps.max(1),
            connections: self.connections.max(1),
        }
    }
}

impl SyncConfig {
    /// The write timeout as a duration.
    pub fn write_timeout(&self) -> Duration {
        Duration::from_secs(self.write_timeout_secs.max(1))
    }

    /// The `auto` debounce as a duration.
    pub fn auto_debounce(&self) -> Duration {
        Duration::from_millis(self.auto_debounce_ms)
    }

    /// The lease's time to live, at least 100 ms.
    pub fn lease_ttl(&self) -> Duration {
        Duration::from_millis(self.lease_ttl_ms.max(100))
    }

    /// The memory bounds of one run, each at least 1.
    pub fn run_bounds(&self) -> RunBounds {
        RunBounds {
            batch_bytes: self.batch_max_bytes.max(1),
            read_ahead_bytes: self.read_ahead_bytes.max(1),
            read_ahead_files: self.read_ahead_files.max(1),
            content_retain_bytes: self.content_retain_bytes,
        }
    }

    /// The period of re-reading the stored sources, at least 100 ms.
    pub fn sources_refresh(&self) -> Duration {
        Duration::from_millis(self.sources_refresh_ms.max(100))
    }
}

/// What one run holds in memory at most, besides the listing and its plan (one entry
/// per file): see the keys of the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunBounds {
    /// `batch_max_bytes`.
    pub batch_bytes: usize,
    /// `read_ahead_bytes`.
    pub read_ahead_bytes: u64,
    /// `read_ahead_files`.
    pub read_ahead_files: usize,
    /// `content_retain_bytes`.
    pub content_retain_bytes: usize,
}

/// The index store backend.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum IndexStoreConfig {
    /// One SQLite file, no server (all-in-one).
    Embedded {
        /// The file; created with its folder when missing.
        path: PathBuf,
        /// SQLite's page cache per connection, in bytes (the writer's fills during a
        /// sync and stays for the life of the process).
        #[serde(default = "default_page_cache_bytes")]
        page_cache_bytes: usize,
    },
    /// PostgreSQL, shared by several sync replicas.
    Postgres {
        /// The connection URL (may carry a password: never logged).
        url: String,
        /// The schema holding the index tables.
        #[serde(default = "default_schema")]
        schema: String,
    },
}

fn default_page_cache_bytes() -> usize {
    EmbeddedSettings::default().page_cache_bytes
}

fn default_schema() -> String {
    "neuralis_index".into()
}

impl Default for IndexStoreConfig {
    fn default() -> Self {
        IndexStoreConfig::Embedded {
            path: PathBuf::from(".neuralis/index.db"),
            page_cache_bytes: default_page_cache_bytes(),
        }
    }
}

/// The invalidation bus.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum BusConfig {
    /// A broadcast inside this process (all-in-one).
    #[default]
    InProcess,
    /// Redis pub/sub (distributed).
    Redis {
        /// The Redis URL (may carry a password: never logged).
        url: String,
        /// One channel per deployment.
        #[serde(default = "default_channel")]
        channel: String,
    },
}

fn default_channel() -> String {
    "neuralis:invalidation".into()
}

/// The embedder behind vector search.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum EmbedderConfig {
    /// No vectors: search is full text.
    #[default]
    None,
    /// An OpenAI-compatible `/embeddings` endpoint.
    OpenaiCompatible {
        /// The API base URL, e.g. `https://api.example.com/v1`.
        url: String,
        /// The model name sent with every request.
        model: String,
        /// The environment variable holding the API key (the key itself is never
        /// stored in configuration).
        #[serde(default = "default_key_env")]
        api_key_env: String,
    },
}

fn default_key_env() -> String {
    "NEURALIS_EMBEDDER_API_KEY".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_all_in_one() {
        let config = SyncConfig::default();
        assert!(matches!(config.index, IndexStoreConfig::Embedded { .. }));
        assert_eq!(config.bus, BusConfig::InProcess);
        assert_eq!(config.embedder, EmbedderConfig::None);
    }

    #[test]
    fn backends_are_chosen_by_kind() {
        let config: SyncConfig = serde_json::from_value(serde_json::json!({
            "index": {"kind": "postgres", "url": "postgres://db/x"},
            "bus": {"kind": "redis", "url": "redis://cache"},
            "embedder": {"kind": "openai-compatible", "url": "http://e/v1", "model": "m"},
            "batch_size": 50
        }))
        .expect("parses");
        assert_eq!(
            config.index,
            IndexStoreConfig::Postgres {
                url: "postgres://db/x".into(),
                schema: "neuralis_index".into()
            }
        );
        assert_eq!(
            config.bus,
            BusConfig::Redis {
                url: "redis://cache".into(),
                channel: "neuralis:invalidation".into()
            }
        );
        assert!(
            matches!(config.embedder, EmbedderConfig::OpenaiCompatible { ref api_key_env, .. } if api_key_env == "NEURALIS_EMBEDDER_API_KEY")
        );
        assert_eq!(config.batch_size, 50);
        assert_eq!(config.max_file_size, 1024 * 1024);
    }

    #[test]
    fn allowed_roots_are_a_list_of_directories() {
        let config: SyncConfig = serde_json::from_value(serde_json::json!({
            "allowed_roots": ["/srv/sources", "/mnt/repos"]
        }))
        .expect("parses");
        assert_eq!(
            config.allowed_roots,
            [PathBuf::from("/srv/sources"), PathBuf::from("/mnt/repos")]
        );
        assert!(SyncConfig::default().allowed_roots.is_empty());
    }

    #[test]
    fn search_budget_and_fair_share_are_set_strictly() {
        let config: SyncConfig = serde_json::from_value(serde_json::json!({
            "search": {"deadline_ms": 500, "embed_deadline_ms": 0},
            "fair_share": {"per_caller": 1}
        }))
        .expect("parses");
        assert_eq!(config.search.budget().deadline, Duration::from_millis(500));
        // Zero is taken as the least deadline, not as none.
        assert_eq!(config.search.embed_deadline(), Duration::from_millis(1));
        assert_eq!(
            SearchConfig::default().embed_deadline(),
            Duration::from_secs(2)
        );
        assert_eq!(
            config.search.connections,
            SearchConfig::default().connections
        );
        assert_eq!(config.fair_share.per_caller, 1);
        let unknown =
            serde_json::from_value::<SyncConfig>(serde_json::json!({"search": {"deadline": 500}}));
        assert!(unknown.is_err());
    }

    #[test]
    fn the_memory_bounds_of_a_run_are_set_by_key_with_defaults() {
        let config: SyncConfig = serde_json::from_value(serde_json::json!({
            "batch_max_bytes": 1024,
            "read_ahead_files": 16
        }))
        .expect("parses");
        let defaults = SyncConfig::default();
        assert_eq!(
            (config.batch_max_bytes, config.read_ahead_files),
            (1024, 16)
        );
        assert_eq!(config.read_ahead_bytes, defaults.read_ahead_bytes);
        assert_eq!(config.content_retain_bytes, defaults.content_retain_bytes);
        let limits = config.run_bounds();
        assert_eq!(limits.batch_bytes, 1024);
        assert_eq!(limits.read_ahead_files, 16);
        let misspelt =
            serde_json::from_value::<SyncConfig>(serde_json::json!({"read_ahead": 1024}));
        assert!(misspelt.is_err());
    }

    #[test]
    fn the_embedded_page_cache_is_set_by_key_with_a_default() {
        let set: SyncConfig = serde_json::from_value(serde_json::json!({
            "index": {"kind": "embedded", "path": "/d/i.db", "page_cache_bytes": 1048576}
        }))
        .expect("parses");
        assert_eq!(
            set.index,
            IndexStoreConfig::Embedded {
                path: "/d/i.db".into(),
                page_cache_bytes: 1024 * 1024
            }
        );
        let default: SyncConfig = serde_json::from_value(serde_json::json!({
            "index": {"kind": "embedded", "path": "/d/i.db"}
        }))
        .expect("parses");
        assert!(matches!(
            default.index,
            IndexStoreConfig::Embedded { page_cache_bytes, .. } if page_cache_bytes == 8 * 1024 * 1024
        ));
        let misspelt = serde_json::from_value::<SyncConfig>(serde_json::json!({
            "index": {"kind": "embedded", "path": "/d/i.db", "page_cache": 1}
        }));
        assert!(misspelt.is_err());
    }

    #[test]
    fn an_unknown_backend_is_refused() {
        let parsed =
            serde_json::from_value::<SyncConfig>(serde_json::json!({"bus": {"kind": "kafka"}}));
        assert!(parsed.is_err());
    }
}
