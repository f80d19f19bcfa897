//! The handlers of both sync services: the administration of sources and the index
//! feed. Each call holds the permit its rule issued (`neuralis-authz`, tables `sources`
//! and `index_feed`) and takes the binding step the rule names before it touches the
//! store. The gRPC servers and the in-process clients (`crate::in_process`) call them.

mod index_feed;

use crate::api::SyncStream;
use crate::core::SyncCore;
use crate::forget::AccessForgetter;
use crate::invalidation::{self, WriteTarget};
use crate::run::{RunUpdate, blocking};
use crate::schedule::Scheduler;
use crate::source::{self, validate_project, validate_slug};
use crate::{SyncError, progress};
use futures::StreamExt;
use neuralis_authz::Permit;
use neuralis_host::share::{FairShare, ShareLimits};
use neuralis_index::SourceRecord;
use neuralis_metrics::RunTrigger;
use neuralis_proto::sync::v1 as pb;
use std::sync::Arc;
use tokio_stream::wrappers::UnboundedReceiverStream;

/// The sync service's handlers.
pub struct LocalSync {
    core: Arc<SyncCore>,
    scheduler: Scheduler,
    forgetter: Arc<dyn AccessForgetter>,
    /// The fair share of `SyncSource` calls (issue 25): a run reads a whole tree and
    /// writes the store, so one caller or project cannot start them without bound.
    share: FairShare,
    /// The exclude globs a new data source starts with (seed 002, "machineWritten").
    data_excludes: Vec<String>,
    /// How long a search's query may take to embed (`sync.search.embed_deadline_ms`).
    embed_deadline: std::time::Duration,
}

impl LocalSync {
    /// The handlers over `core`; `forgetter` forgets a source's access state before
    /// its rows are deleted.
    pub fn new(
        core: Arc<SyncCore>,
        debounce: std::time::Duration,
        forgetter: Arc<dyn AccessForgetter>,
    ) -> Self {
        let scheduler = Scheduler::new(Arc::clone(&core), debounce);
        Self {
            core,
            scheduler,
            forgetter,
            share: FairShare::new(ShareLimits::default()),
            data_excludes: Vec::new(),
            embed_deadline: crate::config::SearchConfig::default().embed_deadline(),
        }
    }

    /// The same handlers seeding every new data source created without exclude globs
    /// with `globs`: the metrics files of the installed trusted and first-party packages,
    /// anchored to their zones. Written once, at create; never into a stored source.
    pub fn with_data_excludes(mut self, globs: Vec<String>) -> Self {
        self.data_excludes = globs;
        self
    }

    /// The same handlers announcing source changes to the other replicas on `bus`, and
    /// following theirs.
    pub fn with_source_notices(mut self, bus: Arc<dyn neuralis_bus::InvalidationBus>) -> Self {
        self.scheduler = self.scheduler.with_notices(bus);
        self
    }

    /// The same handlers answering a search whose query is not embedded within
    /// `deadline` RESOURCE_EXHAUSTED.
    pub fn with_query_embed_deadline(mut self, deadline: std::time::Duration) -> Self {
        self.embed_deadline = deadline;
        self
    }

    /// The same handlers with `limits` on concurrent `SyncSource` calls.
    pub fn with_fair_share(mut self, limits: ShareLimits) -> Self {
        self.share = FairShare::new(limits);
        self
    }

    /// Arms the trigger of every stored source (at start), and follows the store from
    /// then on: re-read every `refresh`, so a trigger changed through another replica
    /// is re-armed here too.
    pub async fn arm_triggers(&self, refresh: std::time::Duration) -> Result<(), SyncError> {
        self.scheduler.follow_store(refresh).await
    }

    /// Syncs one source to completion (no caller check: for the service's own use).
    pub async fn sync_now(&self, project: &str, slug: &str) -> Result<RunUpdate, SyncError> {
        let (updates, _ignored) = tokio::sync::mpsc::unbounded_channel();
        self.core
            .sync(project, slug, &updates, RunTrigger::Api)
            .await
    }

    /// `root` of a source of `project` as resolved now, when the root rules allow it.
    pub fn checked_root(
        &self,
        project: &str,
        root: &std::path::Path,
    ) -> Option<std::path::PathBuf> {
        let given = root.to_str()?;
        let resolved = crate::roots::resolve(root);
        let roots = &self.core.roots;
        crate::roots::check_at(given, &resolved, project, roots)
            .ok()
            .map(|()| resolved)
    }

