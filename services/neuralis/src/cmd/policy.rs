//! `neuralis policy get|put|enable|disable|grants|package|override|conversation|explain`: the
//! policy service's administration (and conversation-scope overrides for anyone).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use neuralis_policy::{BearerToken, PolicyApi, PolicyConfig, PolicyGrpcClient};
use neuralis_proto::policy::v1 as pb;
use serde_json::{Value, json};

use neuralis_sync::SourceApi;
use neuralis_sync::grpc::SourceGrpcClient;

use super::client::{self, ClientArgs};

pub(crate) mod explain;
mod file;
mod grants;

/// Manage access: URI policies, source switches, role grants, package states,
/// per-file overrides and conversations.
#[derive(Debug, clap::Args)]
pub struct PolicyArgs {
    #[command(subcommand)]
    action: Action,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Show a source's switch and URI policy.
    Get(SourceArgs),
    /// Replace a source's URI policy from a JSON or YAML file (floors are kept).
    Put {
        #[command(flatten)]
        source: SourceArgs,
        /// The policy: `{default: {read, write, exec}, paths: [{pattern, ...}]}`.
        #[arg(long)]
        file: PathBuf,
    },
    /// Switch a source on.
    Enable(SourceArgs),
    /// Switch a source off: it contributes nothing.
    Disable(SourceArgs),
    /// Replace every role grant of the administrator (or of one installed package), in
    /// one project or in every project.
    Grants {
        /// `ROLE=FEATURE[,FEATURE...]` (repeatable; none clears every grant).
        #[arg(long = "grant", value_name = "ROLE=FEATURES")]
        grants: Vec<String>,
        /// Grant as this installed package's `defaultRoleGrants` instead.
        #[arg(long, value_name = "PACKAGE_ID")]
        package: Option<String>,
        /// The project the grants apply in (an administrator of the project); without
        /// it, every project (a platform-wide administrator).
        #[arg(long)]
        project: Option<String>,
    },
    /// Enable or disable a package in a project.
    Package {
        /// The project.
        #[arg(long)]
        project: String,
        /// The package's `policy_key` as `packages list` shows it (`<source_id>/<key>`).
        #[arg(long)]
        package: String,
        /// On, off, or reset (forget the stored state; the project holds a bounded
        /// number of states).
        #[arg(long, value_enum)]
        state: Switch,
    },
    /// Set or clear one file's override for an agent or a conversation.
    Override {
        /// Where the override lives.
        #[arg(long, value_enum)]
        scope: OverrideScope,
        /// The agent id or the conversation id.
        #[arg(long)]
        owner: String,
        /// The package's `policy_key` as `packages list` shows it (`<source_id>/<key>`).
        #[arg(long)]
        package: String,
        /// The file path as `packages list` shows it.
        #[arg(long)]
        file: String,
        /// On, off, or clear (remove the override).
        #[arg(long, value_enum)]
        state: OverrideState,
        /// The project the conversation runs in (conversation scope: ids are per project).
        #[arg(long, required_if_eq("scope", "conversation"))]
        project: Option<String>,
    },
    /// Why one file is decided as it is for a described caller (administrators): the
    /// steps the evaluation took, the deciding one marked.
    Explain(explain::ExplainArgs),
    /// Register a conversation (with its parent for a delegate child run).
    Conversation {
        /// The conversation id.
        id: String,
        /// The project it runs in.
        #[arg(long)]
        project: String,
        /// The parent conversation (registered first, same project).
        #[arg(long)]
        parent: Option<String>,
    },
}

/// Which source: the policy service knows it by the id sync assigned at create
/// (`neuralis sources get` shows it), never reused. Give the id, or the project and slug
/// to look it up through the sources API of the same server.
#[derive(Debug, clap::Args)]
struct SourceArgs {
    /// The source id (`<project>/<slug>.<hex>`).
    #[arg(long, conflicts_with_all = ["project", "source"])]
    source_id: Option<String>,
    /// The project the source belongs to.
    #[arg(long, requires = "source")]
    project: Option<String>,
    /// The source slug.
    #[arg(long, visible_alias = "slug", requires = "project")]
    source: Option<String>,
}

