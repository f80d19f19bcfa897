//! The handlers: each holds the permit of the `discovery` table, checks its request,
//! has the caller's answer decided, and renders it (`answers`).

use std::sync::Arc;

use neuralis_authz::Permit;
use neuralis_index::query::SearchQuery;
use neuralis_proto::discovery::v1 as pb;

use super::Discovery;
use crate::answers::listing::Form;
use crate::answers::{activation, hydration, listing, reading, tools};
use crate::base::convert;
use crate::base::error::DiscoveryError;
use crate::decision::answer::Answer;
use crate::decision::decided::{Decided, Evaluated};
use crate::decision::scope::{project_of, validate_scope};
use crate::decision::share::Cost;

impl Discovery {
    /// The packages this caller may use.
    pub async fn list_packages(
        &self,
        permit: &Permit,
        request: pb::ListPackagesRequest,
    ) -> Result<pb::ListPackagesResponse, DiscoveryError> {
        self.listed(permit, request, Form::Messages).await
    }

    /// [`Discovery::list_packages`] for the wire: the packages written as bytes from
    /// the prepared answer's (`ListPackagesResponse::encoded_packages`), not as
    /// messages. The same answer on the wire.
    pub async fn list_packages_encoded(
        &self,
        permit: &Permit,
        request: pb::ListPackagesRequest,
    ) -> Result<pb::ListPackagesResponse, DiscoveryError> {
        self.listed(permit, request, Form::Encoded).await
    }

    async fn listed(
        &self,
        permit: &Permit,
        request: pb::ListPackagesRequest,
        form: Form,
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
        listing::list_packages(&prepared, &evaluation, &snapshot, &request, form)
    }

    /// The `<packages>` overview block.
    pub async fn render_overview(
        &self,
        permit: &Permit,
        request: pb::RenderOverviewRequest,
    ) -> Result<pb::RenderOverviewResponse, DiscoveryError> {
        let budget = request.budget_tokens;
        // Fitting a budget counts tokens in proportion to the caller's answer: an
        // expensive call, in the fair share, its place held until the text is counted.
        let cost = if budget == 0 {
            Cost::Cheap
        } else {
            Cost::Expensive
        };
        let (answer, admitted) = match self
            .evaluated_in(permit, request.scope.as_ref(), cost)
            .await?
        {
            Some(evaluated) => {
                let (decided, admitted) = evaluated.into_decided_admitted()?;
                (decided.answer, admitted)
            }
            None => (Answer::default(), None),
        };
        // The agent the caller's token acts as (an answer for another agent is empty).
        let project = request.scope.as_ref().map_or("", |scope| &scope.project_id);
        let acting = permit.for_project(project).ok();
        let agent = acting
            .and_then(|acting| acting.caller())
            .and_then(|caller| caller.agent.as_deref());
        let data_areas = self.data_areas(&answer.usable_installed, agent);
        if budget == 0 {
            return tools::overview(&answer, &data_areas, 0);
        }
        // Off the reactor; the fair-share place is given back when the count is done.
        tokio::task::spawn_blocking(move || {
            let fitted = tools::overview(&answer, &data_areas, budget);
            drop(admitted);
            fitted
        })
        .await
        .map_err(|e| DiscoveryError::Internal(format!("overview task: {e}")))?
    }

