//! `neuralis packages list|overview|activate|hydrate|tools`: what the discovery
//! service answers one caller in one project, agent and conversation.

use std::process::ExitCode;

use anyhow::Result;
use neuralis_discovery::grpc::DiscoveryGrpcClient;
use neuralis_discovery::{CallerToken, DiscoveryApi};
use neuralis_proto::discovery::v1 as pb;
use serde_json::{Value, json};

use super::client::{self, ClientArgs};

/// See packages as one caller does.
#[derive(Debug, clap::Args)]
pub struct PackagesArgs {
    #[command(subcommand)]
    action: Action,
    #[command(flatten)]
    client: ClientArgs,
}

/// Where the answer is asked for.
#[derive(Debug, clap::Args)]
struct ScopeArgs {
    /// The project whose packages are listed.
    #[arg(long)]
    project: String,
    /// The agent the answer is for; agent-scope overrides follow the token's agent.
    #[arg(long)]
    agent: Option<String>,
    /// The conversation, for conversation-scope overrides.
    #[arg(long)]
    conversation: Option<String>,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// The packages and files this caller may use, with each file's state.
    List(ScopeArgs),
    /// The agent's `<packages>` overview block.
    Overview(ScopeArgs),
    /// Activate one skill by id (bare or namespaced) and print it.
    Activate {
        /// The skill id.
        skill_id: String,
        #[command(flatten)]
        scope: ScopeArgs,
    },
    /// The rules, instructions and agents injected under a byte budget.
    Hydrate {
        /// The byte budget (0: the server's default).
        #[arg(long, default_value_t = 0)]
        budget: u64,
        #[command(flatten)]
        scope: ScopeArgs,
    },
    /// The tool catalog, with contested names and their claimants.
    Tools(ScopeArgs),
}

pub fn run(args: PackagesArgs) -> ExitCode {
    let name = match &args.action {
        Action::List(_) => "packages list",
        Action::Overview(_) => "packages overview",
        Action::Activate { .. } => "packages activate",
        Action::Hydrate { .. } => "packages hydrate",
        Action::Tools(_) => "packages tools",
    };
    client::run(name, packages(args))
}

async fn packages(args: PackagesArgs) -> Result<()> {
    let out = &args.client;
    let given = match &args.action {
        Action::List(scope) | Action::Overview(scope) | Action::Tools(scope) => scope,
        Action::Activate { scope, .. } | Action::Hydrate { scope, .. } => scope,
    };
    if out.token.is_none() {
        eprintln!(
            "neuralis: no token (--token or NEURALIS_TOKEN): discovery answers an unverified caller with nothing"
        );
    }
    let scope = Some(pb::Scope {
        project_id: given.project.clone(),
        agent_id: given.agent.clone().unwrap_or_default(),
        conversation_id: given.conversation.clone().unwrap_or_default(),
    });
    let api = DiscoveryGrpcClient::new(out.connect().await?);
    let caller = CallerToken::new(out.token.clone());
    match args.action {
        Action::List(_) => {
            let request = pb::ListPackagesRequest { scope };
            let listed = api.list_packages(caller, request).await;
            let packages = listed.map_err(|e| out.explain(e))?.packages;
            let value = json!({"packages": packages.iter().map(package_json).collect::<Vec<_>>()});
            out.emit(&value, || tree(&packages))
        }
        Action::Overview(_) => {
            let request = pb::RenderOverviewRequest { scope };
            let rendered = api.render_overview(caller, request).await;
            let text = rendered.map_err(|e| out.explain(e))?.text;
            out.emit(&json!({"text": text}), || text.clone())
        }
        Action::Activate { skill_id, .. } => {
            let request = pb::ActivateSkillRequest { scope, skill_id };
            let skill = api.activate_skill(caller, request).await;
            let skill = skill.map_err(|e| out.explain(e))?;
            let value = json!({
                "id": skill.id, "title": skill.title, "package_name": skill.package_name,
                "directory_uri": skill.directory_uri, "files": skill.files, "body": skill.body,
            });
            out.emit(&value, || {
                format!(
                    "{} ({})\npackage:   {}\ndirectory: {}\nfiles:     {}\n\n{}",
                    skill.title,
                    skill.id,
                    skill.package_name,
                    skill.directory_uri,
                    skill.files.join(", "),
                    skill.body
                )
            })
        }
        Action::Hydrate { budget, .. } => {
            let request = pb::HydrateRequest {
                scope,
                budget_bytes: budget,
            };
            let hydrated = api.hydrate(caller, request).await;
            let hydrated = hydrated.map_err(|e| out.explain(e))?;
            out.emit(&hydrate_json(&hydrated), || hydrate_text(&hydrated))
        }
        Action::Tools(_) => {
            let request = pb::ListToolsRequest { scope };
            let tools = api.list_tools(caller, request).await;
            let tools = tools.map_err(|e| out.explain(e))?;
            out.emit(&tools_json(&tools), || tools_text(&tools))
        }
    }
}

fn category(value: i32) -> String {
    let name = pb::Category::try_from(value).unwrap_or_default();
    client::word(name.as_str_name(), "CATEGORY_")
}

