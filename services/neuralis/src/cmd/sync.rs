//! `neuralis sync PROJECT SOURCE`: asks the sync service to sync one source now and
//! shows its progress: a progress bar on a terminal, plain lines otherwise (logs, CI).

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Context as _;
use futures::StreamExt;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::grpc::SyncGrpcClient;
use neuralis_sync::{CallerToken, SyncApi};

/// Arguments of `neuralis sync`.
#[derive(Debug, clap::Args)]
pub struct SyncArgs {
    /// The project the source belongs to.
    pub project: String,
    /// The source slug.
    pub source: String,
    /// The sync (or all-in-one) server.
    #[arg(long, default_value = "http://127.0.0.1:7400")]
    pub server: String,
    /// The bearer token of the caller (never printed).
    #[arg(long, env = "NEURALIS_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
}

pub fn run(args: SyncArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("neuralis sync: cannot start: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(sync(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("neuralis sync: {err:#}");
            ExitCode::FAILURE
        }
    }
}

async fn sync(args: SyncArgs) -> anyhow::Result<()> {
    let channel = tonic::transport::Endpoint::from_shared(args.server.clone())
        .with_context(|| format!("bad server address {:?}", args.server))?
        .connect()
        .await
        .with_context(|| format!("cannot reach {}", args.server))?;
    let client = SyncGrpcClient::new(channel);
    let request = pb::SyncSourceRequest {
        project: args.project.clone(),
        slug: args.source.clone(),
    };
    let caller = CallerToken(args.token);
    let mut stream = client.sync_source(&caller, request).await?;
    let mut view = View::new(std::io::stderr().is_terminal());
    while let Some(message) = stream.next().await {
        let message = message?;
        view.show(&message);
        if message.done {
            view.finish(&message);
        }
    }
    Ok(())
}

/// Where progress goes.
enum View {
    Bar(indicatif::ProgressBar),
    Lines,
}

impl View {
    fn new(terminal: bool) -> Self {
        if !terminal {
            return View::Lines;
        }
        let bar = indicatif::ProgressBar::new(0);
        let style =
            indicatif::ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} files {msg}")
                .map(|style| style.progress_chars("=> "))
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
        View::Bar(bar)
    }

    fn show(&mut self, message: &pb::SyncSourceResponse) {
        let progress = message.progress.unwrap_or_default();
        match self {
            View::Bar(bar) => {
                bar.set_length(progress.files_seen);
                bar.set_position(handled(&progress));
                bar.set_message(format!(
                    "{} indexed, {} skipped",
                    progress.files_indexed, progress.files_skipped
                ));
                for skipped in &message.skipped {
                    bar.println(skipped_line(skipped));
                }
            }
            View::Lines => {
                for skipped in &message.skipped {
                    eprintln!("{}", skipped_line(skipped));
                }
                eprintln!("{}", progress_line(&progress));
            }
        }
    }

    fn finish(&mut self, message: &pb::SyncSourceResponse) {
        if let View::Bar(bar) = self {
            bar.finish_and_clear();
        }
        let progress = message.progress.unwrap_or_default();
        println!(
            "synced at revision {}: {}",
            message.revision,
            progress_line(&progress)
        );
    }
}

/// Files the run is done with: written, unchanged or skipped.
fn handled(progress: &pb::SyncProgress) -> u64 {
    (progress.files_indexed + progress.files_unchanged).min(progress.files_seen)
}

fn progress_line(progress: &pb::SyncProgress) -> String {
    format!(
        "seen {} indexed {} unchanged {} deleted {} skipped {} bytes {} batches {}",
        progress.files_seen,
        progress.files_indexed,
        progress.files_unchanged,
        progress.files_deleted,
        progress.files_skipped,
        progress.bytes_read,
        progress.batches_committed
    )
}

fn skipped_line(skipped: &pb::SkippedFile) -> String {
    let reason = skipped
        .reason()
        .as_str_name()
        .trim_start_matches("SKIP_REASON_")
        .to_lowercase();
    format!("skipped {} ({reason}): {}", skipped.path, skipped.detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_carry_every_counter() {
        let progress = pb::SyncProgress {
            files_seen: 10,
            files_indexed: 3,
            files_unchanged: 6,
            files_deleted: 1,
            files_skipped: 1,
            bytes_read: 512,
            batches_committed: 2,
        };
        assert_eq!(
            progress_line(&progress),
            "seen 10 indexed 3 unchanged 6 deleted 1 skipped 1 bytes 512 batches 2"
        );
        assert_eq!(handled(&progress), 9);
    }

    #[test]
    fn a_skipped_file_names_its_reason() {
        let skipped = pb::SkippedFile {
            path: "escape.md".into(),
            reason: pb::SkipReason::SymlinkEscape as i32,
            detail: "symlink leads outside the source root".into(),
        };
        assert_eq!(
            skipped_line(&skipped),
            "skipped escape.md (symlink_escape): symlink leads outside the source root"
        );
    }
}
