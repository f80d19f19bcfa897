//! `neuralis inspect DIR [--json]`: walks DIR the way a sync would (the local
//! connector: never leaving DIR through a symlink, skipping files over the size limit),
//! captures each file, groups the rows with the layout core, and prints the packages
//! and unloaded files, with every skip and diagnostic.

mod render;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use neuralis_connector::{ConnectorLimits, LocalConnector, Skipped};
use neuralis_layout::{GroupOptions, IndexedFile, Layout, Trust, capture, group, needs_content};

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
    pub flags: Vec<(String, Vec<neuralis_content_flags::Flag>)>,
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
    let mut flags = Vec::new();
    let rows: Vec<IndexedFile> = listing
        .files
        .iter()
        .map(|file| {
            // Read as the sync reads a listed file: one open, proven by its inode to be
            // the file the walk found (a file replaced since is read the careful way).
            // The files the sync flags (markdown and scripts) are read too.
            let checked = neuralis_content_flags::is_checked(&file.path);
            let content = (needs_content(&file.path) || checked)
                .then(|| connector.read_listed(file).ok())
                .flatten();
            if let Some(content) = content.as_ref().filter(|_| checked) {
                let found = neuralis_content_flags::detect(&file.path, content);
                if !found.is_empty() {
                    flags.push((file.path.clone(), found));
                }
            }
            IndexedFile {
                path: file.path.clone(),
                payload: capture(&file.path, content.as_deref()),
            }
        })
        .collect();
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
