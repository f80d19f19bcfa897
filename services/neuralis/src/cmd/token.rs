//! `neuralis token`: mint a caller token from the all-in-one server's local signing
//! key, to act as a given role, agent and conversation. A token is bound to one project
//! (`--project`) unless `--platform` asks, explicitly, for one that crosses projects.

use std::path::PathBuf;
use std::process::ExitCode;

use neuralis::node::keys;

use super::stdout::outln;

/// Mint a caller token signed with the local key of an all-in-one server.
#[derive(Debug, clap::Args)]
pub struct TokenArgs {
    /// The caller's subject (the user).
    #[arg(long, default_value = "local-user")]
    subject: String,
    /// The caller's role (matched by policy rules and role grants).
    #[arg(long, default_value = "member")]
    role: String,
    /// Extra features the token carries (repeatable).
    #[arg(long = "feature")]
    features: Vec<String>,
    /// The agent the caller acts as.
    #[arg(long)]
    agent: Option<String>,
    /// The project the token is bound to (it acts in no other). Required unless
    /// `--platform` is given.
    #[arg(long, required_unless_present = "platform")]
    project: Option<String>,
    /// A platform-wide token: it acts in every project (listing every project's
    /// sources, role grants, agent overrides). Never the default.
    #[arg(long)]
    platform: bool,
    /// The conversation the token is bound to.
    #[arg(long)]
    conversation: Option<String>,
    /// Lifetime in seconds.
    #[arg(long, default_value_t = 3600)]
    ttl_seconds: u64,
    /// The server's data directory (where `signing.key` lives).
    #[arg(long, env = "NEURALIS__DATA_DIR", default_value = ".neuralis")]
    data_dir: PathBuf,
}

pub fn run(args: TokenArgs) -> ExitCode {
    match token(args) {
        Ok(token) => {
            outln!("{token}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("neuralis token: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn token(args: TokenArgs) -> anyhow::Result<String> {
    let secret = keys::existing_key(&args.data_dir)?;
    let who = keys::TokenFor {
        subject: args.subject,
        role: args.role,
        features: args.features,
        agent: args.agent,
        project: args.project,
        conversation: args.conversation,
        platform: args.platform,
        ttl_seconds: args.ttl_seconds,
    };
    keys::mint_token(&secret, who)
}
