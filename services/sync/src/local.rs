//! The handlers of both sync services: the administration of sources and the index
//! feed. Each call holds the permit its rule issued (`neuralis-authz`, tables `sources`
//! and `index_feed`) and takes the binding step the rule names before it touches the
//! store. The gRPC servers and the in-process clients (`crate::in_process`) call them.

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
use neuralis_index::query::SearchQuery;
use neuralis_metrics::RunTrigger;
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as pb;
use std::sync::Arc;
use tokio_stream::wrappers::UnboundedReceiverStream;

/// Rows per `ListEntries` message.
const ENTRIES_PER_PAGE: usize = 500;
/// Search answers at most this many hits.
const MAX_SEARCH_HITS: u32 = 100;

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
        self.core.check_root(&record.root)?;
        record.id = source::new_id(&record.project, &record.slug)?;
        if record.kind == neuralis_index::SourceKind::Data && record.exclude_globs.is_empty() {
            record.exclude_globs = self.data_excludes.clone();
        }
        let store = self.core.deps.store.as_ref();
        let create = async {
            store.create_source(&record).await?;
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
        self.core.check_root(&record.root)?;
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

// === the index feed (services only) ===

impl LocalSync {
    /// The sources of one project as stored now, host paths included (services only).
    pub async fn list_project_sources(
        &self,
        permit: &Permit,
        request: feed::ListProjectSourcesRequest,
    ) -> Result<feed::ListProjectSourcesResponse, SyncError> {
        validate_project(&request.project, "project")?;
        permit.for_project(&request.project)?;
        let sources = self
            .core
            .deps
            .store
            .list_sources(Some(&request.project))
            .await?;
        Ok(feed::ListProjectSourcesResponse {
            sources: sources.iter().map(source::to_proto).collect(),
        })
    }

    /// Streams a project's raw rows, every page at the same revision; with
    /// `since_revision`, the delta since it when the index can tell.
    pub async fn list_entries(
        &self,
        permit: &Permit,
        request: feed::ListEntriesRequest,
    ) -> Result<SyncStream<feed::ListEntriesResponse>, SyncError> {
        validate_project(&request.project, "project")?;
        permit.for_project(&request.project)?;
        let store = &self.core.deps.store;
        let changes = match request.since_revision {
            Some(since) => store.changes_since(&request.project, since).await?,
            None => None,
        };
        let (revision, rows, removed, delta) = match changes {
            Some(changes) => (changes.revision, changes.rows, changes.removed, true),
            None => {
                let snapshot = store.project_rows(&request.project).await?;
                (snapshot.revision, snapshot.rows, Vec::new(), false)
            }
        };
        let mut removed: Vec<feed::Tombstone> = removed.into_iter().map(tombstone).collect();
        let entries: Vec<feed::Entry> = rows.iter().map(progress::entry).collect();
        let mut pages: Vec<Vec<feed::Entry>> = entries
            .chunks(ENTRIES_PER_PAGE)
            .map(<[_]>::to_vec)
            .collect();
        if pages.is_empty() {
            pages.push(Vec::new());
        }
        let stream = futures::stream::iter(pages.into_iter().map(move |entries| {
            Ok(feed::ListEntriesResponse {
                revision,
                entries,
                delta,
                removed: std::mem::take(&mut removed),
            })
        }));
        Ok(stream.boxed())
    }

    /// The project's current revision.
    pub async fn get_revision(
        &self,
        permit: &Permit,
        request: feed::GetRevisionRequest,
    ) -> Result<feed::GetRevisionResponse, SyncError> {
        validate_project(&request.project, "project")?;
        permit.for_project(&request.project)?;
        let revision = self.core.deps.store.revision(&request.project).await?;
        Ok(feed::GetRevisionResponse { revision })
    }

    /// Reads one file through its source's connector, only as the reader decided it
    /// (`read_decided`: no link followed, the bytes those the fingerprint names). A
    /// file changed since its row answers NOT_FOUND like a missing one, is counted, and
    /// its source is re-synced soon so the next decision sees it.
    pub async fn read_file(
        &self,
        permit: &Permit,
        request: feed::ReadDecidedFileRequest,
    ) -> Result<feed::ReadDecidedFileResponse, SyncError> {
        validate_project(&request.project, "project")?;
        permit.for_project(&request.project)?;
        validate_slug(&request.source, "source")
            .map_err(|_| SyncError::invalid("source", "is not a source slug"))?;
        if request.path.is_empty() {
            return Err(SyncError::invalid("path", "is required"));
        }
        let record = self.stored(&request.project, &request.source).await?;
        // A reader with no decided row (fingerprint 0) gets nothing, like a missing file.
        if request.fingerprint == 0 {
            neuralis_metrics::decided_read_refused(neuralis_metrics::ReadRefusal::Undecided);
            return Err(SyncError::NotFound(format!("file {:?}", request.path)));
        }
        let connector = self.core.connector_for(&record)?;
        // A row reached through an in-root link is read at its real path (decided under
        // both names), never through the alias, which may point anywhere by now.
        let path = if request.real_path.is_empty() {
            request.path.clone()
        } else {
            request.real_path.clone()
        };
        let fingerprint = request.fingerprint;
        let read = blocking(connector, move |c| c.read_decided(&path, fingerprint)).await?;
        let content = match read {
            Ok(content) => content,
            Err(err) => {
                let changed = err == crate::connector::ConnectorError::Changed;
                if changed {
                    neuralis_metrics::decided_read_refused(neuralis_metrics::ReadRefusal::Changed);
                    // The source id only: never the path a caller asked for.
                    tracing::info!(
                        source = %record.id,
                        "a read found a file changed since its row: re-syncing the source soon"
                    );
                    self.scheduler.soon(&record);
                } else {
                    neuralis_metrics::decided_read_refused(
                        neuralis_metrics::ReadRefusal::Unreadable,
                    );
                }
                return Err(SyncError::NotFound(format!("file {:?}", request.path)));
            }
        };
        Ok(feed::ReadDecidedFileResponse { content })
    }

    /// Searches a project's chunk rows.
    pub async fn search(
        &self,
        permit: &Permit,
        request: feed::SearchChunksRequest,
    ) -> Result<feed::SearchChunksResponse, SyncError> {
        validate_project(&request.project, "project")?;
        permit.for_project(&request.project)?;
        // The one rule of query bounds (`neuralis_index::query`), before any work.
        SearchQuery::parse(&request.query)
            .map_err(|refused| SyncError::invalid(refused.field(), refused.to_string()))?;
        let limit = match request.limit {
            0 => 10,
            limit => limit.min(MAX_SEARCH_HITS),
        };
        let store = &self.core.deps.store;
        let (mode, hits) = match &self.core.deps.embedder {
            Some(embedder) => {
                let vectors = embedder.embed(std::slice::from_ref(&request.query)).await?;
                let vector = vectors.into_iter().next().unwrap_or_default();
                (
                    feed::SearchMode::Vector,
                    store
                        .search_vector(&request.project, &vector, limit)
                        .await?,
                )
            }
            None => (
                feed::SearchMode::FullText,
                store
                    .search_text(&request.project, &request.query, limit)
                    .await?,
            ),
        };
        Ok(feed::SearchChunksResponse {
            mode: mode as i32,
            hits: hits.iter().map(progress::hit).collect(),
        })
    }
}

fn tombstone(removed: neuralis_index::Removed) -> feed::Tombstone {
    match removed {
        neuralis_index::Removed::Source { source } => feed::Tombstone {
            source,
            path: String::new(),
        },
        neuralis_index::Removed::File { source, path } => feed::Tombstone { source, path },
    }
}
