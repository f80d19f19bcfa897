//! The service stage: the real implementation (the in-process client of the
//! all-in-one process), over the stages below; the tonic-free API, the gRPC adapter,
//! the in-process client, the settings and the adapters to sync, policy and the
//! installed catalog.
//!
//! A call's path: its scope and caller (`decision`), the project's rows from the
//! inventory (`rows`), the answer prepared once per snapshot (`grouping`), policy's
//! decisions for this caller made now (`decision`), and the answer rendered from them
//! (`answers`, in the handlers).

use std::sync::Arc;

use neuralis_authz::Permit;
use neuralis_host::share::FairShare;
use neuralis_layout::Category;
use neuralis_proto::discovery::v1 as pb;

use crate::answers::content::Content;
use crate::base::error::DiscoveryError;
use crate::base::ports::{AccessPort, IndexPort, InstalledCatalog, SourceInfo};
use crate::decision::answer::Answer;
use crate::decision::decided::{Decided, Evaluated};
use crate::decision::scope::{hide_beyond_source_scope, validate_scope};
use crate::decision::share::{Cost, FairShareExt};
use crate::grouping::memo::Grouping;
use crate::grouping::rekey::Rekeyed;
use crate::rows::inventory::{InventoryShell, ProjectSnapshot};

pub mod adapters;
pub mod api;
pub mod config;
pub mod grpc;
mod handlers;
mod in_process;
mod outage;
mod validation;
mod watch;

pub use config::DiscoverySettings;
pub use in_process::InProcessDiscovery;
pub use watch::WatchStream;

/// The parts discovery is built from.
pub struct DiscoveryParts {
    pub index: Arc<dyn IndexPort>,
    pub access: Arc<dyn AccessPort>,
    pub catalog: Arc<dyn InstalledCatalog>,
    pub inventory: Arc<InventoryShell>,
    pub settings: DiscoverySettings,
}

/// The discovery service.
pub struct Discovery {
    parts: DiscoveryParts,
    /// The answers prepared per snapshot, kept beside the inventory's snapshots.
    grouping: Arc<Grouping>,
    rekeyed: Rekeyed,
    /// The fair share of expensive calls (`decision/share.rs`).
    share: FairShare,
    /// The share of single-file reads (`Cost::Read`).
    read_share: FairShare,
    validations: validation::Validations,
    /// The sources last read per project, for when sync cannot be reached.
    last_sources: outage::LastSources,
    /// Open `WatchPackages` streams per caller.
    watchers: Arc<watch::OpenStreams>,
}

impl Discovery {
    /// Discovery over its parts.
    pub fn new(parts: DiscoveryParts) -> Self {
        let grouping = Arc::new(Grouping::new(Arc::clone(&parts.catalog)));
        parts.inventory.keep_beside(grouping.clone());
        parts.inventory.catch_up_on_finish(Arc::clone(&parts.index));
        Self {
            share: FairShare::new(parts.settings.fair_share),
            read_share: FairShare::new(parts.settings.read_share.into()),
            parts,
            grouping,
            rekeyed: Default::default(),
            validations: Default::default(),
            last_sources: Default::default(),
            watchers: Default::default(),
        }
    }

    /// The inventory (for health and tests).
    pub fn inventory(&self) -> &Arc<InventoryShell> {
        &self.parts.inventory
    }

