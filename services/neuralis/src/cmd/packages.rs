//! `neuralis packages list|overview|activate|hydrate|tools|read|search`: what the
//! discovery service answers one caller in one project, agent and conversation.

use std::process::ExitCode;

use anyhow::Result;
use neuralis_discovery::grpc::DiscoveryGrpcClient;
use neuralis_discovery::{CallerToken, DiscoveryApi};
use neuralis_proto::discovery::v1 as pb;
use serde_json::json;

use super::client::{self, ClientArgs};
use super::policy::explain::{self, Described};

mod render;
mod watch;

use render::{
    hydrate_json, hydrate_text, package_json, search_json, search_text, tools_json, tools_text,
    tree,
};

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
    List {
        #[command(flatten)]
        scope: ScopeArgs,
        /// Administrators: explain every listed file for the caller `--role` describes
        /// (its state and the step that decided), hidden ones included.
        #[arg(long, requires = "role")]
        explain: bool,
        /// With `--explain`: the role of the caller to explain for.
        #[arg(long)]
        role: Option<String>,
        /// With `--explain`: a feature that caller's token carries (repeatable).
        #[arg(long = "feature", requires = "explain")]
        features: Vec<String>,
    },
    /// The agent's `<packages>` overview block.
    Overview {
        /// At most this many tokens (o200k_base; 0: no budget): always-on entries stay,
        /// others are shortened, then left out least useful first.
        #[arg(long, default_value_t = 0)]
        budget: u32,
        #[command(flatten)]
        scope: ScopeArgs,
    },
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
    /// The packages now, then each time they change (until interrupted or the server
    /// ends the stream).
    Watch {
        /// The revision of an answer already held: wait for a change from it.
        #[arg(long, default_value = "")]
        resume: String,
        #[command(flatten)]
        scope: ScopeArgs,
    },
    /// Read one file the caller may read now (a listed doc or active file, or an entry
    /// of an active skill's bundle), as `list` names it.
    Read {
        /// The path as listed (a bundle entry: the skill's directory joined with it).
        path: String,
        /// The source slug of a source package's file.
        #[arg(long, conflicts_with = "package", required_unless_present = "package")]
        source: Option<String>,
        /// The package id of an installed package's file.
        #[arg(long)]
        package: Option<String>,
        #[command(flatten)]
        scope: ScopeArgs,
    },
    /// Search the files the caller may read now.
    Search {
        /// What to look for.
        query: String,
        /// At most this many hits (0: the server's default of 10; at most 100).
        #[arg(long, default_value_t = 0)]
        limit: u32,
        #[command(flatten)]
        scope: ScopeArgs,
    },
}

pub fn run(args: PackagesArgs) -> ExitCode {
    let name = match &args.action {
        Action::List { .. } => "packages list",
        Action::Overview { .. } => "packages overview",
        Action::Activate { .. } => "packages activate",
        Action::Hydrate { .. } => "packages hydrate",
        Action::Tools(_) => "packages tools",
        Action::Watch { .. } => "packages watch",
        Action::Read { .. } => "packages read",
        Action::Search { .. } => "packages search",
    };
    client::run(name, packages(args))
}

async fn packages(args: PackagesArgs) -> Result<()> {
    let out = &args.client;
    let given = match &args.action {
        Action::List { scope, .. } | Action::Tools(scope) | Action::Overview { scope, .. } => scope,
        Action::Activate { scope, .. } | Action::Hydrate { scope, .. } => scope,
        Action::Read { scope, .. } | Action::Search { scope, .. } => scope,
        Action::Watch { scope, .. } => scope,
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
        Action::List {
            explain,
            role,
            features,
            scope: given,
        } => {
            let request = pb::ListPackagesRequest {
                scope,
                ..Default::default()
            };
            let listed = api.list_packages(caller, request).await;
            let packages = listed.map_err(|e| out.explain(e))?.packages;
            if explain {
                // Nothing is printed before every file is explained: a caller the
                // policy service refuses sees its refusal and no name.
                let described = Described {
                    project: given.project,
                    role: role.unwrap_or_default(),
                    agent: given.agent,
                    conversation: given.conversation,
                    features,
                };
                let explained = explain::listed(out, &described, &packages).await?;
                return out.emit(&explain::listed_json(&explained), || {
                    explain::listed_table(&explained)
                });
            }
            let value = json!({"packages": packages.iter().map(package_json).collect::<Vec<_>>()});
            out.emit(&value, || tree(&packages))
        }
        Action::Overview { budget, .. } => {
            let request = pb::RenderOverviewRequest {
                scope,
                budget_tokens: budget,
            };
            let rendered = api.render_overview(caller, request).await;
            let rendered = rendered.map_err(|e| out.explain(e))?;
            let value = json!({
                "text": rendered.text,
                "tokens_used": rendered.tokens_used,
                "left_out": rendered.left_out,
            });
            out.emit(&value, || rendered.text.clone())
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
        Action::Watch { resume, .. } => {
            let request = pb::WatchPackagesRequest {
                scope,
                resume_revision: resume,
            };
            watch::follow(&api, caller, request, out).await
        }
        Action::Tools(_) => {
            let request = pb::ListToolsRequest {
                scope,
                ..Default::default()
            };
            let tools = api.list_tools(caller, request).await;
            let tools = tools.map_err(|e| out.explain(e))?;
            out.emit(&tools_json(&tools), || tools_text(&tools))
        }
        Action::Read {
            path,
            source,
            package,
            ..
        } => {
            let request = pb::ReadFileRequest {
                scope,
                source_slug: source.unwrap_or_default(),
                package_id: package.unwrap_or_default(),
                path,
            };
            let file = api.read_file(caller, request).await;
            let file = file.map_err(|e| out.explain(e))?;
            let text = String::from_utf8_lossy(&file.content).into_owned();
            if out.json {
                out.emit(&json!({"path": file.path, "content": text}), String::new)
            } else {
                // The bytes as they are: `neuralis packages read … > file` copies it.
                super::stdout::bytes(&file.content);
                Ok(())
            }
        }
        Action::Search { query, limit, .. } => {
            let request = pb::SearchRequest {
                scope,
                query,
                limit,
            };
            let found = api.search(caller, request).await;
            let found = found.map_err(|e| out.explain(e))?;
            out.emit(&search_json(&found), || search_text(&found))
        }
    }
}