    /// The `<data_areas>` block (seed 002, "dataLayout"): one row per installed package
    /// the caller may use, never one it cannot see.
    fn data_areas(&self, usable: &[String], agent: Option<&str>) -> String {
        let usable: std::collections::HashSet<&str> = usable.iter().map(String::as_str).collect();
        let areas: Vec<neuralis_assembly::DataArea> = self
            .parts
            .catalog
            .packages()
            .iter()
            .filter(|package| usable.contains(package.package_id.as_str()))
            .map(|package| package.data_area.clone())
            .collect();
        neuralis_assembly::render_data_areas(&areas, agent)
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
        // The place in the read share is held until the skill's files are read.
        let (
            Decided {
                answer,
                administrator,
                snapshot,
                ..
            },
            _admitted,
        ) = self
            .evaluated_in(permit, request.scope.as_ref(), Cost::Read)
            .await?
            .ok_or(DiscoveryError::NotFound)?
            .into_decided_admitted()?;
        let project = project_of(&request.scope).to_owned();
        let content = self.content(&project, &snapshot);
        activation::activate(request, &answer, administrator, &content).await
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
        let (decided, _admitted) = evaluated.into_decided_admitted()?;
        let budget = match request.budget_bytes {
            0 => self.parts.settings.default_hydration_budget_bytes,
            n => n,
        };
        let content = self.content(project_of(&request.scope), &decided.snapshot);
        let access = self.parts.access.as_ref();
        hydration::hydrate(&decided.answer, budget, &content, (&decided.afresh, access)).await
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
        tools::tools(&answer, self.parts.catalog.as_ref(), &request)
    }

    /// Validates one installed package's files (any verified caller; no project).
    pub async fn validate_package(
        &self,
        permit: &Permit,
        request: pb::ValidatePackageRequest,
    ) -> Result<pb::ValidatePackageResponse, DiscoveryError> {
        permit.unbound()?;
        let (files, trust) = super::validation::checked(request)?;
        let validation = self
            .validations
            .run(Arc::clone(&self.parts.catalog), files, trust)
            .await?;
        Ok(convert::validation(validation))
    }

    /// One file the caller may read now. Unknown, denied, unlisted and unreadable
    /// files answer NOT_FOUND alike.
    pub async fn read_file(
        &self,
        permit: &Permit,
        request: pb::ReadFileRequest,
    ) -> Result<pb::ReadFileResponse, DiscoveryError> {
        validate_scope(request.scope.as_ref())?;
        neuralis_proto::bounds::id("source_slug", &request.source_slug)?;
        neuralis_proto::bounds::id("package_id", &request.package_id)?;
        neuralis_proto::bounds::path("path", &request.path)?;
        let holder = reading::holder(&request)?;
        if request.path.trim().is_empty() {
            return Err(DiscoveryError::invalid("path", "is required"));
        }
        // The place in the read share is held until the file is read.
        let (decided, _admitted) = self
            .evaluated_in(permit, request.scope.as_ref(), Cost::Read)
            .await?
            .ok_or(DiscoveryError::NotFound)?
            .into_decided_admitted()?;
        let content = self.content(project_of(&request.scope), &decided.snapshot);
        let beyond = reading::Beyond {
            afresh: &decided.afresh,
            access: self.parts.access.as_ref(),
            snapshot: &decided.snapshot,
        };
        reading::read_file(
            &decided.answer,
            holder,
            request.path.clone(),
            &content,
            &beyond,
        )
        .await
    }

    /// Search over the files the caller may read now: raw hits from sync's feed, kept
    /// only where `ReadFile` would serve the file.
    pub async fn search(
        &self,
        permit: &Permit,
        request: pb::SearchRequest,
    ) -> Result<pb::SearchResponse, DiscoveryError> {
        validate_scope(request.scope.as_ref())?;
        // The one rule of query bounds (`neuralis_index::query`), before any work.
        SearchQuery::parse(&request.query)
            .map_err(|refused| DiscoveryError::invalid(refused.field(), refused.to_string()))?;
        let limit = reading::limit(request.limit);
        let scope = request.scope.as_ref();
        let Some(evaluated) = self.evaluated_in(permit, scope, Cost::Expensive).await? else {
            return Ok(pb::SearchResponse::default());
        };
        // The place is held while sync's store searches and policy decides the hits.
        let (decided, _admitted) = evaluated.into_decided_admitted()?;
        let raw = self
            .parts
            .index
            .search(
                project_of(&request.scope),
                &request.query,
                reading::raw_limit(limit),
            )
            .await?;
        let beyond = reading::Beyond {
            afresh: &decided.afresh,
            access: self.parts.access.as_ref(),
            snapshot: &decided.snapshot,
        };
        reading::search(&decided.answer, &beyond, raw, limit).await
    }
}