    async fn stored(&self, project: &str, slug: &str) -> Result<SourceRecord, SyncError> {
        validate_project(project, "project")?;
        // Before the lookup, whose NOT_FOUND would quote the slug.
        validate_slug(slug, "slug")?;
        self.core
            .deps
            .store
            .get_source(project, slug)
            .await?
            .ok_or_else(|| SyncError::NotFound(format!("source {slug:?} of project {project:?}")))
    }
}

fn spec_of(spec: &Option<pb::SourceSpec>) -> Result<&pb::SourceSpec, SyncError> {
    spec.as_ref()
        .ok_or_else(|| SyncError::invalid("source", "is required"))
}

fn now() -> i64 {
    i64::try_from(neuralis_bus::now_millis()).unwrap_or(i64::MAX)
}

// === the administration of sources (administrators of the project) ===

impl LocalSync {
    /// Runs a change of `source`'s settings between `start` and `finish` on the bus,
    /// like a write: a source's scope and privacy patterns decide access, and discovery,
    /// which answers warm listings while sync is away, must learn of a change before it
    /// commits (the start fails closed), never after (sync may die in between).
    async fn announced(
        &self,
        source: &SourceRecord,
        change: impl std::future::Future<Output = Result<u64, SyncError>>,
    ) -> Result<u64, SyncError> {
        let target = WriteTarget {
            project: &source.project,
            source: &source.slug,
        };
        let store = self.core.deps.store.as_ref();
        invalidation::announced(store, self.core.deps.bus.as_ref(), target, change).await
    }
}

impl LocalSync {
    /// Creates a source (never synced).
    pub async fn create_source(
        &self,
        permit: &Permit,
        request: pb::CreateSourceRequest,
    ) -> Result<pb::CreateSourceResponse, SyncError> {
        let spec = spec_of(&request.source)?;
        validate_project(&spec.project, "source.project")?;
        permit.for_project(&spec.project)?;
        let mut record = source::record_from_spec(spec, now())?;
        self.core.check_root(&record.root, &record.project)?;
        self.core.check_trigger(&record.trigger)?;
        record.id = source::new_id(&record.project, &record.slug)?;
        if record.kind == neuralis_index::SourceKind::Data && record.exclude_globs.is_empty() {
            record.exclude_globs = self.data_excludes.clone();
        }
        let store = self.core.deps.store.as_ref();
        // A project holds at most `sync.schedule.max_sources_per_project` sources: each
        // may be scheduled, so their count bounds what it can make the service do unasked.
        let max = self.core.schedule.max_sources_per_project;
        // Refused before the announcement when the store already refuses it: a start
        // marks what every replica of discovery holds of the project stale (each then
        // refills it), which a full project's creates, sent without end, would cost
        // them all. The insert decides again, for creates racing for the last place.
        let held = store.list_sources(Some(&record.project)).await?;
        neuralis_index::room_for(&held, &record, max)?;
        let create = async {
            store.create_source_within(&record, max).await?;
            Ok(store.revision(&record.project).await?)
        };
        self.announced(&record, create).await?;
        self.scheduler.arm(&record);
        self.scheduler.announce(&record.project, &record.slug).await;
        Ok(pb::CreateSourceResponse {
            source: Some(source::to_proto(&record)),
        })
    }

    /// One source with its status.
    pub async fn get_source(
        &self,
        permit: &Permit,
        request: pb::GetSourceRequest,
    ) -> Result<pb::GetSourceResponse, SyncError> {
        validate_project(&request.project, "project")?;
        permit.for_project(&request.project)?;
        let record = self.stored(&request.project, &request.slug).await?;
        Ok(pb::GetSourceResponse {
            source: Some(source::to_proto(&record)),
        })
    }

    /// The sources of a project; of every project for a platform-wide credential.
    pub async fn list_sources(
        &self,
        permit: &Permit,
        request: pb::ListSourcesRequest,
    ) -> Result<pb::ListSourcesResponse, SyncError> {
        neuralis_proto::bounds::page_token("page_token", &request.page_token)?;
        let project = (!request.project.is_empty()).then_some(request.project.as_str());
        match project {
            Some(project) => {
                validate_project(project, "project")?;
                permit.for_project(project)?;
            }
            None => {
                permit.for_every_project()?;
            }
        }
        let sources = self.core.deps.store.list_sources(project).await?;
        // One page of what this permit may list (page 0 is everything).
        let (sources, next_page_token) = neuralis_proto::page::page(
            sources.iter().map(source::to_proto).collect(),
            request.page_size,
            &request.page_token,
            |source| source.id.as_str(),
        )
        .map_err(|e| SyncError::invalid(e.field, e.message))?;
        Ok(pb::ListSourcesResponse {
            sources,
            next_page_token,
        })
    }

