//! `neuralis policy explain PATH --project P (--source S | --package ID) --role R
//! [--agent A] [--conversation C] [--feature F]...`: why one file is decided as it is for
//! a described caller (administrators of the project), as a short table of the steps
//! the evaluation took, the deciding one marked.
//!
//! The policy service decides a file by what discovery knows of it (its package key,
//! root, category, defaults). The command finds those in the administrator's own view
//! (`ListPackages`); a file the administrator cannot see either is described with
//! `--category` and `--package-key` (its privacy owner and features are then unknown).

use anyhow::{Context as _, Result, bail};
use neuralis_discovery::grpc::DiscoveryGrpcClient;
use neuralis_discovery::{CallerToken, DiscoveryApi};
use neuralis_policy::{BearerToken, PolicyApi, PolicyGrpcClient};
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as pb;
use neuralis_proto::sync::v1 as sync;
use neuralis_sync::SourceApi;
use neuralis_sync::grpc::SourceGrpcClient;
use serde_json::{Value, json};

use crate::cmd::client::{ClientArgs, word};

/// What `policy explain` is given.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// The file, as `packages list` shows it.
    path: String,
    /// The project asked in.
    #[arg(long)]
    project: String,
    /// The source slug of a source package's file.
    #[arg(long, conflicts_with = "package", required_unless_present = "package")]
    source: Option<String>,
    /// The package id of an installed package's file.
    #[arg(long)]
    package: Option<String>,
    /// The caller's role.
    #[arg(long)]
    role: String,
    /// The agent the caller acts as.
    #[arg(long)]
    agent: Option<String>,
    /// The conversation (its overrides, along its delegate chain).
    #[arg(long)]
    conversation: Option<String>,
    /// A feature the caller's token carries (repeatable).
    #[arg(long = "feature")]
    features: Vec<String>,
    /// The file's category, for a file not in the administrator's own view.
    #[arg(long)]
    category: Option<String>,
    /// The package's policy key, for a file not in the administrator's own view.
    #[arg(long)]
    package_key: Option<String>,
}

/// Asks the policy service and prints the steps.
pub async fn run(args: &ExplainArgs, out: &ClientArgs, api: &PolicyGrpcClient) -> Result<()> {
    let request = request(args, out).await?;
    let token = BearerToken::new(out.token.clone());
    let explained = api.explain_access(token, request).await;
    let explained = explained.map_err(|e| out.explain(e))?;
    let value = to_json(&explained);
    out.emit(&value, || table(&args.path, &explained))
}

async fn request(args: &ExplainArgs, out: &ClientArgs) -> Result<pb::ExplainAccessRequest> {
    let known = in_own_view(args, out).await?;
    let source = match &args.source {
        Some(slug) => Some(source_of(&args.project, slug, out).await?),
        None => None,
    };
    let found = match known {
        Some(found) => found,
        None => described(args)?,
    };
    let caller = Described {
        project: args.project.clone(),
        role: args.role.clone(),
        agent: args.agent.clone(),
        conversation: args.conversation.clone(),
        features: args.features.clone(),
    };
    Ok(caller.request(source, found))
}

/// The caller an explanation is for, as the command line describes it.
pub struct Described {
    pub project: String,
    pub role: String,
    pub agent: Option<String>,
    pub conversation: Option<String>,
    pub features: Vec<String>,
}

impl Described {
    /// The request for one file, with its source's header and privacy patterns (none
    /// for an installed package).
    fn request(
        &self,
        source: Option<(pb::SourceHeader, Vec<String>)>,
        (package, mut file): (pb::PackageCandidate, pb::FileCandidate),
    ) -> pb::ExplainAccessRequest {
        // The owner discovery would compute from the source's current privacy patterns.
        if let Some((_, patterns)) = &source {
            let owner = neuralis_layout::privacy_owner(&file.path, patterns);
            file.private_owner_agent = owner.unwrap_or_default();
        }
        let source = source.map(|(header, _)| header);
        let source_id = source.as_ref().map(|header| header.source_id.clone());
        let origin = if source.is_some() {
            common::PackageOrigin::Source
        } else {
            common::PackageOrigin::Installed
        };
        pb::ExplainAccessRequest {
            project_id: self.project.clone(),
            conversation_id: self.conversation.clone().unwrap_or_default(),
            caller: Some(pb::CallerScope {
                role: self.role.clone(),
                features: self.features.clone(),
                agent_id: self.agent.clone().unwrap_or_default(),
                ..Default::default()
            }),
            source,
            package: Some(pb::PackageCandidate {
                origin: origin as i32,
                source_id: source_id.unwrap_or_default(),
                ..package
            }),
            file: Some(file),
            caller_token: String::new(),
        }
    }
}

