//! What every API client command shares: the server address, the caller's token,
//! `--json`, the connection, and the one way errors and JSON leave the process.

use std::future::Future;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use tonic::transport::Channel;

use super::stdout::outln;

/// The flags of every client command (accepted anywhere after the command name).
#[derive(Debug, Clone, clap::Args)]
pub struct ClientArgs {
    /// The server (all-in-one or the service the command calls).
    #[arg(long, global = true, default_value = "http://127.0.0.1:7400")]
    pub server: String,
    /// The bearer token of the caller (never printed).
    #[arg(long, global = true, env = "NEURALIS_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Print one JSON document on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,
}

impl ClientArgs {
    /// A channel to the server (connected lazily on the first call).
    pub async fn connect(&self) -> Result<Channel> {
        tonic::transport::Endpoint::from_shared(self.server.clone())
            .with_context(|| format!("bad server address {:?}", self.server))?
            .connect()
            .await
            .with_context(|| format!("cannot reach {}", self.server))
    }

    /// Turns an API error into the message shown, with a hint when no token was given.
    pub fn explain(&self, error: impl std::fmt::Display) -> anyhow::Error {
        let message = error.to_string();
        if message.starts_with("unauthenticated") && self.token.is_none() {
            anyhow::anyhow!("{message} (no token: pass --token or set NEURALIS_TOKEN)")
        } else {
            anyhow::anyhow!(message)
        }
    }

    /// Prints `value` as JSON when `--json` was given, else the text `render` makes.
    pub fn emit(&self, value: &serde_json::Value, render: impl FnOnce() -> String) -> Result<()> {
        if self.json {
            outln!("{}", serde_json::to_string_pretty(value)?);
        } else {
            let text = render();
            if !text.is_empty() {
                outln!("{}", text.trim_end_matches('\n'));
            }
        }
        Ok(())
    }
}

/// Runs one command's future and reports its error as `neuralis <command>: <message>`
/// on stderr with exit code 1.
pub fn run<F>(command: &str, future: F) -> ExitCode
where
    F: Future<Output = Result<()>>,
{
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("neuralis {command}: cannot start: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(future) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("neuralis {command}: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// A proto enum's wire name as a lower-case word: `FILE_STATE_OPT_IN` → `opt-in`.
pub fn word(name: &str, prefix: &str) -> String {
    name.strip_prefix(prefix)
        .unwrap_or(name)
        .to_lowercase()
        .replace('_', "-")
}

/// Milliseconds since the epoch as a UTC timestamp (`-` for zero, i.e. never).
pub fn time(ms: i64) -> String {
    if ms <= 0 {
        return "-".into();
    }
    let secs = ms.div_euclid(1000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_names_become_words() {
        assert_eq!(word("FILE_STATE_OPT_IN", "FILE_STATE_"), "opt-in");
        assert_eq!(word("CATEGORY_SKILL", "CATEGORY_"), "skill");
    }

    #[test]
    fn timestamps_are_utc() {
        assert_eq!(time(0), "-");
        assert_eq!(time(1_700_000_000_123), "2023-11-14T22:13:20Z");
        assert_eq!(time(951_782_400_000), "2000-02-29T00:00:00Z");
    }
}
