//! `neuralis inspect DIR [--json]`: walks DIR the way a sync would (the local
//! connector: never leaving DIR through a symlink, skipping files over the size limit),
//! captures each file, groups the rows with the layout core, and prints the packages
//! and unloaded files, with every skip and diagnostic.

mod render;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context as _;
use neuralis_connector::{ConnectorLimits, ListedFile, LocalConnector, Skipped};
use neuralis_content_flags::{Flag, is_checked};
use neuralis_layout::{
    FileDiagnostic, FilePayload, GroupOptions, IndexedFile, Layout, Severity, Trust, capture,
    group, needs_content,
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
            println!("{text}");
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
    let listing = connector.list();
    let (rows, flags) = capture_all(&connector, listing.files);
    let name = source_name(args);
    let options = match args.installed {
        Some(trust) => GroupOptions::installed(name, trust),
        None => GroupOptions::synced(name),
    };
    let mut layout = group(&rows, &options);
    warn_disagreeing_manifests(&args.dir, &mut layout);
    Ok(Report {
        layout,
        skipped: listing.skipped,
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

/// The threads that read and capture the files whose content grouping needs (the main
/// thread reads beside them).
const READ_THREADS: usize = 4;

/// Listed files per batch a reading thread takes. The files to read cluster in listing
/// order (3 % of the bench tree, in its markdown folders), so the threads take small
/// batches, one at a time, rather than one part each.
const READ_BATCH: usize = 256;

/// Each listed file as a row, in listing order, and the content flags of those read.
/// Only the files grouping needs (manifests, contribution-shaped markdown) and those
/// the sync flags (markdown and scripts) are read; choosing them (a path check per
/// listed file) and reading them is done on a few threads, each taking the next batch
/// of the listing no thread took yet. The answer does not depend on the threads: rows
/// and flags are put back in listing order. A file not read is a row classified by its path alone:
/// `capture` without content gives it nothing (test
/// `a_file_inspect_does_not_read_captures_as_a_path_only_row`), so it is not called.
fn capture_all(
    connector: &LocalConnector,
    files: Vec<ListedFile>,
) -> (Vec<IndexedFile>, Vec<(String, Vec<Flag>)>) {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, READ_THREADS);
    let listed = &files;
    let next = AtomicUsize::new(0);
    let next = &next;
    let mut captured = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| scope.spawn(move || read_batches(connector, listed, next)))
            .collect();
        let mut captured = read_batches(connector, listed, next);
        for worker in workers {
            // A reading thread panics only on a bug: the panic goes on, as it would
            // have on one thread.
            let read = worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            captured.extend(read);
        }
        captured
    });
    // The listing becomes the rows in place: each row takes its file's path, and the
    // rows (smaller than the files) are laid out in the listing's own memory, warm
    // from the walk; fresh pages cost a fault each, and on a virtual machine often a
    // fault on the host too.
    let mut rows: Vec<IndexedFile> = files
        .into_iter()
        .map(|file| IndexedFile::path_only(file.path).with_real_path(file.real_path))
        .collect();
    captured.sort_unstable_by_key(|(at, _)| *at);
    let mut flags = Vec::new();
    for (at, found) in captured {
        let row = &mut rows[at];
        if !found.flags.is_empty() {
            flags.push((row.path.clone(), found.flags));
        }
        row.payload = found.payload;
    }
    (rows, flags)
}

/// Whether inspect reads a listed file: grouping needs its content, or the sync would
/// check it for content flags.
fn is_read(path: &str) -> bool {
    needs_content(path) || is_checked(path)
}

/// Reads and captures the files to read in the batches of `files` this thread takes
/// (the next one not taken, counted by `next`, until none is left), with their
/// positions in it. Taken one at a time, so a thread whose batches hold more files to
/// read than another's (they cluster) does not leave the others idle at the end.
fn read_batches(
    connector: &LocalConnector,
    files: &[ListedFile],
    next: &AtomicUsize,
) -> Vec<(usize, Captured)> {
    let mut captured = Vec::new();
    loop {
        let batch = next.fetch_add(1, Ordering::Relaxed);
        let Some(chunk) = files.chunks(READ_BATCH).nth(batch) else {
            return captured;
        };
        let first = batch * READ_BATCH;
        captured.extend(
            chunk
                .iter()
                .enumerate()
                .filter(|(_, file)| is_read(&file.path))
                .map(|(within, file)| (first + within, read_and_capture(connector, file))),
        );
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Paths of every kind the layout core tells apart: manifests, contributions in
    /// each shape, markdown that is none, scripts, code, assets, hidden and nested.
    const PATHS: &[&str] = &[
        "README.md",
        "notes.md",
        "docs/guide.md",
        "skills/pdf/SKILL.md",
        "skills/pdf/reference.md",
        "skills/pdf/scripts/fill.py",
        "agents/reviewer.md",
        "commands/deploy.md",
        ".cursor/rules/style.mdc",
        "rules/style.mdc",
        "AGENTS.md",
        "CLAUDE.md",
        ".github/copilot-instructions.md",
        "plugin.json",
        ".claude-plugin/plugin.json",
        "package.json",
        "Cargo.toml",
        "node_modules/pkg/agents/a.md",
        "src/main.rs",
        "src/lib/util.ts",
        "assets/logo.png",
        "build.sh",
        "data/table.csv",
        "a/b/c/d/e/f.txt",
        "Makefile",
        ".gitignore",
    ];

    #[test]
    fn a_file_inspect_does_not_read_captures_as_a_path_only_row() {
        let unread: Vec<&str> = PATHS.iter().copied().filter(|p| !is_read(p)).collect();
        assert!(
            unread.len() > 5,
            "the table must hold files inspect does not read"
        );
        for path in unread {
            assert_eq!(
                capture(path, None),
                IndexedFile::path_only(path).payload,
                "{path}"
            );
        }
    }

    #[test]
    fn every_file_to_read_is_read_by_exactly_one_thread() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let names: Vec<String> = (0..3 * READ_BATCH + 7)
            .map(|n| format!("f{n:05}.md"))
            .collect();
        for name in &names {
            std::fs::write(dir.path().join(name), "# title\n").expect("write a file");
        }
        let connector =
            LocalConnector::new(dir.path(), ConnectorLimits::default()).expect("connector");
        let files = connector.list().files;
        for threads in 1..=READ_THREADS + 1 {
            let next = AtomicUsize::new(0);
            let mut read: Vec<usize> = std::thread::scope(|scope| {
                let readers: Vec<_> = (0..threads)
                    .map(|_| scope.spawn(|| read_batches(&connector, &files, &next)))
                    .collect();
                readers
                    .into_iter()
                    .flat_map(|reader| reader.join().expect("a reading thread"))
                    .map(|(at, _)| at)
                    .collect()
            });
            read.sort_unstable();
            let all: Vec<usize> = (0..files.len())
                .filter(|&at| is_read(&files[at].path))
                .collect();
            assert_eq!(read, all, "{threads} threads");
        }
    }
}