    /// Where this call reads decided files of `project` from, for the rows of
    /// `snapshot`.
    fn content<'a>(&'a self, project: &'a str, snapshot: &'a ProjectSnapshot) -> Content<'a> {
        Content {
            index: self.parts.index.as_ref(),
            catalog: self.parts.catalog.as_ref(),
            project,
            snapshot,
        }
    }

    /// The caller's answer, or `None` when the permit yields no caller of the project
    /// (no token, a bad one, a service credential, a token bound to another project) or
    /// the caller asks outside what its token is bound to: an empty answer, never an
    /// error that reveals more.
    async fn answer(
        &self,
        permit: &Permit,
        scope: Option<&pb::Scope>,
    ) -> Result<Option<Answer>, DiscoveryError> {
        Ok(self
            .decided(permit, scope)
            .await?
            .map(|decided| decided.answer))
    }

    /// [`Discovery::answer`], and whether the caller holds an administrator role (it
    /// may see the sync host's paths).
    async fn decided(
        &self,
        permit: &Permit,
        scope: Option<&pb::Scope>,
    ) -> Result<Option<Decided>, DiscoveryError> {
        let Some(evaluated) = self.evaluated(permit, scope).await? else {
            return Ok(None);
        };
        Ok(Some(evaluated.into_decided()?))
    }

    /// Policy's decisions for the caller over the prepared batch, made now; `None` as
    /// for [`Discovery::answer`].
    async fn evaluated(
        &self,
        permit: &Permit,
        scope: Option<&pb::Scope>,
    ) -> Result<Option<Evaluated>, DiscoveryError> {
        self.evaluated_in(permit, scope, Cost::Cheap).await
    }

    /// [`Discovery::evaluated`]; an expensive call is first admitted to the caller's
    /// and the project's fair share (`decision/share.rs`), and holds its place in the
    /// answer.
    async fn evaluated_in(
        &self,
        permit: &Permit,
        scope: Option<&pb::Scope>,
        cost: Cost,
    ) -> Result<Option<Evaluated>, DiscoveryError> {
        let scope = validate_scope(scope)?;
        let acting = permit.for_project(&scope.project).ok();
        let Some(caller) = acting.and_then(|acting| acting.caller()) else {
            tracing::info!(
                outcome = "not_a_caller_of_the_project",
                "discovery answered empty"
            );
            return Ok(None);
        };
        if let Some(outcome) = scope.mismatch(caller) {
            tracing::info!(outcome, "discovery answered empty");
            return Ok(None);
        }
        let admitted = match cost {
            Cost::Cheap => None,
            Cost::Expensive => Some(self.share.admit_caller(&scope.project, caller)?),
            Cost::Read => Some(self.read_share.admit_caller(&scope.project, caller)?),
        };
        let (sources, snapshot) = self.rows(&scope.project).await?;
        self.rekeyed
            .ensure(self.parts.access.as_ref(), &snapshot)
            .await;
        let prepared =
            self.grouping
                .prepare(&scope.project, &sources, &snapshot, &self.parts.inventory);
        // Access is decided now, for this caller, after the inventory read: a change
        // committed before this moment is honoured even if the request started earlier.
        let access = self.parts.access.as_ref();
        let conversation = scope.conversation.as_deref();
        let mut evaluation = match &prepared.kept {
            Some(kept) => access.evaluate_kept(caller, conversation, kept).await?,
            None => {
                access
                    .evaluate(caller, conversation, &prepared.request)
                    .await?
            }
        };
        // A package from a package source reaches only that source's scope (seed 000).
        hide_beyond_source_scope(
            &prepared.request,
            &mut evaluation,
            caller,
            &prepared.package_sources,
        );
        Ok(Some(Evaluated {
            prepared,
            evaluation,
            administrator: acting.is_some_and(|acting| acting.is_administrator()),
            snapshot,
            admitted,
            caller: caller.clone(),
            conversation: scope.conversation.clone(),
            sources,
        }))
    }
}

impl Discovery {
    /// The project's sources and rows. The sources are re-read on every request: a
    /// source's scope and privacy patterns decide access, and a changed one must never
    /// meet a prepared answer made before. When sync cannot be reached, a warm project
    /// whose rows and sources are known current answers from them (`outage.rs`); any
    /// other project is UNAVAILABLE, and so is every read of file bytes (they live on
    /// sync's hosts).
    async fn rows(
        &self,
        project: &str,
    ) -> Result<(Vec<SourceInfo>, Arc<ProjectSnapshot>), DiscoveryError> {
        let inventory = &self.parts.inventory;
        let seen = inventory.seen(project);
        let sources = match self.parts.index.sources(project).await {
            Ok(sources) => sources,
            Err(DiscoveryError::Unavailable(reason)) => {
                return self
                    .held(project)
                    .ok_or(DiscoveryError::Unavailable(reason));
            }
            Err(other) => return Err(other),
        };
        self.last_sources.remember(project, &sources, seen);
        let snapshot = inventory
            .snapshot(project, &sources, self.parts.index.as_ref())
            .await?;
        Ok((sources, snapshot))
    }

    /// A warm project's held rows and the sources last read for it, while nothing
    /// happened to it since.
    fn held(&self, project: &str) -> Option<(Vec<SourceInfo>, Arc<ProjectSnapshot>)> {
        let (snapshot, now) = self.parts.inventory.held(project)?;
        let sources = self.last_sources.recall(project, now)?;
        neuralis_metrics::inventory_lookup(neuralis_metrics::Lookup::Held);
        Some((sources, snapshot))
    }
}

/// Categories hydration injects, for documentation and tests.
pub const INJECTED: [Category; 3] = [Category::Rule, Category::Instruction, Category::Agent];
