//! `neuralis demo`: the main job in one step. Starts the all-in-one server on the
//! embedded store, registers a sample source, gives it a read policy, syncs it, and
//! prints the packages a sample caller sees; then keeps serving (unless `--exit`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use futures::StreamExt;
use neuralis::node::{self, Clients, NodeSettings, Targets, keys};
use neuralis_discovery::CallerToken;
use neuralis_host::Shutdown;
use neuralis_policy::BearerToken;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_proto::sync::v1 as sync;

mod phases;
use phases::Phases;

use super::stdout::outln;

const PROJECT: &str = "demo";
const SOURCE: &str = "example";

/// Run the all-in-one server with a synced sample source.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// The directory to sync as the sample source.
    #[arg(default_value = "tests/fixtures/example-source")]
    source: PathBuf,
    /// Where the server listens.
    #[arg(long, default_value = "127.0.0.1:7400")]
    listen: String,
    /// The data directory (recreated for every demo run).
    #[arg(long, default_value = ".neuralis-demo")]
    data_dir: PathBuf,
    /// Exit after printing instead of serving.
    #[arg(long)]
    exit: bool,
    /// Report each phase's seconds and the resident memory on stderr (issue 31's
    /// measurement: start-up, seed, sync, first listing).
    #[arg(long)]
    timings: bool,
}

pub fn run(args: DemoArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("neuralis demo: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(demo(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("neuralis demo: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn demo(args: DemoArgs) -> Result<()> {
    let mut phases = Phases::new(args.timings);
    let root = args
        .source
        .canonicalize()
        .with_context(|| format!("source {}", args.source.display()))?;
    if args.data_dir.exists() {
        std::fs::remove_dir_all(&args.data_dir)
            .with_context(|| format!("clearing {}", args.data_dir.display()))?;
    }
    let settings = NodeSettings {
        listen: args.listen.clone(),
        data_dir: args.data_dir.clone(),
        ..NodeSettings::default()
    };
    let listener = tokio::net::TcpListener::bind(&settings.listen)
        .await
        .with_context(|| format!("listen {}", args.listen))?;
    let shutdown = Shutdown::new();
    let node = node::start(settings, Targets::new([]), listener, shutdown.clone()).await?;
    phases.end("start-up");
    outln!(
        "neuralis all-in-one server listening on {} (data in {})\n",
        node.addr,
        args.data_dir.display()
    );

    let admin = token(&args.data_dir, "demo-admin", "owner", None)?;
    let member = token(&args.data_dir, "demo-user", "member", Some("demo-agent"))?;
    seed(&node.clients, &admin, &root, &mut phases).await?;
    show(&node.clients, &member, &mut phases).await?;

    if args.exit {
        let stopped = node.stop().await;
        phases.end("stop");
        return stopped;
    }
    outln!("\nTry it from another terminal (the server keeps running; Ctrl-C stops it):");
    outln!(
        "  export NEURALIS_TOKEN=$(cargo run -q -p neuralis -- token --data-dir {} --project {PROJECT} --role member --agent demo-agent)",
        args.data_dir.display()
    );
    outln!(
        "  cargo run -q -p neuralis -- packages list --project {PROJECT} --server http://{}",
        node.addr
    );
    shutdown.listen_for_signals(Duration::ZERO, Duration::from_secs(10));
    node.server.await??;
    Ok(())
}

fn token(data_dir: &Path, subject: &str, role: &str, agent: Option<&str>) -> Result<String> {
    let who = keys::TokenFor {
        subject: subject.into(),
        role: role.into(),
        agent: agent.map(str::to_owned),
        project: Some(PROJECT.into()),
        ttl_seconds: 3600,
        ..keys::TokenFor::default()
    };
    keys::mint_token(&keys::existing_key(data_dir)?, who)
}

/// Registers the source, lets every caller read it, and syncs it.
async fn seed(clients: &Clients, admin: &str, root: &Path, phases: &mut Phases) -> Result<()> {
    let sources_api = clients
        .sources
        .as_ref()
        .ok_or_else(|| anyhow!("sync is not running"))?;
    let policy_api = clients
        .policy
        .as_ref()
        .ok_or_else(|| anyhow!("policy is not running"))?;
    let caller = BearerToken::new(Some(admin.to_owned()));
    let spec = sync::SourceSpec {
        project: PROJECT.into(),
        slug: SOURCE.into(),
        kind: sync::SourceKind::Local as i32,
        root: root.display().to_string(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        ..Default::default()
    };
    let created = sources_api
        .create_source(&caller, sync::CreateSourceRequest { source: Some(spec) })
        .await?;
    // Policy knows the source by the id sync assigned (never reused), not its slug.
    let source_id = created.source.map(|source| source.id).unwrap_or_default();
    outln!(
        "1. registered source {SOURCE:?} ({source_id}) -> {}",
        root.display()
    );

    let read_all = policy::UriPolicy {
        hide_flagged_files: false,
        default_capabilities: Some(policy::Capabilities {
            read: true,
            write: false,
            exec: false,
        }),
        paths: Vec::new(),
    };
    let request = policy::PutSourcePolicyRequest {
        source_id,
        policy: Some(read_all),
    };
    policy_api
        .put_source_policy(caller.clone(), request)
        .await?;
    outln!("2. stored a URI policy: everyone may read (a source without one contributes nothing)");
    phases.end("seed");

    let request = sync::SyncSourceRequest {
        project: PROJECT.into(),
        slug: SOURCE.into(),
    };
    let mut progress = sources_api.sync_source(&caller, request).await?;
    let mut last = None;
    while let Some(update) = progress.next().await {
        last = Some(update?);
    }
    let done = last.and_then(|u| u.progress).unwrap_or_default();
    outln!(
        "3. synced: {} files seen, {} indexed, {} skipped",
        done.files_seen,
        done.files_indexed,
        done.files_skipped
    );
    phases.end("sync");
    Ok(())
}

/// Prints what a member acting as `demo-agent` sees.
async fn show(clients: &Clients, member: &str, phases: &mut Phases) -> Result<()> {
    let discovery_api = clients
        .discovery
        .as_ref()
        .ok_or_else(|| anyhow!("discovery is not running"))?;
    let caller = CallerToken::new(Some(member.into()));
    let scope = Some(discovery::Scope {
        project_id: PROJECT.into(),
        agent_id: "demo-agent".into(),
        conversation_id: String::new(),
    });
    let listing = discovery_api
        .list_packages(
            caller.clone(),
            discovery::ListPackagesRequest {
                scope: scope.clone(),
                ..Default::default()
            },
        )
        .await?;
    phases.end("listing");
    outln!("4. packages a member acting as demo-agent sees:\n");
    for package in &listing.packages {
        outln!(
            "   {} (source {}, root {:?})",
            package.name,
            package.source_slug,
            package.root
        );
        for file in &package.files {
            let state = discovery::FileState::try_from(file.state).map_or("?", |s| s.as_str_name());
            outln!(
                "     {:<40} {:<12} {}",
                file.path,
                file.id,
                state.trim_start_matches("FILE_STATE_").to_lowercase()
            );
        }
    }
    let overview = discovery_api
        .render_overview(
            caller,
            discovery::RenderOverviewRequest {
                scope,
                ..Default::default()
            },
        )
        .await?;
    outln!("\n5. the agent's overview block:\n\n{}", overview.text);
    phases.end("overview");
    Ok(())
}
