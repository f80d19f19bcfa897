//! The part of the service that runs syncs: shared by the API (`SyncSource`) and the
//! triggers (`auto`, `interval`). One run per source at a time, across replicas (the
//! source's lease in the store, `crate::lease`); a second request waits for the first
//! and then syncs again (it may have been asked for a newer change).

mod scheduled;

use crate::SyncError;
use crate::config::ScheduleLimits;
use crate::connector::{Connector, LocalConnector};
use crate::lease::Leases;
use crate::roots::Roots;
use crate::run::{self, RunDeps, RunUpdate, Updates};
use neuralis_index::{SourceRecord, SyncStatus};
use neuralis_metrics::RunTrigger;
use scheduled::ScheduledShare;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A source by (project, slug).
type SourceKey = (String, String);
/// Held for the whole of one run of a source.
type RunGate = Arc<tokio::sync::Mutex<()>>;

/// Runs syncs and records their outcome.
pub struct SyncCore {
    /// What a run needs.
    pub deps: RunDeps,
    /// Files over this size are skipped.
    pub max_file_size: u64,
    /// Which roots may be synced, and the server's directories no connector enters.
    pub roots: Roots,
    running: Mutex<HashMap<SourceKey, RunGate>>,
    /// This replica's turns at sources shared with other replicas.
    pub(crate) leases: Leases,
    /// What scheduled work may cost (`sync.schedule`).
    pub(crate) schedule: ScheduleLimits,
    /// The places scheduled runs take.
    pub(crate) scheduled: ScheduledShare,
}

impl SyncCore {
    /// A core over `deps`.
    pub(crate) fn new(
        deps: RunDeps,
        max_file_size: u64,
        roots: Roots,
        leases: Leases,
        schedule: ScheduleLimits,
    ) -> Self {
        Self {
            deps,
            max_file_size,
            roots,
            running: Mutex::new(HashMap::new()),
            leases,
            scheduled: ScheduledShare::new(&schedule),
            schedule,
        }
    }

    /// The connector of a source (every kind is a directory on this host today; a
    /// machine source is its sandbox directory mounted here). A root the rules refuse
    /// now (its link moved, the configuration changed) is refused here too, and no
    /// connector enters the server's own directories.
    pub fn connector_for(&self, source: &SourceRecord) -> Result<Arc<dyn Connector>, SyncError> {
        crate::roots::check(&source.root, &source.project, &self.roots)?;
        let connector = LocalConnector::guarded(
            std::path::Path::new(&source.root),
            self.max_file_size,
            self.roots.protected(),
        )?;
        // Checked again as the connector resolved it: that is the directory it reads.
        let (given, project) = (&source.root, &source.project);
        crate::roots::check_at(given, connector.root(), project, &self.roots)?;
        Ok(Arc::new(connector))
    }

    /// Refuses an `interval:` trigger shorter than `sync.schedule.min_interval_ms`
    /// (`source.trigger`; `trigger` is canonical, as stored).
    pub fn check_trigger(&self, trigger: &str) -> Result<(), SyncError> {
        let parsed: neuralis_sync_core::Trigger =
            trigger
                .parse()
                .map_err(|err: neuralis_sync_core::trigger::TriggerError| {
                    SyncError::invalid("source.trigger", err.to_string())
                })?;
        parsed
            .at_least(self.schedule.min_interval())
            .map(|_| ())
            .map_err(|err| SyncError::invalid("source.trigger", err.to_string()))
    }

    /// Refuses a root a source of `project` may not have (`source.root`).
    pub fn check_root(&self, root: &str, project: &str) -> Result<(), SyncError> {
        crate::roots::check(root, project, &self.roots)
    }

    /// Syncs a source now (re-reading its settings), reporting progress to `updates`;
    /// `trigger` says what asked, for the run counter.
    pub async fn sync(
        &self,
        project: &str,
        slug: &str,
        updates: &Updates,
        trigger: RunTrigger,
    ) -> Result<RunUpdate, SyncError> {
        let gate = self.gate(project, slug);
        let _running = gate.lock().await;
        // Inside the local gate: one run of this process waits on the store at a time.
        let held = self.leases.hold(project, slug).await?;
        let outcome = self.run(project, slug, updates, trigger).await;
        held.release().await;
        outcome
    }

