//! Fault runs under load for RELIABILITY.md:
//! `cargo run -p neuralis-tests --bin fault-run -- [--runs none,redis,postgres,policy,discovery]`.
//!
//! Each run starts a split deployment (sync, discovery, two policy replicas) on the
//! runner's own Redis and PostgreSQL, registers a source whose URI policy hides one
//! bundle file from the load caller, puts a fixed number of calls at a fixed rate and
//! concurrency through discovery while a writer edits and syncs the source, injects
//! one fault, and prints what the calls met: sent, failed by code, WRONG answers, and
//! the time to recover. Every call has a deadline, so every run ends.
#![forbid(unsafe_code)]

mod deploy;
mod load;
mod report;
mod setup;
mod stores;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;

use deploy::{Deployment, Plan};
use stores::{OwnPostgres, OwnRedis};

#[derive(Parser, Debug)]
#[command(about = "Fault runs under load: split mode, own Redis and PostgreSQL")]
struct Args {
    /// The faults to run, in order: none, redis, postgres, policy, discovery, sync,
    /// upgrade, rollback (the last two need --previous).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "none,redis,postgres,policy,discovery"
    )]
    runs: Vec<String>,
    /// Calls per run (all callers together).
    #[arg(long, default_value_t = 3000)]
    calls: usize,
    /// Calls started per second (all callers together).
    #[arg(long, default_value_t = 100.0)]
    rate: f64,
    /// Callers (calls in flight at most).
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    /// The writer's pause between two edit-and-sync rounds.
    #[arg(long, default_value_t = 500)]
    write_every_ms: u64,
    /// When the fault is injected, as a share of the run's planned length.
    #[arg(long, default_value_t = 0.3)]
    fault_at: f64,
    /// How long Redis or PostgreSQL stays down.
    #[arg(long, default_value_t = 3000)]
    outage_ms: u64,
    /// A host name resolving to 127.0.0.1 and 127.0.0.2 (an /etc/hosts entry standing
    /// for a headless Service): discovery reaches the policy replicas through it.
    #[arg(
        long,
        env = "FAULT_RUN_POLICY_HOST",
        default_value = "neuralis-load-policy.test"
    )]
    policy_host: String,
    /// The `neuralis-node` binary (default: beside this one).
    #[arg(long)]
    node: Option<PathBuf>,
    /// The previous release's `neuralis` binary, for the `upgrade` run (started on it,
    /// rolled to this one after `neuralis migrate up`) and the `rollback` run (started
    /// on this one, rolled back to it).
    #[arg(long)]
    previous: Option<PathBuf>,
}

/// The stores and the deployment a fault acts on.
pub struct World {
    pub redis: OwnRedis,
    pub postgres: OwnPostgres,
    pub deployment: Deployment,
    /// This release's `neuralis-node` and the previous release's `neuralis`, if given.
    pub current: PathBuf,
    pub previous: Option<PathBuf>,
}

/// When a fault was injected and, if it is undone, when the service was back.
pub struct Injected {
    pub at: Instant,
    pub restored: Option<Instant>,
    pub note: String,
}

