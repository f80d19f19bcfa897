//! What discovery needs from the other services, as tonic-free traits. The all-in-one
//! process implements them with the in-process sync and policy services; split mode
//! with their gRPC clients (see `neuralis` `serve`).

use std::path::PathBuf;

use async_trait::async_trait;
use neuralis_access::{Caller, Evaluation, EvaluationRequest, KeptBatch, SourceScope};
use neuralis_layout::{FilePayload, Package, Trust};

use crate::base::error::DiscoveryError;

/// A source as sync records it, re-read on every request (its scope decides access).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceInfo {
    /// The id the index and the policy store key the source by.
    pub id: String,
    /// Names the source in activation ids and overviews.
    pub slug: String,
    /// Who the source belongs to.
    pub scope: SourceScope,
    /// The URI of the source root (`machine://…` for a machine sandbox); a skill's
    /// directory URI is this joined with the skill's directory.
    pub root_uri: String,
    /// The source root on the sync host's disk, when it is a local directory (shown to
    /// administrators in a skill's directory URI; never compared with discovery's own
    /// paths, which differ in split mode).
    pub local_root: Option<PathBuf>,
    /// The source's agent-private patterns as configured now (`{agent}` captures the
    /// owner): every request computes privacy from these, never from the markers the
    /// last sync stored, so a changed pattern is honoured by the next request.
    pub privacy_patterns: Vec<String>,
    /// The source is an agent data tree (SOURCE_KIND_DATA): the `data://` namespace,
    /// whose package zones' baselines decide its files too (seed 002, "uriPolicies").
    pub data_tree: bool,
    /// A local source whose directory is also a package source (seed 000,
    /// `recognizesPackages`).
    pub recognizes_packages: bool,
}

/// One raw index row: what sync indexed for one file.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexRow {
    pub source_id: String,
    /// Relative to the source root, `/`-separated.
    pub path: String,
    pub size: u64,
    /// The layout core's capture, as indexed. (No privacy marker: the owner of a file
    /// is matched on every request from the source's current patterns, never taken
    /// from the index, which holds the patterns of the last sync.)
    pub payload: FilePayload,
    /// When the file was reached through an in-root symlink: its real path relative to
    /// the source root (access must be decided under both paths; the stricter wins).
    pub real_path: Option<String>,
    /// The content flags the sync found in the file at its last read (issue 10 item 6).
    pub content_flags: neuralis_content_flags::FlagSet,
    /// The first 8 bytes of the row's SHA-256 (`neuralis_connector::fingerprint`): a
    /// read serves the file only while its bytes still hash to it. 0 when the row's
    /// hash could not be read: such a row is never readable.
    pub fingerprint: u64,
}

/// One raw search hit from sync's chunk rows, before access is decided.
#[derive(Debug, Clone, PartialEq)]
pub struct RawHit {
    /// The source slug.
    pub source_slug: String,
    /// Relative to the source root, `/`-separated.
    pub path: String,
    /// The chunk's position in its file.
    pub ordinal: u32,
    /// The chunk text.
    pub text: String,
}

/// A project's raw rows, read at one revision.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectRows {
    pub revision: u64,
    pub rows: Vec<IndexRow>,
}

/// The rows changed in a project after a revision (DESIGN.md section 3, deltas).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectDelta {
    /// The revision they were read at.
    pub revision: u64,
    /// Every row written since, as it is now.
    pub rows: Vec<IndexRow>,
    /// What was deleted since and is still gone; applied before `rows`.
    pub removed: Vec<RemovedRow>,
}

/// A tombstone, by source slug (a deleted source is no longer listed by id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemovedRow {
    /// Every row of the source.
    Source { slug: String },
    /// One row.
    File { slug: String, path: String },
}

/// What a read since a revision returned.
#[derive(Debug, Clone, PartialEq)]
pub enum RowsSince {
    /// Only what changed.
    Delta(ProjectDelta),
    /// Every row: sync could not answer from that revision (a gap).
    Full(ProjectRows),
}

/// What a read names of the row it decided on (from the inventory the answer was
/// grouped from).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecidedRow<'a> {
    /// The row's content fingerprint (never 0 for a readable row).
    pub fingerprint: u64,
    /// The row's real path, when the sync reached the file through an in-root link.
    pub real_path: Option<&'a str>,
}

/// Where a full read puts its rows as they arrive, keyed by source id: the inventory
/// files them for grouping at once, so no read holds every decoded row beside the
/// filing (the largest part of a cold fill's memory peak; issue 31).
pub trait RowSink: Send {
    /// One row of the source `source_id` (the row's own `source_id` is not read).
    fn put(&mut self, source_id: &str, row: IndexRow);
    /// The rows put under `from` are `to`'s (its slug was listed under a new id after
    /// the read), or nobody's (`None`: the source was deleted during the read).
    fn rekey(&mut self, from: &str, to: Option<&str>);
}