    async fn run(
        &self,
        project: &str,
        slug: &str,
        updates: &Updates,
        trigger: RunTrigger,
    ) -> Result<RunUpdate, SyncError> {
        // Recorded as the run's time: the index holds the tree as of its start, and the
        // next run treats rows changed since then as racy (issue 10 item 5).
        let started = i64::try_from(neuralis_bus::now_millis()).unwrap_or(i64::MAX);
        let source = self
            .deps
            .store
            .get_source(project, slug)
            .await?
            .ok_or_else(|| {
                SyncError::NotFound(format!("source {slug:?} of project {project:?}"))
            })?;
        let outcome = match self.connector_for(&source) {
            Ok(connector) => run::run_sync(&self.deps, &source, connector, updates).await,
            Err(err) => Err(err),
        };
        self.record(&source, &outcome, started, trigger).await;
        if let Ok(done) = &outcome
            && done.counters.batches_committed > 0
        {
            self.prune_tombstones(&source.project).await;
        }
        outcome
    }

    /// Prunes the project's old tombstones after a run that wrote (see
    /// docs/decisions/sync.md, "Tombstone pruning"). A failure only leaves them for the
    /// next run: the run itself succeeded.
    async fn prune_tombstones(&self, project: &str) {
        let keep = self.deps.limits.tombstone_retention;
        if keep == 0 {
            return;
        }
        match self.deps.store.prune_tombstones(project, keep).await {
            Ok(pruned) if pruned.removed > 0 => tracing::info!(
                project,
                removed = pruned.removed,
                floor = pruned.floor,
                "tombstones pruned"
            ),
            Ok(_) => {}
            Err(err) => tracing::warn!(project, error = %err, "tombstones not pruned"),
        }
    }

    fn gate(&self, project: &str, slug: &str) -> RunGate {
        let mut running = self
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(
            running
                .entry((project.to_owned(), slug.to_owned()))
                .or_default(),
        )
    }

    /// Records the run in the source's status; a failure keeps the last success time.
    async fn record(
        &self,
        source: &SourceRecord,
        outcome: &Result<RunUpdate, SyncError>,
        started: i64,
        trigger: RunTrigger,
    ) {
        match outcome {
            Ok(done) => neuralis_metrics::sync_run(
                neuralis_metrics::RunOutcome::Succeeded,
                trigger,
                neuralis_metrics::RunFiles {
                    indexed: done.counters.files_indexed,
                    unchanged: done.counters.files_unchanged,
                    deleted: done.counters.files_deleted,
                    skipped: done.counters.files_skipped,
                    bytes_read: done.counters.bytes_read,
                },
            ),
            Err(_) => neuralis_metrics::sync_run(
                neuralis_metrics::RunOutcome::Failed,
                trigger,
                neuralis_metrics::RunFiles::default(),
            ),
        }
        let status = match outcome {
            Ok(done) => SyncStatus {
                last_synced_at: Some(started),
                last_revision: done.revision,
                files_seen: done.counters.files_seen,
                files_indexed: done.counters.files_indexed,
                files_skipped: done.counters.files_skipped,
                bytes_read: done.counters.bytes_read,
                last_error: None,
            },
            Err(err) => SyncStatus {
                last_error: Some(err.to_string()),
                ..source.status.clone()
            },
        };
        if let Err(err) = self
            .deps
            .store
            .record_status(&source.project, &source.slug, &source.id, &status)
            .await
        {
            tracing::warn!(project = %source.project, source = %source.slug, error = %err, "sync status not recorded");
        }
        match outcome {
            Ok(done) => tracing::info!(
                project = %source.project,
                source = %source.slug,
                indexed = done.counters.files_indexed,
                skipped = done.counters.files_skipped,
                revision = done.revision,
                "sync finished"
            ),
            Err(err) => {
                tracing::warn!(project = %source.project, source = %source.slug, error = %err, "sync failed")
            }
        }
    }
}
