//! The one trait both backends implement.

use std::collections::{BTreeMap, BTreeSet};

use async_trait::async_trait;
use neuralis_access::{AccessSnapshot, RoleGrants, SourceRecord, UriPolicy};

use crate::StoreError;

/// The longest delegate chain read for conversation overrides (child first).
pub const MAX_CHAIN_DEPTH: i64 = 64;

/// The most file overrides one conversation holds. Any caller of a project may set
/// them, and every evaluation in the conversation reads them (with its ancestors', up
/// to [`MAX_CHAIN_DEPTH`] generations): without a bound, one member could make every
/// evaluation of a conversation as slow, and the store as large, as it liked. A
/// conversation at the bound can still change or clear the overrides it holds.
pub const MAX_CONVERSATION_OVERRIDES: i64 = 1_000;

/// The most bytes of package keys and file paths one conversation's overrides hold.
/// Each may be 4 KiB, and an evaluation reads the overrides of [`MAX_CHAIN_DEPTH`]
/// generations: counted alone, a chain of conversations at the count bound made one
/// evaluation read about 512 MiB; within this bound it reads at most 16 MiB. Real
/// paths are short: 1,000 overrides of 256-byte names fit.
pub const MAX_CONVERSATION_OVERRIDE_BYTES: i64 = 256 * 1024;

/// The most package states a project holds. An administrator of the project may set a
/// state under any key, and every evaluation in the project reads every state it holds:
/// without a bound, the store and each evaluation grew as the administrator liked. A
/// state stays stored when switched on (it wins over a legacy key's state at a rekey);
/// forgetting it makes room.
pub const MAX_PACKAGE_STATES: i64 = 4_096;

/// The most (role, feature) rows a project's own grants hold: every grantor's grants in
/// the project and the administrator's revocations together. One `PutRoleGrants` call
/// may name 256 roles of 256 features for any new package id, and every evaluation in
/// the project reads them all. Grants for every project (platform administrators and
/// installed packages' defaults) are not counted here. Replacing a grantor's grants
/// with fewer makes room.
pub const MAX_PROJECT_GRANTS: i64 = 16_384;

/// Whose per-file override is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OverrideTarget {
    /// An agent's configuration.
    Agent(String),
    /// A conversation of a project (conversation ids are per project).
    Conversation {
        /// The project the conversation runs in.
        project: String,
        /// The conversation id.
        id: String,
    },
}

/// A file as overrides name it: its package key and its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    /// The package key.
    pub package_key: String,
    /// The file path as evaluation candidates carry it.
    pub path: String,
}

/// One package key to move (both keys without the `<source_id>/` prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageKeyMove {
    /// What an earlier release keyed the package by.
    pub legacy: String,
    /// Its key now.
    pub key: String,
}

/// A conversation and, for a delegate child run, its parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationRecord {
    /// The conversation id.
    pub conversation: String,
    /// The project it runs in.
    pub project: String,
    /// The parent conversation, already registered in the same project.
    pub parent: Option<String>,
}

/// What one evaluation needs read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotQuery {
    /// The project asked in (package enable states, the project's role grants).
    pub project: String,
    /// The caller's role (role grants).
    pub role: String,
    /// The caller's agent (agent overrides).
    pub agent: Option<String>,
    /// The conversation (its overrides and its ancestors').
    pub conversation: Option<String>,
    /// The sources the batch names.
    pub source_ids: Vec<String>,
}

/// Role to feature ids (default grants, revocations).
pub type RoleFeatures = BTreeMap<String, BTreeSet<String>>;

/// What one package's manifest declares about access, as the host attaches it (seed
/// 002: `defaultRoleGrants`, `uriPolicies` with `<self>` already substituted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageDefaults {
    /// The package id (grantor `package:<id>`).
    pub package_id: String,
    /// The package's default grants, in every project.
    pub default_role_grants: RoleFeatures,
    /// Baseline policies by URI scope (`packages://<id>`, `data://<zone>`).
    pub baselines: Vec<(String, UriPolicy)>,
}

