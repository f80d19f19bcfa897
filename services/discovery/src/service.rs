//! The real discovery implementation (the in-process client of the all-in-one
//! process).

use std::sync::Arc;

use neuralis_access::Evaluation;
use neuralis_assembly::{FileState, HydrationBudget, hydration_order, render_overview};
use neuralis_layout::Category;
use neuralis_proto::discovery::v1 as pb;

use crate::answer::{Answer, ContentAt, assemble};
use crate::api::DiscoveryError;
use crate::config::DiscoverySettings;
use crate::inventory::{InventoryShell, ProjectSnapshot};
use crate::ports::{AccessPort, DecidedRow, IndexPort, InstalledCatalog};
use crate::prepared::Prepared;
use crate::scope::{project_of, validate_scope};
use crate::share::{Cost, FairShareExt};
use crate::{convert, flags, listing};
use neuralis_authz::Permit;
use neuralis_host::share::{Admitted, FairShare};

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
    rekeyed: crate::rekey::Rekeyed,
    /// The fair share of expensive calls (`share.rs`).
    share: FairShare,
    validations: crate::validation::Validations,
}

impl Discovery {
    /// Discovery over its parts.
    pub fn new(parts: DiscoveryParts) -> Self {
        parts
            .inventory
            .catch_up_on_finish(Arc::clone(&parts.index), Arc::clone(&parts.catalog));
        Self {
            share: FairShare::new(parts.settings.fair_share),
            parts,
            rekeyed: Default::default(),
            validations: Default::default(),
        }
    }

    /// Sync's index feed.
    pub(crate) fn index(&self) -> &dyn IndexPort {
        self.parts.index.as_ref()
    }

    /// The inventory (for health and tests).
    pub fn inventory(&self) -> &Arc<InventoryShell> {
        &self.parts.inventory
    }

