//! `neuralis sources create|get|list|update|delete`: the sync service's sources.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use neuralis_proto::common::v1 as common;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::grpc::SourceGrpcClient;
use neuralis_sync::{BearerToken, SourceApi};
use serde_json::json;

use super::client::{self, ClientArgs};

mod render;

use render::{detail_text, list_text, source_json};

/// Manage the sources the sync service indexes.
#[derive(Debug, clap::Args)]
pub struct SourcesArgs {
    #[command(subcommand)]
    action: Action,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Register a source (never synced until `neuralis sync`).
    Create(SpecArgs),
    /// Show one source and its status.
    Get(NameArgs),
    /// List the sources of a project (of every project without `--project`: a
    /// platform-wide token only).
    List {
        /// The project.
        #[arg(long)]
        project: Option<String>,
    },
    /// Change a source: the flags given replace those settings, the rest are kept.
    Update(SpecArgs),
    /// Delete a source and everything indexed from it.
    Delete(NameArgs),
}

/// Which source.
#[derive(Debug, clap::Args)]
struct NameArgs {
    /// The project the source belongs to.
    #[arg(long)]
    project: String,
    /// The source slug (unique within its project).
    #[arg(long, visible_alias = "source")]
    slug: String,
}

/// A source's settings; on `update`, absent flags keep the stored value.
#[derive(Debug, clap::Args)]
struct SpecArgs {
    #[command(flatten)]
    name: NameArgs,
    /// Where the files come from.
    #[arg(long, value_enum)]
    kind: Option<Kind>,
    /// The directory to index (local and data sources; made absolute).
    #[arg(long)]
    root: Option<String>,
    /// The machine sandbox (machine sources).
    #[arg(long)]
    machine_uri: Option<String>,
    /// Who may see the source.
    #[arg(long, value_enum)]
    scope: Option<Scope>,
    /// The owning user or agent (user and agent scope; a project source has none).
    #[arg(long)]
    owner: Option<String>,
    /// When it syncs: `manual`, `watch` or `interval:<duration>` (e.g. `interval:5m`).
    #[arg(long)]
    trigger: Option<String>,
    /// An agent-private subtree with an `{agent}` placeholder (repeatable; on update,
    /// replaces every stored pattern).
    #[arg(
        long = "privacy",
        visible_alias = "privacy-pattern",
        value_name = "PATTERN"
    )]
    privacy: Vec<String>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Kind {
    Local,
    Data,
    Machine,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Scope {
    Project,
    User,
    Agent,
}

pub fn run(args: SourcesArgs) -> ExitCode {
    let name = match &args.action {
        Action::Create(_) => "sources create",
        Action::Get(_) => "sources get",
        Action::List { .. } => "sources list",
        Action::Update(_) => "sources update",
        Action::Delete(_) => "sources delete",
    };
    client::run(name, sources(args))
}

async fn sources(args: SourcesArgs) -> Result<()> {
    let out = &args.client;
    let api = SourceGrpcClient::new(out.connect().await?);
    let caller = BearerToken::new(out.token.clone());
    match args.action {
        Action::Create(spec) => {
            let request = pb::CreateSourceRequest {
                source: Some(apply(pb::SourceSpec::default(), spec)),
            };
            let created = api.create_source(&caller, request).await;
            let source = created.map_err(|e| out.explain(e))?.source;
            show_one(out, source.as_ref(), "created")
        }
        Action::Get(name) => {
            let request = pb::GetSourceRequest {
                project: name.project,
                slug: name.slug,
            };
            let found = api
                .get_source(&caller, request)
                .await
                .map_err(|e| out.explain(e))?;
            show_one(out, found.source.as_ref(), "")
        }
        Action::List { project } => {
            let request = pb::ListSourcesRequest {
                project: project.unwrap_or_default(),
                ..Default::default()
            };
            let listed = api
                .list_sources(&caller, request)
                .await
                .map_err(|e| out.explain(e))?;
            let value =
                json!({"sources": listed.sources.iter().map(source_json).collect::<Vec<_>>()});
            out.emit(&value, || list_text(&listed.sources))
        }
        Action::Update(spec) => {
            let request = pb::GetSourceRequest {
                project: spec.name.project.clone(),
                slug: spec.name.slug.clone(),
            };
            let found = api
                .get_source(&caller, request)
                .await
                .map_err(|e| out.explain(e))?;
            let stored = found.source.and_then(|s| s.spec).unwrap_or_default();
            let request = pb::UpdateSourceRequest {
                source: Some(apply(stored, spec)),
            };
            let updated = api.update_source(&caller, request).await;
            let source = updated.map_err(|e| out.explain(e))?.source;
            show_one(out, source.as_ref(), "updated")
        }
        Action::Delete(name) => {
            let label = format!("{}/{}", name.project, name.slug);
            let request = pb::DeleteSourceRequest {
                project: name.project,
                slug: name.slug,
            };
            let deleted = api.delete_source(&caller, request).await;
            let revision = deleted.map_err(|e| out.explain(e))?.revision;
            let value = json!({"deleted": label, "revision": revision});
            out.emit(&value, || {
                format!("deleted source {label} (revision {revision})")
            })
        }
    }
}

/// `spec` with every flag given applied over it.
fn apply(mut spec: pb::SourceSpec, args: SpecArgs) -> pb::SourceSpec {
    spec.project = args.name.project;
    spec.slug = args.name.slug;
    if let Some(kind) = args.kind {
        spec.kind = match kind {
            Kind::Local => pb::SourceKind::Local,
            Kind::Data => pb::SourceKind::Data,
            Kind::Machine => pb::SourceKind::Machine,
        } as i32;
    } else if spec.kind == pb::SourceKind::Unspecified as i32 {
        spec.kind = pb::SourceKind::Local as i32;
    }
    if let Some(root) = args.root {
        // A relative root means nothing to a server: resolve it where it was typed.
        spec.root =
            std::path::absolute(Path::new(&root)).map_or(root, |path| path.display().to_string());
    }
    if let Some(uri) = args.machine_uri {
        spec.machine_uri = uri;
    }
    if let Some(scope) = args.scope {
        spec.scope = match scope {
            Scope::Project => common::SourceScope::Project,
            Scope::User => common::SourceScope::User,
            Scope::Agent => common::SourceScope::Agent,
        } as i32;
    } else if spec.scope == common::SourceScope::Unspecified as i32 {
        spec.scope = common::SourceScope::Project as i32;
    }
    if let Some(owner) = args.owner {
        spec.owner = owner;
    } else if matches!(args.scope, Some(Scope::Project)) {
        spec.owner.clear();
    }
    if let Some(trigger) = args.trigger {
        spec.trigger = trigger;
    }
    if !args.privacy.is_empty() {
        spec.privacy_patterns = args.privacy;
    }
    spec
}

fn show_one(out: &ClientArgs, source: Option<&pb::Source>, verb: &str) -> Result<()> {
    let source = source.cloned().unwrap_or_default();
    out.emit(&json!({"source": source_json(&source)}), || {
        let mut text = String::new();
        if !verb.is_empty() {
            let spec = source.spec.clone().unwrap_or_default();
            text.push_str(&format!("{verb} source {}/{}\n", spec.project, spec.slug));
        }
        text.push_str(&detail_text(&source));
        text
    })
}
