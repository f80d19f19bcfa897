//! Discovery settings (the `discovery` section of the configuration).

use std::path::PathBuf;
use std::time::Duration;

use neuralis_host::share::ShareLimits;
use neuralis_inventory::InventorySettings;
use serde::{Deserialize, Serialize};

/// Tuning and the installed-package roots.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DiscoverySettings {
    /// The inventory protocol's bounds.
    pub inventory: InventoryConfig,
    /// Hydration budget when a request names none.
    pub default_hydration_budget_bytes: u64,
    /// The installed packages: a dependency tree (`node_modules` style, first-party
    /// builtins), a drop-zone of project packages (untrusted), and directories an
    /// administrator added (trusted).
    pub installed: InstalledConfig,
    /// Concurrent expensive calls (`Search`, `Hydrate`) per caller and per project;
    /// past them a call is answered RESOURCE_EXHAUSTED with a `RetryInfo`.
    pub fair_share: ShareLimits,
    /// Concurrent single-file reads (`ReadFile`, `ActivateSkill`) per caller and per
    /// project, a share of their own; past them RESOURCE_EXHAUSTED with a `RetryInfo`.
    pub read_share: ReadShare,
    /// `WatchPackages` streams.
    pub watch: WatchConfig,
}

impl Default for DiscoverySettings {
    fn default() -> Self {
        Self {
            inventory: InventoryConfig::default(),
            default_hydration_budget_bytes: 64 * 1024,
            installed: InstalledConfig::default(),
            fair_share: ShareLimits::default(),
            read_share: ReadShare::default(),
            watch: WatchConfig::default(),
        }
    }
}

/// `read_share.*`: the share of single-file reads. Each reads and hashes up to the
/// size limit, so a caller opening hundreds at once held hundreds of files in memory;
/// the share is larger than the expensive calls' (an agent reads docs on demand, often
/// a few at once), and separate, so reads never crowd out a search or a hydration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReadShare {
    /// Reads one caller (token subject) may have running at once.
    pub per_caller: usize,
    /// Reads one project may have running at once, all callers together.
    pub per_project: usize,
    /// The delay a shed read's `RetryInfo` asks for.
    pub retry_after_ms: u64,
}

impl Default for ReadShare {
    fn default() -> Self {
        Self {
            per_caller: 8,
            per_project: 32,
            retry_after_ms: 1_000,
        }
    }
}

impl From<ReadShare> for ShareLimits {
    fn from(read: ReadShare) -> Self {
        ShareLimits {
            per_caller: read.per_caller,
            per_project: read.per_project,
            retry_after_ms: read.retry_after_ms,
        }
    }
}

/// `inventory.*`
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InventoryConfig {
    /// How long rows are served before being revalidated against sync's revision.
    pub recovery_window_ms: u64,
    /// How long an open write forces a bypass before its finish is presumed lost.
    pub open_write_limit_ms: u64,
    /// Projects kept in memory.
    pub max_projects: usize,
    /// Bytes the kept projects may weigh together (estimated); least recently used
    /// evicted beyond it.
    pub max_bytes: usize,
}

impl Default for InventoryConfig {
    fn default() -> Self {
        let defaults = InventorySettings::default();
        Self {
            recovery_window_ms: defaults.recovery_window.as_millis() as u64,
            open_write_limit_ms: defaults.open_write_limit.as_millis() as u64,
            max_projects: defaults.max_projects,
            max_bytes: defaults.max_bytes,
        }
    }
}

impl InventoryConfig {
    /// The inventory's own settings.
    pub fn settings(&self) -> InventorySettings {
        InventorySettings {
            recovery_window: Duration::from_millis(self.recovery_window_ms),
            open_write_limit: Duration::from_millis(self.open_write_limit_ms),
            max_projects: self.max_projects.max(1),
            max_bytes: self.max_bytes,
        }
    }
}

/// `watch.*`
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WatchConfig {
    /// How often a stream re-decides its answer with no index write: policy, switches,
    /// package states, overrides and grants are never cached, so this bounds how late a
    /// stream sees them.
    pub recheck_ms: u64,
    /// Open streams per caller (token subject) and project; past them RESOURCE_EXHAUSTED.
    pub streams_per_caller: usize,
    /// Open streams in all, whoever opened them; past them RESOURCE_EXHAUSTED.
    pub max_streams: usize,
    /// A stream ends after this long (the caller reconnects with its revision): its
    /// token was verified once, at the start.
    pub max_stream_ms: u64,
}

impl Default for WatchConfig {
    fn default() -> Self {
        Self {
            recheck_ms: 2_000,
            streams_per_caller: 4,
            max_streams: 1024,
            max_stream_ms: 10 * 60 * 1000,
        }
    }
}

/// `installed.*`
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InstalledConfig {
    /// A directory whose `node_modules/` holds builtin-class dependencies.
    pub dependency_root: Option<PathBuf>,
    /// The drop-zone of project packages.
    pub drop_zone: Option<PathBuf>,
    /// Package directories added by an administrator.
    pub trusted_dirs: Vec<PathBuf>,
}