    /// Replaces a source's settings.
    pub async fn update_source(
        &self,
        permit: &Permit,
        request: pb::UpdateSourceRequest,
    ) -> Result<pb::UpdateSourceResponse, SyncError> {
        let spec = spec_of(&request.source)?;
        validate_project(&spec.project, "source.project")?;
        permit.for_project(&spec.project)?;
        let mut record = source::record_from_spec(spec, now())?;
        let current = self.stored(&spec.project, &spec.slug).await?;
        self.core.check_root(&record.root, &record.project)?;
        self.core.check_trigger(&record.trigger)?;
        // Settings unchanged: nothing is written or announced. A start marks the
        // project stale in every discovery replica, which an update sent again and
        // again would otherwise cost them all.
        if record.same_settings(&current) {
            // A watcher that could not start is tried again, as a re-arm always did;
            // a running trigger is left alone.
            self.scheduler.revive(&current);
            return Ok(pb::UpdateSourceResponse {
                source: Some(source::to_proto(&current)),
            });
        }
        record.id = current.id;
        record.created_at = current.created_at;
        record.status = current.status;
        let store = self.core.deps.store.as_ref();
        let update = async {
            store.update_source(&record).await?;
            Ok(store.revision(&record.project).await?)
        };
        self.announced(&record, update).await?;
        self.scheduler.arm(&record);
        self.scheduler.announce(&record.project, &record.slug).await;
        Ok(pb::UpdateSourceResponse {
            source: Some(source::to_proto(&record)),
        })
    }

    /// Deletes a source and its rows, once policy forgot its access state: when policy
    /// cannot, the call is UNAVAILABLE and nothing is deleted.
    pub async fn delete_source(
        &self,
        permit: &Permit,
        request: pb::DeleteSourceRequest,
    ) -> Result<pb::DeleteSourceResponse, SyncError> {
        validate_project(&request.project, "project")?;
        permit.for_project(&request.project)?;
        let stored = self.stored(&request.project, &request.slug).await?;
        self.forgetter
            .forget_source(&stored.id)
            .await
            .map_err(|err| SyncError::Unavailable(err.to_string()))?;
        self.scheduler.disarm(&request.project, &request.slug);
        let store = self.core.deps.store.as_ref();
        let target = WriteTarget {
            project: &request.project,
            source: &request.slug,
        };
        let delete = async {
            match store.delete_source(&request.project, &request.slug).await? {
                Some(revision) => Ok(revision),
                None => Ok(store.revision(&request.project).await?),
            }
        };
        let revision =
            invalidation::announced(store, self.core.deps.bus.as_ref(), target, delete).await?;
        self.scheduler
            .announce(&request.project, &request.slug)
            .await;
        Ok(pb::DeleteSourceResponse { revision })
    }

    /// Syncs a source now, streaming progress; the last item has `done` set.
    pub async fn sync_source(
        &self,
        permit: &Permit,
        request: pb::SyncSourceRequest,
    ) -> Result<SyncStream<pb::SyncSourceResponse>, SyncError> {
        validate_project(&request.project, "project")?;
        let acting = permit.for_project(&request.project)?;
        let caller = acting.caller().map_or("", |caller| caller.subject.as_str());
        let admitted = self.share.admit(&request.project, caller).map_err(|shed| {
            SyncError::ResourceExhausted {
                message: shed.message().into(),
                retry_after: self.share.limits().retry_after(),
            }
        })?;
        self.stored(&request.project, &request.slug).await?;
        let (updates, received) = tokio::sync::mpsc::unbounded_channel();
        let (outcome_sender, outcome) = tokio::sync::oneshot::channel();
        let core = Arc::clone(&self.core);
        // The run goes on when the caller hangs up: a sync is never left half done,
        // and it holds its place in the share until it ends.
        tokio::spawn(async move {
            let result = core
                .sync(&request.project, &request.slug, &updates, RunTrigger::Api)
                .await;
            // The place is free before the caller hears the run ended: a caller that
            // syncs again at once is never shed by its own finished run.
            drop(admitted);
            let _ = outcome_sender.send(result);
        });
        let steps = UnboundedReceiverStream::new(received)
            .map(|update| Ok(progress::to_proto(&update, false)));
        let last = futures::stream::once(async move {
            match outcome.await {
                Ok(Ok(done)) => Ok(progress::to_proto(&done, true)),
                Ok(Err(err)) => Err(err),
                Err(_) => Err(SyncError::Internal(
                    "the sync task ended without an outcome".into(),
                )),
            }
        });
        Ok(steps.chain(last).boxed())
    }
}
