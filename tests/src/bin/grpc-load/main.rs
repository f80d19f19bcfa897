//! Sustained-load generator for BENCHMARKS.md (issue 12):
//! `cargo run --release -p neuralis-tests --bin grpc-load -- [--calls N] [--concurrency C]`.
//!
//! For each deployment (all-in-one; split with one policy replica; split with two),
//! starts its processes, syncs a synthetic project, then makes a fixed number of calls
//! at a fixed concurrency of: a no-op (health Check) on discovery, `ListPackages`,
//! `ActivateSkill`, a no-op on policy (every replica), and policy `Evaluate` with the
//! project's batch. Prints one markdown table: calls/s and p50/p90/p99/p99.9, each as a
//! ratio to the no-op of the same server in the same run (measured in turns with it, so
//! both see the same background load), and errors by gRPC code.
//! Every call has a deadline and the call count is fixed, so a run always ends.
#![forbid(unsafe_code)]

mod calls;
mod topology;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::{Parser, Subcommand};
use neuralis_tests::load::{Load, Measured, Row, call, measure_in_turns, table_header, table_row};

#[derive(Parser)]
#[command(about = "Sustained gRPC load, as ratios to a no-op at the same concurrency")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    options: Options,
}

#[derive(Subcommand)]
enum Command {
    /// Serves as `neuralis serve` (the processes a run starts are this binary).
    Node(neuralis::node::ServeArgs),
}