/// What discovery reads from sync.
#[async_trait]
pub trait IndexPort: Send + Sync + 'static {
    /// The project's sources, as persisted now.
    async fn sources(&self, project: &str) -> Result<Vec<SourceInfo>, DiscoveryError>;
    /// Every file row of the project, with the revision they were read at.
    async fn rows(&self, project: &str) -> Result<ProjectRows, DiscoveryError>;
    /// [`IndexPort::rows`], each row put into `sink` as it is read; the revision they
    /// were read at. The rows are keyed as `rows` keys them (by the sources as listed
    /// after the read); `listed` are the project's sources as this request read them
    /// before, by which a port may key rows as they arrive and mend the keys after.
    async fn rows_into(
        &self,
        project: &str,
        listed: &[SourceInfo],
        sink: &mut dyn RowSink,
    ) -> Result<u64, DiscoveryError> {
        let _ = listed;
        let rows = self.rows(project).await?;
        for mut row in rows.rows {
            let source_id = std::mem::take(&mut row.source_id);
            sink.put(&source_id, row);
        }
        Ok(rows.revision)
    }
    /// The rows changed after `since`, or every row when that cannot be told. A port
    /// that keeps no changes always answers in full. `listed` are the project's sources
    /// as this request read them, before the rows: a port may key the changed rows by
    /// them instead of listing the sources again, when the changes show that no source
    /// came or went since `since` (see the service's `SyncIndex` adapter).
    async fn rows_since(
        &self,
        project: &str,
        since: u64,
        listed: &[SourceInfo],
    ) -> Result<RowsSince, DiscoveryError> {
        let _ = (since, listed);
        Ok(RowsSince::Full(self.rows(project).await?))
    }
    /// The project's sources and the rows changed after `since`, keyed by them, for a
    /// catch-up that needs both: [`IndexPort::rows_since`] with the sources listed
    /// before, or what it answers when a port reads the two at once. The sources
    /// returned are the listing the rows were keyed by.
    async fn sources_and_rows_since(
        &self,
        project: &str,
        since: u64,
    ) -> Result<(Vec<SourceInfo>, RowsSince), DiscoveryError> {
        let listed = self.sources(project).await?;
        let rows = self.rows_since(project, since, &listed).await?;
        Ok((listed, rows))
    }
    /// The project's current revision (cheap; for revalidation).
    async fn revision(&self, project: &str) -> Result<u64, DiscoveryError>;
    /// A file's content through the source's connector, only as it was decided: the
    /// bytes whose `fingerprint` the row carries, read at its `real_path` when it has
    /// one, no link followed. NOT_FOUND when it is gone, a link, or changed since.
    async fn read(
        &self,
        project: &str,
        source_id: &str,
        path: &str,
        decided: &DecidedRow<'_>,
    ) -> Result<Vec<u8>, DiscoveryError>;
    /// Raw search over the project's chunk rows, best first, at most `limit` hits
    /// (sync caps it at 100). Unfiltered: the caller decides which hits anyone sees.
    async fn search(
        &self,
        project: &str,
        query: &str,
        limit: u32,
    ) -> Result<Vec<RawHit>, DiscoveryError>;
}

/// What discovery asks policy: decide one batch for the caller, afresh.
#[async_trait]
pub trait AccessPort: Send + Sync + 'static {
    /// `caller` was verified by discovery's gate; policy decides for it (the call itself
    /// carries discovery's service credential).
    async fn evaluate(
        &self,
        caller: &Caller,
        conversation: Option<&str>,
        request: &EvaluationRequest,
    ) -> Result<Evaluation, DiscoveryError>;

    /// [`AccessPort::evaluate`] of a batch checked once and kept. Sent as the batch by
    /// default: a policy across the wire checks what it receives itself.
    async fn evaluate_kept(
        &self,
        caller: &Caller,
        conversation: Option<&str>,
        kept: &KeptBatch,
    ) -> Result<Evaluation, DiscoveryError> {
        self.evaluate(caller, conversation, kept.request()).await
    }

    /// Moves the source's stored package states from legacy package keys to today's,
    /// once per source (policy answers `true` the first time). Nothing to move by
    /// default: a port without a store behind it keeps no state.
    async fn rekey_packages(
        &self,
        _source_id: &str,
        _moves: &[neuralis_layout::naming::KeyMove],
    ) -> Result<bool, DiscoveryError> {
        Ok(false)
    }
}