/// The access store. Every read goes to the database; nothing is cached.
#[async_trait]
pub trait AccessStore: Send + Sync + 'static {
    /// Persists `policy` for `source_id` (enabled when the source is new), keeping every
    /// floor already persisted; returns the policy as stored.
    async fn put_source_policy(
        &self,
        source_id: &str,
        policy: &UriPolicy,
    ) -> Result<UriPolicy, StoreError>;

    /// The source's switch and policy, if the source is known.
    async fn source(&self, source_id: &str) -> Result<Option<SourceRecord>, StoreError>;

    /// Switches a source on or off (a new source starts with no policy).
    async fn set_source_enabled(&self, source_id: &str, enabled: bool) -> Result<(), StoreError>;

    /// Forgets a source in one transaction: its policy (floors included), its switch, and
    /// every package state and file override stored under a package key starting with
    /// `<source_id>/`. Forgetting an unknown source succeeds.
    async fn forget_source(&self, source_id: &str) -> Result<(), StoreError>;

    /// Moves package states and file overrides of `source_id` from legacy package keys
    /// to the keys of today, once per source: the first call moves every
    /// `<source_id>/<legacy>` to `<source_id>/<key>` and answers `true`; every later call
    /// moves nothing and answers `false`. One transaction.
    async fn rekey_packages(
        &self,
        source_id: &str,
        moves: &[PackageKeyMove],
    ) -> Result<bool, StoreError>;

    /// Replaces every grant of `grants.grantor` in `project` (`None`: the grants that apply
    /// in every project). A role's features in a project are those granted in it and
    /// those granted in every project.
    async fn put_role_grants(
        &self,
        project: Option<&str>,
        grants: &RoleGrants,
    ) -> Result<(), StoreError>;

    /// Attaches a package in one transaction: its default grants replace those it
    /// declared before; each baseline is stored when its scope has no policy yet (first
    /// attach), and otherwise only its floors are added to the stored policy, so an
    /// administrator's edit survives a restart and no floor is ever lost.
    async fn attach_package(&self, defaults: &PackageDefaults) -> Result<(), StoreError>;

    /// Forgets the default grants of every package not in `installed` (a package removed
    /// since it was attached grants nothing any more), in one transaction. Only grants a
    /// package made at attach (in every project) go; an administrator's grants and
    /// revocations stay as they are, and so do the removed package's scope policies.
    async fn retire_packages(&self, installed: &BTreeSet<String>) -> Result<(), StoreError>;

    /// Replaces the administrator's revocations of package default grants in `project`
    /// (`None`: every project). A revoked default stays revoked across re-attaches.
    async fn put_grant_revocations(
        &self,
        project: Option<&str>,
        revoked: &RoleFeatures,
    ) -> Result<(), StoreError>;

    /// The administrator's per-role override in `project` (`None`: every project): its
    /// grants and its revocations of package default grants, replaced together in one
    /// transaction (a failure between them left one replaced and not the other).
    async fn put_administrator_grants(
        &self,
        project: Option<&str>,
        granted: &RoleFeatures,
        revoked: &RoleFeatures,
    ) -> Result<(), StoreError>;

    /// The administrator's revocations in `project` (`None`: those of every project).
    async fn grant_revocations(&self, project: Option<&str>) -> Result<RoleFeatures, StoreError>;

    /// Sets a package's enable state in a project; a new state past
    /// [`MAX_PACKAGE_STATES`] is refused ([`StoreError::LimitReached`]).
    async fn set_package_enabled(
        &self,
        project: &str,
        package_key: &str,
        enabled: bool,
    ) -> Result<(), StoreError>;

    /// Forgets a package's state in a project: the package is on, as one never set is.
    async fn forget_package_state(
        &self,
        project: &str,
        package_key: &str,
    ) -> Result<(), StoreError>;

    /// Sets (`Some`) or clears (`None`) a per-file override.
    async fn set_file_override(
        &self,
        target: &OverrideTarget,
        file: &FileRef,
        state: Option<bool>,
    ) -> Result<(), StoreError>;

    /// Registers a conversation; idempotent for the same lineage, a conflict for another.
    async fn register_conversation(&self, record: &ConversationRecord) -> Result<(), StoreError>;

    /// A conversation registered in `project` (with its parent), if any. Ids are per
    /// project: the same id in another project is another conversation.
    async fn conversation(
        &self,
        project: &str,
        id: &str,
    ) -> Result<Option<ConversationRecord>, StoreError>;

    /// Everything one evaluation reads, in one consistent read.
    async fn snapshot(&self, query: &SnapshotQuery) -> Result<AccessSnapshot, StoreError>;
}