#[derive(clap::Args, Clone)]
struct Options {
    /// Calls measured per call kind and deployment.
    #[arg(long, env = "GRPC_LOAD_CALLS", default_value_t = 4000)]
    calls: usize,
    /// Calls in flight at once.
    #[arg(long, env = "GRPC_LOAD_CONCURRENCY", default_value_t = 16)]
    concurrency: usize,
    /// Turns each measurement is split into, a call and its no-op taking turns.
    #[arg(long, env = "GRPC_LOAD_ROUNDS", default_value_t = 10)]
    rounds: usize,
    /// Unmeasured calls before each measurement.
    #[arg(long, env = "GRPC_LOAD_WARMUP", default_value_t = 200)]
    warmup: usize,
    /// Tool folders in the project (two skills, a rule and a doc each).
    #[arg(long, env = "GRPC_LOAD_TOOLS", default_value_t = 50)]
    tools: usize,
    /// Ordinary source files beside them.
    #[arg(long, env = "GRPC_LOAD_FILLER", default_value_t = 2000)]
    filler: usize,
    /// Every call's deadline, in milliseconds.
    #[arg(long, env = "GRPC_LOAD_TIMEOUT_MS", default_value_t = 10_000)]
    timeout_ms: u64,
    /// Deployments to run, among `all-in-one`, `split-1`, `split-2`.
    #[arg(
        long,
        env = "GRPC_LOAD_MODES",
        value_delimiter = ',',
        default_value = "all-in-one,split-1,split-2"
    )]
    modes: Vec<String>,
    /// A host name resolving to 127.0.0.1 and 127.0.0.2 (policy's headless Service).
    #[arg(
        long,
        env = "GRPC_LOAD_POLICY_HOST",
        default_value = "neuralis-load-policy.test"
    )]
    policy_host: String,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    if let Some(Command::Node(args)) = cli.command {
        return neuralis::node::serve_main(args);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("grpc-load: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli.options)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("grpc-load: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(options: Options) -> Result<()> {
    neuralis_host::tls::install_crypto_provider();
    let tree = tempfile::tempdir()?;
    let files = calls::write_tree(tree.path(), options.tools, options.filler)?;
    let load = Load {
        calls: options.calls,
        concurrency: options.concurrency,
        warmup: options.warmup,
    };
    println!(
        "project: {files} files ({} tool packages); {} calls per row at concurrency {}, \
         {} warm-up calls, in {} turns with the no-op, deadline {} ms\n",
        options.tools,
        load.calls,
        load.concurrency,
        load.warmup,
        options.rounds,
        options.timeout_ms
    );
    let mut lines = vec![table_header()];
    let mut evaluate = Vec::new();
    let mut replicas = Vec::new();
    for mode in &options.modes {
        let data = tempfile::tempdir()?;
        let deployment = match mode.as_str() {
            "all-in-one" => topology::all_in_one(data.path())?,
            "split-1" => topology::split(data.path(), 1, &options.policy_host)?,
            "split-2" => topology::split(data.path(), 2, &options.policy_host)?,
            other => anyhow::bail!("unknown mode {other:?}"),
        };
        let started = Instant::now();
        let rows = measure_mode(&options, load, &deployment, tree.path()).await;
        let per_replica = topology::evaluations(&deployment).await;
        deployment.stop();
        let rows = rows?;
        eprintln!("{mode}: {:.1} s", started.elapsed().as_secs_f64());
        replicas.push(format!(
            "{mode}: Evaluate calls answered per policy replica (direct and from discovery): {per_replica:?}"
        ));
        for (call, measured, baseline) in &rows {
            lines.push(table_row(&Row {
                mode,
                call,
                measured,
                baseline,
            }));
            if *call == "Evaluate" {
                evaluate.push((mode.clone(), measured.throughput(), baseline.throughput()));
            }
        }
    }
    println!("{}", lines.join("\n"));
    println!("\n{}", replicas.join("\n"));
    if let Some((_, one, _)) = evaluate.iter().find(|(m, ..)| m == "split-1") {
        println!(
            "\n| policy Evaluate | calls/s | ÷ split-1 | ÷ its no-op |\n| --- | ---: | ---: | ---: |"
        );
        for (mode, calls, noop) in &evaluate {
            println!(
                "| {mode} | {calls:.0} | {:.2} | {:.2} |",
                calls / one,
                calls / noop
            );
        }
    }
    Ok(())
}

type Rows = Vec<(&'static str, Measured, Measured)>;

async fn measure_mode(
    options: &Options,
    load: Load,
    deployment: &topology::Deployment,
    tree: &Path,
) -> Result<Rows> {
    let source_id = calls::register(deployment.sync, tree).await?;
    calls::put_policy_and_sync(deployment.sync, deployment.policy[0], &source_id).await?;
    let timeout = Duration::from_millis(options.timeout_ms);
    let discovery = calls::channel(&[deployment.discovery])?;
    let policy = calls::channel(&deployment.policy)?;
    let member: Arc<str> = calls::member()?.into();
    let credential: Arc<str> = calls::discovery_credential()?.into();
    let batch = Arc::new(calls::evaluate_batch(&source_id, options.tools));
    let tools = options.tools;

    let channel = discovery.clone();
    let noop_discovery = call(move |_| calls::noop(channel.clone(), timeout));
    let (channel, token) = (discovery.clone(), member.clone());
    let list = call(move |_| calls::list_packages(channel.clone(), token.clone(), timeout));
    let (channel, token) = (discovery.clone(), member.clone());
    let activate =
        call(move |n| calls::activate_skill(channel.clone(), token.clone(), timeout, n, tools));
    let channel = policy.clone();
    let noop_policy = call(move |_| calls::noop(channel.clone(), timeout));
    let channel = policy.clone();
    let evaluate =
        call(move |_| calls::evaluate(channel.clone(), credential.clone(), batch.clone(), timeout));
    let mut on_discovery =
        measure_in_turns(load, options.rounds, &[noop_discovery, list, activate]).await;
    let mut on_policy = measure_in_turns(load, options.rounds, &[noop_policy, evaluate]).await;
    let (Some(activate), Some(list), Some(noop_discovery)) =
        (on_discovery.pop(), on_discovery.pop(), on_discovery.pop())
    else {
        anyhow::bail!("a measurement is missing");
    };
    let (Some(evaluate), Some(noop_policy)) = (on_policy.pop(), on_policy.pop()) else {
        anyhow::bail!("a measurement is missing");
    };
    Ok(vec![
        (
            "no-op (health Check, discovery)",
            noop_discovery.clone(),
            noop_discovery.clone(),
        ),
        ("ListPackages", list, noop_discovery.clone()),
        ("ActivateSkill", activate, noop_discovery),
        (
            "no-op (health Check, policy)",
            noop_policy.clone(),
            noop_policy.clone(),
        ),
        ("Evaluate", evaluate, noop_policy),
    ])
}