fn inject(fault: &str, world: &mut World, outage: Duration) -> Result<Injected> {
    let at = Instant::now();
    let restored = match fault {
        "none" => None,
        "redis" => {
            world.redis.down()?;
            std::thread::sleep(outage);
            world.redis.up()?;
            Some(Instant::now())
        }
        "postgres" => {
            world.postgres.down()?;
            std::thread::sleep(outage);
            world.postgres.up()?;
            Some(Instant::now())
        }
        "policy" => {
            world.deployment.kill("policy-1")?;
            None
        }
        "discovery" => {
            world
                .deployment
                .terminate("discovery", Duration::from_secs(15))?;
            world.deployment.up("discovery")?;
            Some(Instant::now())
        }
        "upgrade" => {
            let current = world.current.clone();
            let neuralis = neuralis_tests::process::neuralis_binary(&current.display().to_string());
            world.deployment.migrate_up(&neuralis)?;
            world.deployment.roll_to(&current)?;
            Some(Instant::now())
        }
        "rollback" => {
            let previous = world.previous.clone().context("--previous")?;
            world.deployment.roll_to(&previous)?;
            Some(Instant::now())
        }
        "sync" => {
            world.deployment.kill("sync")?;
            std::thread::sleep(outage);
            world.deployment.up("sync")?;
            Some(Instant::now())
        }
        other => bail!("unknown fault {other}"),
    };
    let note = match fault {
        "none" => "no fault (baseline)".into(),
        "redis" => format!("redis-server SIGKILLed, started again (empty) after {outage:?}"),
        "postgres" => format!("pg_ctl stop -m immediate, pg_ctl start after {outage:?}"),
        "policy" => "policy replica 127.0.0.2 SIGKILLed, not restarted".into(),
        "sync" => format!("sync (every replica) SIGKILLed, started again after {outage:?}"),
        "upgrade" => "from the previous release: neuralis migrate up, then every process drained and started on this one, policy replicas first".into(),
        "rollback" => "from this release: every process drained and started on the previous one (no migration), policy replicas first".into(),
        _ => "discovery SIGTERMed, drained, started again on the same port".into(),
    };
    Ok(Injected { at, restored, note })
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> Result<()> {
    let args = Args::parse();
    let node_bin = match &args.node {
        Some(node) => node.clone(),
        None => std::env::current_exe()?
            .parent()
            .context("the runner's directory")?
            .join("neuralis-node"),
    };
    if !node_bin.is_file() {
        bail!(
            "{} not found: build it (cargo build -p neuralis-tests --bins)",
            node_bin.display()
        );
    }
    if !deploy::resolves_to_replicas(&args.policy_host) {
        bail!(
            "{host} must resolve to 127.0.0.1 and 127.0.0.2 (add to /etc/hosts:\n  127.0.0.1 {host}\n  127.0.0.2 {host})",
            host = args.policy_host
        );
    }
    let root = tempfile::Builder::new().prefix("fault-run").tempdir()?;
    {
        use std::os::unix::fs::PermissionsExt;
        // The postgres user must reach its data directory below.
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755))?;
    }
    let mut redis = Some(OwnRedis::start(
        &root.path().join("redis"),
        neuralis_tests::process::free_port(),
    )?);
    let mut postgres = Some(OwnPostgres::start(
        &root.path().join("postgres"),
        neuralis_tests::process::free_port(),
    )?);
    let shape = load::Shape {
        calls: args.calls,
        rate: args.rate,
        concurrency: args.concurrency,
        write_every: Duration::from_millis(args.write_every_ms),
    };
    println!(
        "# fault-run: {} calls per run at {}/s, {} callers, a write every {} ms, outage {} ms\n",
        args.calls, args.rate, args.concurrency, args.write_every_ms, args.outage_ms
    );
    let mut failures = 0;
    for (n, fault) in args.runs.iter().enumerate() {
        let dir = root.path().join(format!("run-{n}-{fault}"));
        std::fs::create_dir_all(&dir)?;
        // The upgrade run starts on the previous release; every other on this one.
        let start_bin = match (fault.as_str(), &args.previous) {
            ("upgrade", Some(previous)) => previous.clone(),
            ("upgrade" | "rollback", None) => bail!("the {fault} run needs --previous"),
            _ => node_bin.clone(),
        };
        let plan = Plan {
            node_bin: start_bin,
            database: postgres.as_ref().map(OwnPostgres::url).unwrap_or_default(),
            redis: redis.as_ref().map(OwnRedis::url).unwrap_or_default(),
            policy_host: args.policy_host.clone(),
            policy_replicas: 2,
            tag: format!("fault_{n}"),
            dir: dir.clone(),
        };
        let deployment = Deployment::start(plan)?;
        let target = setup::prepare(&deployment).await?;
        let discovery_admin = deployment.admin.get("discovery").copied();
        let mut world = World {
            redis: redis.take().context("redis")?,
            postgres: postgres.take().context("postgres")?,
            deployment,
            current: node_bin.clone(),
            previous: args.previous.clone(),
        };
        let t0 = Instant::now();
        let planned = args.calls as f64 / args.rate;
        let fault_due = t0 + Duration::from_secs_f64(planned * args.fault_at);
        let outage = Duration::from_millis(args.outage_ms);
        let fault_name = fault.clone();
        let injector = tokio::task::spawn_blocking(move || {
            std::thread::sleep(fault_due.saturating_duration_since(Instant::now()));
            let injected = inject(&fault_name, &mut world, outage);
            (world, injected)
        });
        let sampling = Arc::new(AtomicBool::new(false));
        let sampler = match discovery_admin {
            Some(admin) if !matches!(fault.as_str(), "discovery" | "upgrade" | "rollback") => Some(
                tokio::spawn(report::sample_readiness(admin, t0, sampling.clone())),
            ),
            _ => None,
        };
        let limit = Duration::from_secs_f64(planned * 3.0 + 60.0);
        let seen = tokio::time::timeout(limit, load::run(target, shape, t0)).await;
        let (mut world, injected) = injector.await?;
        sampling.store(true, Ordering::SeqCst);
        let readiness = match sampler {
            Some(sampler) => sampler.await.ok(),
            None => None,
        };
        let crashed = world.deployment.exited();
        let discovery_metrics = match world.deployment.admin.get("discovery") {
            Some(admin) if crashed.is_empty() => report::inventory(*admin).await,
            _ => String::new(),
        };
        let outcome = report::Outcome {
            fault: fault.clone(),
            seen: seen.ok(),
            injected,
            t0,
            crashed,
            discovery_metrics,
            readiness,
        };
        failures += usize::from(!outcome.print());
        redis = Some(world.redis);
        postgres = Some(world.postgres);
        world.deployment.stop();
    }
    let _ = std::process::Command::new("uptime").status();
    if std::env::var_os("FAULT_RUN_KEEP").is_some() {
        // The processes' logs (`<process>.log` under each run's directory), for a look.
        println!("kept {}", root.keep().display());
    }
    if failures > 0 {
        bail!("{failures} run(s) had WRONG answers, a crash, no recovery or no end");
    }
    Ok(())
}