    /// The caller's answer, or `None` when the permit yields no caller of the project
    /// (no token, a bad one, a service credential, a token bound to another project) or
    /// the caller asks outside what its token is bound to: an empty answer, never an
    /// error that reveals more.
    pub(crate) async fn answer(
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
    pub(crate) async fn decided(
        &self,
        permit: &Permit,
        scope: Option<&pb::Scope>,
    ) -> Result<Option<Decided>, DiscoveryError> {
        let Some(evaluated) = self.evaluated(permit, scope).await? else {
            return Ok(None);
        };
        Ok(Some(Decided {
            answer: assemble(&evaluated.prepared, &evaluated.evaluation)?,
            administrator: evaluated.administrator,
            snapshot: evaluated.snapshot,
        }))
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
    /// and the project's fair share (`share.rs`), and holds its place in the answer.
    pub(crate) async fn evaluated_in(
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
        };
        // Re-read on every request: a source's scope and privacy patterns decide
        // access, and a changed one must never meet a prepared answer made before.
        let sources = self.parts.index.sources(&scope.project).await?;
        let snapshot = self
            .parts
            .inventory
            .snapshot(&scope.project, &sources, self.parts.index.as_ref())
            .await?;
        self.rekeyed
            .ensure(self.parts.access.as_ref(), &snapshot)
            .await;
        let prepared = crate::prepared::prepare(
            &scope.project,
            self.parts.catalog.packages(),
            &sources,
            &snapshot,
            &self.parts.inventory,
        );
        // Access is decided now, for this caller, after the inventory read: a change
        // committed before this moment is honoured even if the request started earlier.
        let evaluation = self
            .parts
            .access
            .evaluate(caller, scope.conversation.as_deref(), &prepared.request)
            .await?;
        Ok(Some(Evaluated {
            prepared,
            evaluation,
            administrator: acting.is_some_and(|acting| acting.is_administrator()),
            snapshot,
            admitted,
        }))
    }

    /// The bytes of a file the caller's answer lists, as they were decided: a source
    /// file is read only while it holds the bytes of the row in `snapshot` (the
    /// inventory the answer was grouped from), at the row's real path when it has one,
    /// no link followed. A file with no row there is NOT_FOUND without a read.
    pub(crate) async fn read(
        &self,
        project: &str,
        snapshot: &ProjectSnapshot,
        at: &ContentAt,
    ) -> Result<Vec<u8>, DiscoveryError> {
        match at {
            ContentAt::Source {
                source_id, path, ..
            } => {
                let row = snapshot
                    .sources
                    .get(source_id)
                    .and_then(|source| source.rows.get(path))
                    .ok_or(DiscoveryError::NotFound)?;
                let decided = DecidedRow {
                    fingerprint: row.fingerprint,
                    real_path: row.real_path.as_deref(),
                };
                if decided.fingerprint == 0 {
                    return Err(DiscoveryError::NotFound);
                }
                self.parts
                    .index
                    .read(project, source_id, path, &decided)
                    .await
            }
            ContentAt::Installed { package_id, path } => self.parts.catalog.read(package_id, path),
        }
    }
}

/// One caller's answer, decided now.
pub(crate) struct Decided {
    pub answer: Answer,
    /// Holds an administrator role of the project.
    pub administrator: bool,
    /// The inventory the answer was grouped from (its rows carry the content flags).
    pub snapshot: Arc<ProjectSnapshot>,
}

/// One caller's decisions over the prepared batch, made now.
pub(crate) struct Evaluated {
    prepared: Arc<Prepared>,
    evaluation: Evaluation,
    administrator: bool,
    snapshot: Arc<ProjectSnapshot>,
    /// An expensive call's place in the fair share, given back when dropped.
    admitted: Option<Admitted>,
}

impl Evaluated {
    /// The caller's answer, and the call's place in the fair share (held until the
    /// caller drops it: the expensive work is done under it).
    pub(crate) fn into_answer(self) -> Result<(Answer, Option<Admitted>), DiscoveryError> {
        Ok((assemble(&self.prepared, &self.evaluation)?, self.admitted))
    }
}

// === the handlers: each holds the permit of the `discovery` table ===

impl Discovery {
    /// The packages this caller may use.
    pub async fn list_packages(
        &self,
        permit: &Permit,
        request: pb::ListPackagesRequest,
    ) -> Result<pb::ListPackagesResponse, DiscoveryError> {
        neuralis_proto::bounds::page_token("page_token", &request.page_token)?;
        let Some(evaluated) = self.evaluated(permit, request.scope.as_ref()).await? else {
            return Ok(pb::ListPackagesResponse::default());
        };
        let Evaluated {
            prepared,
            evaluation,
            snapshot,
            ..
        } = evaluated;
        let packages = match prepared.listing.list(&prepared.order, &evaluation)? {
            Some(packages) => packages,
            // A hidden skill: the activation ids are assigned afresh, with the views.
            None => listing::of_answer(assemble(&prepared, &evaluation)?, &snapshot),
        };
        // One page of what this caller may see (page 0 is everything).
        let (packages, next_page_token) = neuralis_proto::page::page(
            packages,
            request.page_size,
            &request.page_token,
            |package| package.policy_key.as_str(),
        )
        .map_err(|e| DiscoveryError::invalid(e.field, e.message))?;
        Ok(pb::ListPackagesResponse {
            packages,
            next_page_token,
        })
    }

    /// The `<packages>` overview block.
    pub async fn render_overview(
        &self,
        permit: &Permit,
        request: pb::RenderOverviewRequest,
    ) -> Result<pb::RenderOverviewResponse, DiscoveryError> {
        let answer = self
            .answer(permit, request.scope.as_ref())
            .await?
            .unwrap_or_default();
        Ok(pb::RenderOverviewResponse {
            text: render_overview(&answer.packages),
        })
    }

    /// Activates one skill.
    pub async fn activate_skill(
        &self,
        permit: &Permit,
        request: pb::ActivateSkillRequest,
    ) -> Result<pb::ActivateSkillResponse, DiscoveryError> {
        if request.skill_id.trim().is_empty() {
            return Err(DiscoveryError::invalid("skill_id", "is required"));
        }
        neuralis_proto::bounds::path("skill_id", &request.skill_id)?;
        let Decided {
            answer,
            administrator,
            snapshot,
        } = self
            .decided(permit, request.scope.as_ref())
            .await?
            .ok_or(DiscoveryError::NotFound)?;
        let (pi, fi) = answer
            .skills()
            .resolve(&request.skill_id)
            .ok_or(DiscoveryError::NotFound)?;
        let package = &answer.packages[pi];
        let skill = &package.files[fi];
        if skill.state != FileState::Active {
            return Err(DiscoveryError::NotFound);
        }
        let at = &answer.content[pi][fi];
        // A file that vanished since it was indexed fails closed, like an unknown id.
        let body = self.read(project_of(&request.scope), &snapshot, at).await?;
        let (content_flags, flagged_files) = flags::of_file(&snapshot, skill, at);
        Ok(pb::ActivateSkillResponse {
            id: request.skill_id,
            title: skill.title.clone(),
            body: String::from_utf8_lossy(&body).into_owned(),
            files: skill.bundle.clone(),
            directory_uri: at.directory_uri(administrator),
            package_name: package.name.clone(),
            allowed_tools: skill.allowed_tools.clone(),
            content_flags,
            flagged_files,
        })
    }

