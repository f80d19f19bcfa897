//! `neuralis config check` and `neuralis config print`: the configuration `serve`
//! would run with, checked or shown, without binding a port or reaching a store.

use std::collections::HashMap;
use std::process::ExitCode;

use neuralis::node::run::BAD_CONFIGURATION;
use neuralis::node::{self, ServeArgs, redact};

use super::stdout::outln;

/// Check or show the configuration (the same flags and `NEURALIS__*` variables as
/// `serve`).
#[derive(Debug, clap::Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    command: ConfigCommand,
}

#[derive(Debug, clap::Subcommand)]
enum ConfigCommand {
    /// Load and check every setting as `serve` would: exit 0 when it would start,
    /// 64 with a message naming the key when it would not.
    Check(ServeArgs),
    /// Print the effective configuration (defaults, file, environment and flags
    /// merged) with secrets and passwords redacted.
    Print {
        #[command(flatten)]
        serve: ServeArgs,
        /// JSON instead of YAML.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: ConfigArgs) -> ExitCode {
    let env: HashMap<String, String> = std::env::vars().collect();
    match args.command {
        ConfigCommand::Check(serve) => check(&serve, &env),
        ConfigCommand::Print { serve, json } => print(&serve, &env, json),
    }
}

fn check(args: &ServeArgs, env: &HashMap<String, String>) -> ExitCode {
    let (settings, targets) = match args.settings(env) {
        Ok(found) => found,
        Err(error) => return refuse("check", &error),
    };
    neuralis_host::tls::install_crypto_provider();
    match node::checks::check(&settings, &targets) {
        Ok(_) => {
            let names: Vec<&str> = targets.iter().map(node::Target::as_str).collect();
            outln!("configuration ok: {}", names.join(", "));
            ExitCode::SUCCESS
        }
        Err(problem) => refuse("check", &problem),
    }
}

fn print(args: &ServeArgs, env: &HashMap<String, String>, json: bool) -> ExitCode {
    let (mut settings, targets) = match args.settings(env) {
        Ok(found) => found,
        Err(error) => return refuse("print", &error),
    };
    settings.targets = targets.iter().map(|t| t.as_str().to_owned()).collect();
    let mut value = match serde_json::to_value(&settings) {
        Ok(value) => value,
        Err(error) => {
            eprintln!("neuralis config print: {error}");
            return ExitCode::FAILURE;
        }
    };
    // Sections of the services used on their own, which `serve` refuses when set: not
    // part of this binary's effective configuration.
    if let Some(policy) = value.get_mut("policy").and_then(|v| v.as_object_mut()) {
        policy.remove("identity");
    }
    if let Some(sync) = value.get_mut("sync").and_then(|v| v.as_object_mut()) {
        sync.remove("auth");
    }
    redact::redact(&mut value);
    let text = if json {
        serde_json::to_string_pretty(&value).map_err(|e| e.to_string())
    } else {
        serde_saphyr::to_string(&value).map_err(|e| e.to_string())
    };
    match text {
        Ok(text) => {
            outln!("{}", text.trim_end());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("neuralis config print: {error}");
            ExitCode::FAILURE
        }
    }
}

fn refuse(verb: &str, error: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("neuralis config {verb}: {error:#}");
    ExitCode::from(BAD_CONFIGURATION)
}
