//! Persisted sources: what sync syncs, and how its last run went.

use serde::{Deserialize, Serialize};

/// What a source's root is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// A mounted repository directory.
    Local,
    /// An agent data tree, with agent-private subtrees.
    Data,
    /// A machine sandbox directory addressed by a machine URI.
    Machine,
}

impl SourceKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Local => "local",
            SourceKind::Data => "data",
            SourceKind::Machine => "machine",
        }
    }

    /// Parses the stored name.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "local" => Some(SourceKind::Local),
            "data" => Some(SourceKind::Data),
            "machine" => Some(SourceKind::Machine),
            _ => None,
        }
    }
}

/// Who a source is visible to (DESIGN.md section 4, "Scope").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScopeKind {
    /// Everyone in the project.
    Project,
    /// One user (the owner).
    User,
    /// One agent (the owner).
    Agent,
}

impl ScopeKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            ScopeKind::Project => "project",
            ScopeKind::User => "user",
            ScopeKind::Agent => "agent",
        }
    }

    /// Parses the stored name.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "project" => Some(ScopeKind::Project),
            "user" => Some(ScopeKind::User),
            "agent" => Some(ScopeKind::Agent),
            _ => None,
        }
    }
}

/// How the last sync run of a source went.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncStatus {
    /// When the last successful sync began (ms since the epoch; the index holds the tree
    /// as of then, and rows changed since are racy for the next run); `None`: never synced.
    pub last_synced_at: Option<i64>,
    /// The project's revision after that sync.
    pub last_revision: u64,
    /// Files listed by the connector in the last run.
    pub files_seen: u64,
    /// Files written (inserted, rewritten or refreshed) in the last run.
    pub files_indexed: u64,
    /// Files skipped and reported in the last run.
    pub files_skipped: u64,
    /// Bytes read in the last run.
    pub bytes_read: u64,
    /// Why the last run failed, when it did.
    pub last_error: Option<String>,
}

/// A source as persisted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRecord {
    /// The source id, `<project>/<slug>.<16 lowercase hex>`: assigned at create, never
    /// reused (a source deleted and created again under its slug gets a new one).
    /// Policy keys access by it; rows and events key by (project, slug).
    pub id: String,
    /// The project the source belongs to.
    pub project: String,
    /// The source's slug, unique within the project.
    pub slug: String,
    /// What the root is.
    pub kind: SourceKind,
    /// The directory the connector lists, on this host.
    pub root: String,
    /// For a machine source: the URI of the root on its machine (`machine://<id>/<path>`).
    pub machine_uri: Option<String>,
    /// Who the source is visible to.
    pub scope: ScopeKind,
    /// The user or agent a user- or agent-scoped source belongs to.
    pub owner: Option<String>,
    /// The sync trigger in its canonical spelling (`manual`, `auto`, `interval:5m`).
    pub trigger: String,
    /// Agent-private subtree patterns with an `{agent}` placeholder.
    pub privacy_patterns: Vec<String>,
    /// Globs (relative to the root; `*` within one segment, `**` any depth) of files a
    /// sync leaves out of the index. A new data source is seeded with the installed
    /// packages' metrics files (seed 002, "machineWritten"); later only its owner edits it.
    pub exclude_globs: Vec<String>,
    /// A local source whose directory is also a package source (seed 000,
    /// `recognizesPackages`), its packages advertised only within its scope.
    pub recognizes_packages: bool,
    /// How the last run went.
    pub status: SyncStatus,
    /// When the source was created (ms since the epoch).
    pub created_at: i64,
    /// When its settings last changed (ms since the epoch).
    pub updated_at: i64,
}

/// A source's lease as stored: who runs it now, and until when (issue 26 item 1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeaseRow {
    /// The holding replica's id; empty when nobody holds it.
    pub holder: String,
    /// When the lease lapses unless renewed (ms since the epoch).
    pub expires_at: i64,
}

/// What the replicas share to take turns at a source: its trigger as stored now, its
/// lease, and when an `interval:` trigger runs next.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceTurn {
    /// The trigger in its canonical spelling.
    pub trigger: String,
    /// The lease (free before the first run).
    pub lease: LeaseRow,
    /// When the `interval:` trigger is due (ms since the epoch); `0`: never scheduled.
    pub next_due: i64,
}