    /// Hydrates the prompt-injected files under a budget.
    pub async fn hydrate(
        &self,
        permit: &Permit,
        request: pb::HydrateRequest,
    ) -> Result<pb::HydrateResponse, DiscoveryError> {
        let scope = request.scope.as_ref();
        let Some(evaluated) = self.evaluated_in(permit, scope, Cost::Expensive).await? else {
            return Ok(pb::HydrateResponse::default());
        };
        // The place is held while the files are read; the snapshot names the decided
        // rows' fingerprints.
        let snapshot = Arc::clone(&evaluated.snapshot);
        let (answer, _admitted) = evaluated.into_answer()?;
        let budget = match request.budget_bytes {
            0 => self.parts.settings.default_hydration_budget_bytes,
            n => n,
        };
        let mut budget = HydrationBudget::new(budget);
        let mut response = pb::HydrateResponse::default();
        for (pi, fi) in hydration_order(&answer.packages) {
            let (package, file) = (&answer.packages[pi], &answer.packages[pi].files[fi]);
            if !budget.may_fit(file.size) {
                response
                    .omitted
                    .push(convert::omitted(package, fi, file.size));
                continue;
            }
            let content = match self
                .read(
                    project_of(&request.scope),
                    &snapshot,
                    &answer.content[pi][fi],
                )
                .await
            {
                Ok(content) => content,
                Err(DiscoveryError::NotFound) => continue, // vanished since indexing
                Err(other) => return Err(other),
            };
            // The budget counts the bytes returned now (as text): a file that grew past
            // it since the sync is omitted whole, never cut.
            let content = String::from_utf8_lossy(&content).into_owned();
            let actual = content.len() as u64;
            if budget.take(actual) {
                response
                    .files
                    .push(convert::hydrated(package, file, content));
            } else {
                response.omitted.push(convert::omitted(package, fi, actual));
            }
        }
        response.used_bytes = budget.used();
        Ok(response)
    }

    /// The tool catalog for this caller.
    pub async fn list_tools(
        &self,
        permit: &Permit,
        request: pb::ListToolsRequest,
    ) -> Result<pb::ListToolsResponse, DiscoveryError> {
        neuralis_proto::bounds::page_token("page_token", &request.page_token)?;
        let Some(answer) = self.answer(permit, request.scope.as_ref()).await? else {
            return Ok(pb::ListToolsResponse::default());
        };
        // By the packages' own decisions, not by the listing: a tools-only package
        // lists no file, and its tools still answer.
        let usable: std::collections::HashSet<&str> =
            answer.usable_installed.iter().map(String::as_str).collect();
        let (tools, contested) = self.parts.catalog.tools(&|id| usable.contains(id));
        let mut answer = convert::tools(tools, contested);
        // One page of the tools (one owner per name, so the name keys it); the contested
        // names are a summary, answered in full on every page.
        let (tools, next_page_token) = neuralis_proto::page::page(
            std::mem::take(&mut answer.tools),
            request.page_size,
            &request.page_token,
            |tool| tool.name.as_str(),
        )
        .map_err(|e| DiscoveryError::invalid(e.field, e.message))?;
        answer.tools = tools;
        answer.next_page_token = next_page_token;
        Ok(answer)
    }

    /// Validates one installed package's files (any verified caller; no project).
    pub async fn validate_package(
        &self,
        permit: &Permit,
        request: pb::ValidatePackageRequest,
    ) -> Result<pb::ValidatePackageResponse, DiscoveryError> {
        permit.unbound()?;
        let (files, trust) = crate::validation::checked(request)?;
        let validation = self
            .validations
            .run(Arc::clone(&self.parts.catalog), files, trust)
            .await?;
        Ok(convert::validation(validation))
    }
}

/// Categories hydration injects, for documentation and tests.
pub const INJECTED: [Category; 3] = [Category::Rule, Category::Instruction, Category::Agent];