fn state(file: &pb::PackageFile) -> String {
    client::word(file.state().as_str_name(), "FILE_STATE_")
}

/// The key policy stores package states and overrides under (`policy package` and
/// `policy override` take it): the package id, or `<sourceSlug>/<packageKey>`.
fn policy_key(package: &pb::Package) -> String {
    match package.origin() {
        pb::PackageOrigin::Installed => package.package_id.clone(),
        _ => format!("{}/{}", package.source_slug, package.key),
    }
}

fn package_json(package: &pb::Package) -> Value {
    let files: Vec<Value> = package
        .files
        .iter()
        .map(|file| {
            json!({
                "path": file.path, "category": category(file.category), "id": file.id,
                "title": file.title, "description": file.description, "state": state(file),
                "identity": file.identity, "default_enabled": file.default_enabled,
                "files": file.files, "activation_id": file.activation_id,
            })
        })
        .collect();
    json!({
        "name": package.name,
        "key": package.key,
        "policy_key": policy_key(package),
        "origin": client::word(package.origin().as_str_name(), "PACKAGE_ORIGIN_"),
        "source_slug": package.source_slug,
        "root": package.root,
        "rule": client::word(package.rule().as_str_name(), "ROOT_RULE_"),
        "package_id": package.package_id,
        "enabled": package.enabled,
        "files": files,
    })
}

fn tree(packages: &[pb::Package]) -> String {
    if packages.is_empty() {
        return "no packages".into();
    }
    let mut lines = Vec::new();
    for package in packages {
        let origin = match package.origin() {
            pb::PackageOrigin::Installed => "installed".to_owned(),
            _ => format!("source {}, root {:?}", package.source_slug, package.root),
        };
        let off = if package.enabled { "" } else { ", disabled" };
        lines.push(format!(
            "{} [{}] ({origin}{off})",
            package.name,
            policy_key(package)
        ));
        for file in &package.files {
            let id = if file.activation_id.is_empty() {
                &file.id
            } else {
                &file.activation_id
            };
            lines.push(format!(
                "  {:<40} {:<12} {:<20} {}",
                file.path,
                category(file.category),
                id,
                state(file)
            ));
        }
    }
    lines.join("\n")
}

fn hydrate_json(hydrated: &pb::HydrateResponse) -> Value {
    let files: Vec<Value> = hydrated
        .files
        .iter()
        .map(|file| {
            json!({
                "package_name": file.package_name, "path": file.path,
                "category": category(file.category), "id": file.id, "title": file.title,
                "content": file.content,
            })
        })
        .collect();
    let omitted: Vec<Value> = hydrated
        .omitted
        .iter()
        .map(|file| json!({"package_name": file.package_name, "path": file.path, "size_bytes": file.size_bytes}))
        .collect();
    json!({"files": files, "omitted": omitted, "used_bytes": hydrated.used_bytes})
}

fn hydrate_text(hydrated: &pb::HydrateResponse) -> String {
    let mut lines = vec![format!(
        "injected {} file(s), {} bytes:",
        hydrated.files.len(),
        hydrated.used_bytes
    )];
    for file in &hydrated.files {
        lines.push(format!(
            "  {:<12} {:<40} {} ({} bytes, {})",
            category(file.category),
            file.path,
            file.id,
            file.content.len(),
            file.package_name
        ));
    }
    if !hydrated.omitted.is_empty() {
        lines.push(format!(
            "left out for the budget, {} file(s):",
            hydrated.omitted.len()
        ));
        for file in &hydrated.omitted {
            lines.push(format!(
                "  {:<53} ({} bytes, {})",
                file.path, file.size_bytes, file.package_name
            ));
        }
    }
    lines.join("\n")
}

fn tools_json(tools: &pb::ListToolsResponse) -> Value {
    let listed: Vec<Value> = tools
        .tools
        .iter()
        .map(|tool| {
            let schema = serde_json::from_str::<Value>(&tool.input_schema_json)
                .unwrap_or_else(|_| Value::String(tool.input_schema_json.clone()));
            json!({"name": tool.name, "package_id": tool.package_id,
                   "description": tool.description, "input_schema": schema})
        })
        .collect();
    let contested: Vec<Value> = tools
        .contested
        .iter()
        .map(|c| json!({"name": c.name, "owner": c.owner, "claimants": c.claimants}))
        .collect();
    json!({"tools": listed, "contested": contested})
}

fn tools_text(tools: &pb::ListToolsResponse) -> String {
    if tools.tools.is_empty() && tools.contested.is_empty() {
        return "no tools".into();
    }
    let mut lines: Vec<String> = tools
        .tools
        .iter()
        .map(|tool| {
            format!(
                "{:<32} {:<24} {}",
                tool.name, tool.package_id, tool.description
            )
        })
        .collect();
    if !tools.contested.is_empty() {
        lines.push("contested names:".into());
        for name in &tools.contested {
            lines.push(format!(
                "  {} -> {} (claimants: {})",
                name.name,
                name.owner,
                name.claimants.join(", ")
            ));
        }
    }
    lines.join("\n")
}
