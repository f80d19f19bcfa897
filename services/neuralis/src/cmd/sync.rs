//! `neuralis sync PROJECT SOURCE`: asks the sync service to sync one source now and
//! shows its progress: a progress bar on a terminal, plain lines otherwise (logs, CI),
//! nothing with `--json`, which prints one document when the run is done.

use std::io::IsTerminal;
use std::process::ExitCode;

use futures::StreamExt;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::grpc::SourceGrpcClient;
use neuralis_sync::{BearerToken, SourceApi};

use super::client::{self, ClientArgs};
use super::stdout::outln;

/// Arguments of `neuralis sync`.
#[derive(Debug, clap::Args)]
pub struct SyncArgs {
    /// The project the source belongs to.
    pub project: String,
    /// The source slug.
    pub source: String,
    #[command(flatten)]
    pub client: ClientArgs,
}

pub fn run(args: SyncArgs) -> ExitCode {
    client::run("sync", sync(args))
}

async fn sync(args: SyncArgs) -> anyhow::Result<()> {
    let out = &args.client;
    let client = SourceGrpcClient::new(out.connect().await?);
    let request = pb::SyncSourceRequest {
        project: args.project.clone(),
        slug: args.source.clone(),
    };
    let caller = BearerToken::new(out.token.clone());
    let started = client.sync_source(&caller, request).await;
    let mut stream = started.map_err(|e| out.explain(e))?;
    // With --json nothing is shown while it runs: one document at the end.
    let mut view = if out.json {
        View::Quiet(Vec::new())
    } else {
        View::new(std::io::stderr().is_terminal())
    };
    while let Some(message) = stream.next().await {
        let message = message.map_err(|e| out.explain(e))?;
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
    /// `--json`: the skipped files, kept for the final document.
    Quiet(Vec<pb::SkippedFile>),
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
            View::Quiet(kept) => kept.extend(message.skipped.iter().cloned()),
        }
    }

    fn finish(&mut self, message: &pb::SyncSourceResponse) {
        if let View::Bar(bar) = self {
            bar.finish_and_clear();
        }
        let progress = message.progress.unwrap_or_default();
        if let View::Quiet(skipped) = self {
            outln!("{}", done_json(message.revision, &progress, skipped));
            return;
        }
        outln!(
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

fn reason(skipped: &pb::SkippedFile) -> String {
    skipped
        .reason()
        .as_str_name()
        .trim_start_matches("SKIP_REASON_")
        .to_lowercase()
}

fn skipped_line(skipped: &pb::SkippedFile) -> String {
    let reason = reason(skipped);
    format!("skipped {} ({reason}): {}", skipped.path, skipped.detail)
}

/// The `--json` document: the revision, every counter and every skipped file.
fn done_json(revision: u64, progress: &pb::SyncProgress, skipped: &[pb::SkippedFile]) -> String {
    let skipped: Vec<serde_json::Value> = skipped
        .iter()
        .map(|s| serde_json::json!({"path": s.path, "reason": reason(s), "detail": s.detail}))
        .collect();
    let document = serde_json::json!({
        "revision": revision,
        "files_seen": progress.files_seen,
        "files_indexed": progress.files_indexed,
        "files_unchanged": progress.files_unchanged,
        "files_deleted": progress.files_deleted,
        "files_skipped": progress.files_skipped,
        "bytes_read": progress.bytes_read,
        "batches_committed": progress.batches_committed,
        "skipped": skipped,
    });
    serde_json::to_string_pretty(&document).unwrap_or_default()
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