/// One installed package as the catalog loaded it.
#[derive(Debug, Clone)]
pub struct InstalledPackage {
    /// The package id (the manifest's).
    pub package_id: String,
    /// Its id and version: how a source tells its directory without host paths (seed
    /// 000, "No double loading").
    pub identity: neuralis_catalog::LogicalIdentity,
    /// The host-assigned trust tier.
    pub trust: Trust,
    /// Its directory.
    pub dir: PathBuf,
    /// For a package a flagged source holds (seed 000, recognizesPackages): that
    /// source, which decides who it reaches and where its files are read. `None` for
    /// a package installed on the host.
    pub source: Option<PackageSource>,
    /// `requires.accessFeature`, gating the whole package.
    pub access_feature: Option<String>,
    /// Its contributions, already sanitized for its trust tier (paths relative to the
    /// package directory).
    pub package: Package,
    /// Indexed sizes of its files by path, for hydration budgets.
    pub sizes: std::collections::HashMap<String, u64>,
    /// Its tools with the features each needs (`requires.features`), decided per
    /// caller with its markdown (a tool whose features the caller lacks is absent).
    pub tools: Vec<ToolGate>,
    /// Its `dataLayout` names under its zone root (seed 002), for the `<data_areas>`
    /// block; `machineWritten` is never carried here.
    pub data_area: neuralis_assembly::DataArea,
}

/// The source a recognized package was found in, and where in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageSource {
    pub source_id: String,
    pub slug: String,
    pub root_uri: String,
    /// Its scope: the package reaches only the callers this scope reaches.
    pub scope: SourceScope,
    /// The package directory, relative to the source root (its files are rows of the
    /// source under it).
    pub prefix: String,
    /// Its tools as `ListTools` answers them.
    pub tools: Vec<ToolEntry>,
}

/// One tool of an installed package and the features a caller needs to use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolGate {
    pub name: String,
    pub features: Vec<String>,
}

/// One tool of the catalog as it answers for a caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolEntry {
    pub name: String,
    pub package_id: String,
    pub description: String,
    pub input_schema_json: String,
}

/// A contested tool name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContestedTool {
    pub name: String,
    pub owner: String,
    pub claimants: Vec<String>,
}

/// The outcome of validating one package.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackageValidation {
    pub accepted: bool,
    /// (location, message)
    pub errors: Vec<(String, String)>,
    pub warnings: Vec<(String, String)>,
}

/// The installed-package catalog, loaded and validated at start.
pub trait InstalledCatalog: Send + Sync + 'static {
    /// Every loaded package.
    fn packages(&self) -> &[InstalledPackage];
    /// A file of a loaded package; NOT_FOUND when it is gone.
    fn read(&self, package_id: &str, path: &str) -> Result<Vec<u8>, DiscoveryError>;
    /// The tools that answer for a caller who can use the packages `usable` accepts,
    /// and every contested name among them.
    /// The tools `usable(package id, tool name)` lets the caller use, one owner per
    /// name, and the names more than one usable claimant offers.
    fn tools(&self, usable: &dyn Fn(&str, &str) -> bool) -> (Vec<ToolEntry>, Vec<ContestedTool>);
    /// The tools as [`InstalledCatalog::tools`] answers them, with `beside` (the tools
    /// of packages found in flagged sources, untrusted like the drop zone's) claiming
    /// their names under the same contested-name rule. By default a name already
    /// answered stays with its owner and no contest is listed for it.
    fn tools_beside(
        &self,
        beside: &[ToolEntry],
        usable: &dyn Fn(&str, &str) -> bool,
    ) -> (Vec<ToolEntry>, Vec<ContestedTool>) {
        let (mut tools, contested) = self.tools(usable);
        for tool in beside {
            let taken = tools.iter().any(|t| t.name == tool.name);
            if !taken && usable(&tool.package_id, &tool.name) {
                tools.push(tool.clone());
            }
        }
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        (tools, contested)
    }
    /// Validates one package's files at a trust tier.
    fn validate(&self, files: &[(String, Vec<u8>)], trust: Trust) -> PackageValidation;
    /// The packages the local sources among `sources` flagged `recognizesPackages`
    /// hold, scanned now (seed 000): what each answer prepared from these sources takes
    /// beside [`InstalledCatalog::packages`]. None by default.
    fn source_packages(&self, _project: &str, _sources: &[SourceInfo]) -> Vec<InstalledPackage> {
        Vec::new()
    }
}

/// A catalog with no installed packages (and no validator).
#[derive(Debug, Default)]
pub struct EmptyCatalog;

impl InstalledCatalog for EmptyCatalog {
    fn packages(&self) -> &[InstalledPackage] {
        &[]
    }

    fn read(&self, _package_id: &str, _path: &str) -> Result<Vec<u8>, DiscoveryError> {
        Err(DiscoveryError::NotFound)
    }

    fn tools(&self, _usable: &dyn Fn(&str, &str) -> bool) -> (Vec<ToolEntry>, Vec<ContestedTool>) {
        (Vec::new(), Vec::new())
    }

    fn validate(&self, _files: &[(String, Vec<u8>)], _trust: Trust) -> PackageValidation {
        PackageValidation {
            accepted: false,
            errors: vec![("package".into(), "no validator is configured".into())],
            warnings: Vec::new(),
        }
    }
}

#[cfg(test)]
#[path = "ports_tests.rs"]
mod tests;
