//! `neuralis inspect DIR [--json]`: walks DIR the way a sync would (the local
//! connector: never leaving DIR through a symlink, skipping files over the size limit),
//! captures each file, groups the rows with the layout core, and prints the packages
//! and unloaded files, with every skip and diagnostic.

mod capture;
mod render;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use capture::{Listed, walk_and_capture};
use neuralis_connector::{ConnectorLimits, LocalConnector, Skipped};
use neuralis_content_flags::Flag;
use neuralis_layout::{FileDiagnostic, GroupOptions, IndexedFile, Layout, Severity, Trust, group};

use super::stdout::outln;

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
    /// List every file of each skill's bundle; by default the tree counts them
    /// (`[28 files]`) so a big skill stays readable. The JSON always lists them.
    #[arg(long)]
    pub files: bool,
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
    /// The rows the layout was grouped from, kept so that `run` can leave them to the
    /// process's exit (see there).
    _rows: Vec<IndexedFile>,
}

pub fn run(args: InspectArgs) -> ExitCode {
    match inspect(&args) {
        Ok(report) => {
            let text = if args.json {
                render::json(&report)
            } else {
                render::tree(&report, &source_name(&args), args.files)
            };
            outln!("{text}");
            // The process ends here: its exit returns every page at once. Freeing the
            // report first (100,000 rows and their paths on the bench tree) only hands
            // the pages to the allocator, which then gives them back one range at a
            // time before exit (mimalloc's forced purge: an `madvise` per range and a
            // TLB flush on every core), about 2 % of the inspection's wall time.
            std::mem::forget((report, text));
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
    let (Listed { rows, skipped }, flags) = walk_and_capture(&connector);
    let name = source_name(args);
    let options = match args.installed {
        Some(trust) => GroupOptions::installed(name, trust),
        None => GroupOptions::synced(name),
    };
    let mut layout = group(&rows, &options);
    warn_disagreeing_manifests(&args.dir, &mut layout);
    Ok(Report {
        layout,
        skipped,
        flags,
        _rows: rows,
    })
}

/// Adds a warning for each field the manifests of a package directory disagree on,
/// on the first manifest that declares it (issue 30 item 4).
fn warn_disagreeing_manifests(dir: &Path, layout: &mut Layout) {
    let mut found = Vec::new();
    for package in &layout.packages {
        for disagreement in super::agreement::of_dir(&dir.join(&package.root)) {
            let first = disagreement.values.first().map_or("", |(file, _)| file);
            let path = match package.root.as_str() {
                "" => first.to_owned(),
                root => format!("{root}/{first}"),
            };
            found.push(FileDiagnostic {
                path,
                severity: Severity::Warning,
                line: None,
                message: disagreement.message(),
            });
        }
    }
    if !found.is_empty() {
        layout.diagnostics.extend(found);
        layout.diagnostics.sort();
    }
}