/// Every listed file explained for `caller`, in listing order: `(package, path, answer)`.
/// The first refusal ends it (a caller who may not explain sees nothing more).
pub async fn listed(
    out: &ClientArgs,
    caller: &Described,
    packages: &[discovery::Package],
) -> Result<Vec<(String, String, pb::ExplainAccessResponse)>> {
    let max_bytes = neuralis_policy::PolicyConfig::default().max_message_bytes;
    let api = PolicyGrpcClient::new(out.connect().await?, max_bytes);
    let mut explained = Vec::new();
    for package in packages {
        let source = match package.origin() {
            common::PackageOrigin::Source => {
                Some(source_of(&caller.project, &package.source_slug, out).await?)
            }
            _ => None,
        };
        for file in &package.files {
            let request = caller.request(source.clone(), candidate(package, file));
            let token = BearerToken::new(out.token.clone());
            let answer = api.explain_access(token, request).await;
            let answer = answer.map_err(|e| out.explain(e))?;
            explained.push((package.name.clone(), file.path.clone(), answer));
        }
    }
    Ok(explained)
}

/// One line per file: its state for the described caller and the step that decided.
pub fn listed_table(explained: &[(String, String, pb::ExplainAccessResponse)]) -> String {
    let mut text = String::new();
    for (package, path, answer) in explained {
        let deciding = answer.steps.iter().find(|step| step.deciding);
        let why = deciding.map_or(String::new(), |step| {
            let kind = word(step.kind().as_str_name(), "EXPLAIN_STEP_KIND_");
            format!("{kind}: {}", step.matched)
        });
        text.push_str(&format!(
            "{package} {path}  {}  ({why})\n",
            state(answer.code)
        ));
    }
    text
}

/// The JSON of [`listed`].
pub fn listed_json(explained: &[(String, String, pb::ExplainAccessResponse)]) -> Value {
    let files: Vec<Value> = explained
        .iter()
        .map(|(package, path, answer)| {
            json!({"package": package, "path": path, "explanation": to_json(answer)})
        })
        .collect();
    json!({"files": files})
}

/// The package and file as the administrator's own view lists them, if it does.
async fn in_own_view(
    args: &ExplainArgs,
    out: &ClientArgs,
) -> Result<Option<(pb::PackageCandidate, pb::FileCandidate)>> {
    let api = DiscoveryGrpcClient::new(out.connect().await?);
    let mut packages = Vec::new();
    let mut page_token = String::new();
    loop {
        let request = discovery::ListPackagesRequest {
            scope: Some(discovery::Scope {
                project_id: args.project.clone(),
                ..Default::default()
            }),
            page_token,
            ..Default::default()
        };
        let caller = CallerToken::new(out.token.clone());
        let listed = api.list_packages(caller, request).await;
        let listed = listed.map_err(|e| out.explain(e))?;
        packages.extend(listed.packages);
        if listed.next_page_token.is_empty() {
            break;
        }
        page_token = listed.next_page_token;
    }
    let ours = |package: &&discovery::Package| match (&args.source, &args.package) {
        (Some(slug), _) => package.source_slug == *slug,
        (None, Some(id)) => package.package_id == *id,
        (None, None) => false,
    };
    Ok(packages.iter().filter(ours).find_map(|package| {
        let file = package.files.iter().find(|file| file.path == args.path)?;
        Some(candidate(package, file))
    }))
}

