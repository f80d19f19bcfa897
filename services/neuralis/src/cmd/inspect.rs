//! `neuralis inspect DIR [--json]`: walks DIR the way a sync would (the local
//! connector: never leaving DIR through a symlink, skipping files over the size limit),
//! captures each file, groups the rows with the layout core, and prints the packages
//! and unloaded files, with every skip and diagnostic.

mod render;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use neuralis_connector::{ConnectorLimits, ListedFile, LocalConnector, Skipped};
use neuralis_content_flags::{Flag, is_checked};
use neuralis_layout::{
    FilePayload, GroupOptions, IndexedFile, Layout, Trust, capture, group, needs_content,
};

/// Arguments of `neuralis inspect`.
#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// The directory to inspect, taken as a source root.
    pub dir: PathBuf,
    /// Print the JSON shape of the discovery contract instead of a tree.
    #[arg(long)]
    pub json: bool,
    /// Files larger than this many bytes are skipped, as a sync would.
    #[arg(long, default_value_t = ConnectorLimits::default().max_file_size)]
    pub max_file_size: u64,
    /// The source's display name (names the source-root package); defaults to DIR's name.
    #[arg(long)]
    pub name: Option<String>,
    /// Group DIR as one installed package directory of this trust tier
    /// (untrusted, trusted, first-party) instead of a synced source.
    #[arg(long, value_parser = parse_trust)]
    pub installed: Option<Trust>,
}

fn parse_trust(text: &str) -> Result<Trust, String> {
    text.parse()
}

/// What an inspection found: the layout, and what the walk left out.
#[derive(Debug)]
pub struct Report {
    pub layout: Layout,
    pub skipped: Vec<Skipped>,
    /// Content flags (issue 10 item 6) of the files read, by path, flagged ones only.
    pub flags: Vec<(String, Vec<Flag>)>,
}

pub fn run(args: InspectArgs) -> ExitCode {
    match inspect(&args) {
        Ok(report) => {
            let text = if args.json {
                render::json(&report)
            } else {
                render::tree(&report, &source_name(&args))
            };
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("neuralis inspect: {error:#}");
            // EX_NOINPUT: the directory cannot be used.
            ExitCode::from(66)
        }
    }
}

fn source_name(args: &InspectArgs) -> String {
    args.name.clone().unwrap_or_else(|| dir_name(&args.dir))
}

fn dir_name(dir: &Path) -> String {
    std::fs::canonicalize(dir)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "source".to_owned())
}

/// Walks, captures and groups DIR.
pub fn inspect(args: &InspectArgs) -> anyhow::Result<Report> {
    let limits = ConnectorLimits {
        max_file_size: args.max_file_size,
        ..ConnectorLimits::default()
    };
    let connector = LocalConnector::new(&args.dir, limits)
        .with_context(|| format!("cannot inspect {}", args.dir.display()))?;
    let listing = connector.list();
    let (rows, flags) = capture_all(&connector, listing.files);
    let name = source_name(args);
    let options = match args.installed {
        Some(trust) => GroupOptions::installed(name, trust),
        None => GroupOptions::synced(name),
    };
    Ok(Report {
        layout: group(&rows, &options),
        skipped: listing.skipped,
        flags,
    })
}

/// The threads that read and capture the files whose content grouping needs.
const READ_THREADS: usize = 4;

/// Each listed file as a row, in listing order, and the content flags of those read.
/// Only the files grouping needs (manifests, contribution-shaped markdown) and those
/// the sync flags (markdown and scripts) are read, on a few threads: each reads and
/// captures every n-th of them (they cluster in the listing's order). The answer does
/// not depend on the threads: rows and flags are put back in listing order.
fn capture_all(
    connector: &LocalConnector,
    files: Vec<ListedFile>,
) -> (Vec<IndexedFile>, Vec<(String, Vec<Flag>)>) {
    let read: Vec<usize> = (0..files.len())
        .filter(|&at| needs_content(&files[at].path) || is_checked(&files[at].path))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, READ_THREADS);
    let mut captured: Vec<Option<Captured>> = Vec::new();
    captured.resize_with(files.len(), || None);
    let listed = &files;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|first| {
                let mine = read.iter().skip(first).step_by(threads);
                scope.spawn(move || {
                    mine.map(|&at| (at, read_and_capture(connector, &listed[at])))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for worker in workers {
            // A reading thread panics only on a bug: the panic goes on, as it would
            // have on one thread.
            let found = worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            for (at, found) in found {
                captured[at] = Some(found);
            }
        }
    });
    let mut flags = Vec::new();
    // The listing is consumed: each row takes its file's path rather than a copy.
    let rows = files
        .into_iter()
        .zip(captured)
        .map(|(file, found)| {
            let payload = match found {
                Some(found) => {
                    if !found.flags.is_empty() {
                        flags.push((file.path.clone(), found.flags));
                    }
                    found.payload
                }
                None => capture(&file.path, None),
            };
            IndexedFile {
                path: file.path,
                payload,
            }
        })
        .collect();
    (rows, flags)
}

/// What reading one file gave.
struct Captured {
    payload: FilePayload,
    flags: Vec<Flag>,
}

/// Reads a file as the sync reads a listed file (one open, proven by its inode to be
/// the file the walk found; a file replaced since is read the careful way), captures it
/// and, when the sync would flag it, flags it.
fn read_and_capture(connector: &LocalConnector, file: &ListedFile) -> Captured {
    let content = connector.read_listed(file).ok();
    let flags = match &content {
        Some(content) if is_checked(&file.path) => {
            neuralis_content_flags::detect(&file.path, content)
        }
        _ => Vec::new(),
    };
    Captured {
        payload: capture(&file.path, content.as_deref()),
        flags,
    }
}