impl SourceArgs {
    /// The source id: as given, or looked up by project and slug.
    async fn id(&self, out: &ClientArgs) -> Result<String> {
        if let Some(id) = &self.source_id {
            return Ok(id.clone());
        }
        let (Some(project), Some(slug)) = (&self.project, &self.source) else {
            anyhow::bail!("name the source: --source-id, or --project and --source");
        };
        let api = SourceGrpcClient::new(out.connect().await?);
        let request = neuralis_proto::sync::v1::GetSourceRequest {
            project: project.clone(),
            slug: slug.clone(),
        };
        let caller = neuralis_sync::BearerToken::new(out.token.clone());
        let found = api
            .get_source(&caller, request)
            .await
            .map_err(|e| out.explain(e))?;
        Ok(found.source.map(|source| source.id).unwrap_or_default())
    }
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Switch {
    On,
    Off,
    /// Forget the stored state: on, as a package never set is.
    Reset,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum OverrideScope {
    Agent,
    Conversation,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum OverrideState {
    On,
    Off,
    Clear,
}

pub fn run(args: PolicyArgs) -> ExitCode {
    let name = match &args.action {
        Action::Get(_) => "policy get",
        Action::Put { .. } => "policy put",
        Action::Enable(_) => "policy enable",
        Action::Disable(_) => "policy disable",
        Action::Grants { .. } => "policy grants",
        Action::Package { .. } => "policy package",
        Action::Override { .. } => "policy override",
        Action::Conversation { .. } => "policy conversation",
        Action::Explain(_) => "policy explain",
    };
    client::run(name, policy(args))
}

async fn policy(args: PolicyArgs) -> Result<()> {
    let out = &args.client;
    // Read local input before touching the network: a bad file fails fast.
    let file_policy = match &args.action {
        Action::Put { file, .. } => Some(file::read(file)?),
        _ => None,
    };
    let grants = match &args.action {
        Action::Grants { grants, .. } => grants::parse_grants(grants)?,
        _ => Vec::new(),
    };
    let enabled = matches!(&args.action, Action::Enable(_));
    let max_bytes = PolicyConfig::default().max_message_bytes;
    let api = PolicyGrpcClient::new(out.connect().await?, max_bytes);
    let token = || BearerToken::new(out.token.clone());
    match args.action {
        Action::Explain(explain) => explain::run(&explain, out, &api).await,
        Action::Get(source) => {
            let source_id = source.id(out).await?;
            let request = pb::GetSourcePolicyRequest {
                source_id: source_id.clone(),
            };
            let got = api.get_source_policy(token(), request).await;
            let got = got.map_err(|e| out.explain(e))?;
            let policy = got.policy.as_ref().map(file::to_json);
            let value = json!({"source_id": source_id, "enabled": got.enabled, "policy": policy});
            out.emit(&value, || {
                let switch = if got.enabled { "enabled" } else { "disabled" };
                let body = match &policy {
                    Some(policy) => pretty(policy),
                    None => "no URI policy: the source contributes nothing".into(),
                };
                format!("source {source_id} is {switch}\n{body}")
            })
        }
        Action::Put { source, .. } => {
            let source_id = source.id(out).await?;
            let request = pb::PutSourcePolicyRequest {
                source_id: source_id.clone(),
                policy: file_policy,
            };
            let stored = api.put_source_policy(token(), request).await;
            let stored = stored.map_err(|e| out.explain(e))?;
            let policy = stored.policy.as_ref().map(file::to_json);
            let value = json!({"source_id": source_id, "policy": policy});
            out.emit(&value, || {
                let body = policy.as_ref().map(pretty).unwrap_or_default();
                format!("stored the URI policy of {source_id}:\n{body}")
            })
        }
        Action::Enable(source) | Action::Disable(source) => {
            let source_id = source.id(out).await?;
            let request = pb::SetSourceEnabledRequest {
                source_id: source_id.clone(),
                enabled,
            };
            let set = api.set_source_enabled(token(), request).await;
            set.map_err(|e| out.explain(e))?;
            let value = json!({"source_id": source_id, "enabled": enabled});
            let word = if enabled { "enabled" } else { "disabled" };
            out.emit(&value, || format!("source {source_id} {word}"))
        }
        Action::Grants {
            package, project, ..
        } => {
            let (grantor, package_id) = match package {
                Some(id) => (pb::GrantorKind::Package, id),
                None => (pb::GrantorKind::Administrator, String::new()),
            };
            let request = pb::PutRoleGrantsRequest {
                grantor: grantor as i32,
                package_id: package_id.clone(),
                grants: grants.clone(),
                project_id: project.clone().unwrap_or_default(),
            };
            let put = api.put_role_grants(token(), request).await;
            put.map_err(|e| out.explain(e))?;
            let listed: Vec<Value> = grants
                .iter()
                .map(|g| json!({"role": g.role, "features": g.features}))
                .collect();
            let who = client::word(grantor.as_str_name(), "GRANTOR_KIND_");
            let value = json!({"grantor": who, "package_id": package_id, "project_id": project, "grants": listed});
            out.emit(&value, || {
                format!("stored {} role grant(s) of the {who}", grants.len())
            })
        }
        Action::Package {
            project,
            package,
            state,
        } => {
            let enabled = matches!(state, Switch::On);
            let request = pb::SetPackageEnabledRequest {
                project_id: project.clone(),
                package_key: package.clone(),
                enabled,
                reset: matches!(state, Switch::Reset),
            };
            let set = api.set_package_enabled(token(), request).await;
            set.map_err(|e| out.explain(e))?;
            let value = json!({"project": project, "package": package, "enabled": enabled});
            let word = if enabled { "enabled" } else { "disabled" };
            out.emit(&value, || format!("package {package} {word} in {project}"))
        }
        Action::Override {
            scope,
            owner,
            package,
            file,
            state,
            project,
        } => {
            let (scope_pb, scope_word) = match scope {
                OverrideScope::Agent => (pb::OverrideScope::Agent, "agent"),
                OverrideScope::Conversation => (pb::OverrideScope::Conversation, "conversation"),
            };
            let (state_pb, state_word) = match state {
                OverrideState::On => (pb::OverrideState::On, "on"),
                OverrideState::Off => (pb::OverrideState::Off, "off"),
                OverrideState::Clear => (pb::OverrideState::Clear, "clear"),
            };
            let request = pb::SetFileOverrideRequest {
                scope: scope_pb as i32,
                owner_id: owner.clone(),
                package_key: package.clone(),
                file_path: file.clone(),
                state: state_pb as i32,
                project_id: project.clone().unwrap_or_default(),
            };
            let set = api.set_file_override(token(), request).await;
            set.map_err(|e| out.explain(e))?;
            let value = json!({"scope": scope_word, "owner": owner, "package": package,
                               "file": file, "state": state_word});
            out.emit(&value, || {
                format!("override {state_word}: {package} {file} for {scope_word} {owner}")
            })
        }
        Action::Conversation {
            id,
            project,
            parent,
        } => {
            let request = pb::RegisterConversationRequest {
                conversation_id: id.clone(),
                project_id: project.clone(),
                parent_conversation_id: parent.clone().unwrap_or_default(),
            };
            let registered = api.register_conversation(token(), request).await;
            registered.map_err(|e| out.explain(e))?;
            let value = json!({"conversation": id, "project": project, "parent": parent});
            out.emit(&value, || match &parent {
                Some(parent) => {
                    format!("registered conversation {id} in {project} (parent {parent})")
                }
                None => format!("registered conversation {id} in {project}"),
            })
        }
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}