/// The candidates of a listed file, as discovery knows them.
fn candidate(
    package: &discovery::Package,
    file: &discovery::PackageFile,
) -> (pb::PackageCandidate, pb::FileCandidate) {
    let candidate = pb::PackageCandidate {
        key: package.policy_key.clone(),
        root: package.root.clone(),
        ..Default::default()
    };
    let file = pb::FileCandidate {
        path: file.path.clone(),
        category: file.category,
        identity: file.identity,
        default_enabled: file.default_enabled,
        ..Default::default()
    };
    (candidate, file)
}

/// A file the administrator cannot see: described by the flags.
fn described(args: &ExplainArgs) -> Result<(pb::PackageCandidate, pb::FileCandidate)> {
    let (Some(category), Some(key)) = (&args.category, &args.package_key) else {
        bail!(
            "{} is not in your own view: describe it with --category and --package-key",
            args.path
        );
    };
    let name = format!("CATEGORY_{}", category.to_uppercase());
    let category = common::Category::from_str_name(&name)
        .with_context(|| format!("unknown category {category:?}"))?;
    let package = pb::PackageCandidate {
        key: key.clone(),
        ..Default::default()
    };
    let file = pb::FileCandidate {
        path: args.path.clone(),
        category: category as i32,
        default_enabled: true,
        ..Default::default()
    };
    Ok((package, file))
}

/// The source's header (id, scope, owner) and privacy patterns, from sync's record.
async fn source_of(
    project: &str,
    slug: &str,
    out: &ClientArgs,
) -> Result<(pb::SourceHeader, Vec<String>)> {
    let api = SourceGrpcClient::new(out.connect().await?);
    let request = sync::GetSourceRequest {
        project: project.to_owned(),
        slug: slug.to_owned(),
    };
    let caller = neuralis_sync::BearerToken::new(out.token.clone());
    let found = api.get_source(&caller, request).await;
    let found = found.map_err(|e| out.explain(e))?;
    let source = found.source.context("the source is unknown")?;
    let spec = source.spec.unwrap_or_default();
    // A project source's owner is its project when the record leaves it empty.
    let owner = if spec.owner.is_empty() {
        project.to_owned()
    } else {
        spec.owner
    };
    let scope = match spec.scope {
        0 => common::SourceScope::Project as i32,
        scope => scope,
    };
    // A data source's files are decided by their package zones too.
    let data_tree = spec.kind == neuralis_proto::sync::v1::SourceKind::Data as i32;
    let header = pb::SourceHeader {
        source_id: source.id,
        scope,
        owner,
        data_tree,
    };
    Ok((header, spec.privacy_patterns))
}

fn state(code: i32) -> String {
    let name = pb::DecisionCode::try_from(code).map_or("DECISION_CODE_HIDDEN", |c| c.as_str_name());
    word(name, "DECISION_CODE_")
}

fn outcome(step: &pb::ExplainStep) -> String {
    match step.effect() {
        pb::ExplainEffect::Decides => state(step.decides),
        other => word(other.as_str_name(), "EXPLAIN_EFFECT_"),
    }
}

fn to_json(explained: &pb::ExplainAccessResponse) -> Value {
    let steps: Vec<Value> = explained
        .steps
        .iter()
        .map(|step| {
            json!({
                "step": word(step.kind().as_str_name(), "EXPLAIN_STEP_KIND_"),
                "matched": step.matched,
                "outcome": outcome(step),
                "rule_index": step.rule_index,
                "deciding": step.deciding,
            })
        })
        .collect();
    json!({"state": state(explained.code), "steps": steps})
}

/// `PATH: hidden`, then one row per step; `*` marks the deciding one.
fn table(path: &str, explained: &pb::ExplainAccessResponse) -> String {
    let mut text = format!("{path}: {}\n", state(explained.code));
    text.push_str(&format!("  {:<22} {:<10} matched\n", "step", "outcome"));
    for step in &explained.steps {
        let mark = if step.deciding { '*' } else { ' ' };
        let kind = word(step.kind().as_str_name(), "EXPLAIN_STEP_KIND_");
        text.push_str(&format!(
            "{mark} {kind:<22} {:<10} {}\n",
            outcome(step),
            step.matched
        ));
    }
    text
}
