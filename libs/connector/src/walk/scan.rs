//! Scanning one directory: what each entry is (a file with its metadata, a directory to
//! enter, or something skipped with its reason), with symlinks followed only inside the
//! root. The ordered and the parallel walks share it.

use std::fs::{self, DirEntry, Metadata};
use std::path::{Path, PathBuf};

use super::{Tree, skipped};
use crate::{SkipReason, Skipped};

/// Linux's "too many levels of symbolic links" (`ErrorKind::FilesystemLoop` is not
/// stable yet).
const ELOOP: i32 = 40;

/// A directory waiting to be read.
pub(crate) struct Pending {
    /// The path the walk opens (through any followed links).
    path: PathBuf,
    /// Relative to the root, `/`-separated ("" for the root).
    relative: String,
    /// Where it really is, to detect a link back to an enclosing directory; `None`
    /// while no link was followed on the way (then it is `path`).
    canonical: Option<PathBuf>,
    depth: usize,
}

impl Pending {
    pub(crate) fn root(root: &Path) -> Self {
        Pending {
            path: root.to_path_buf(),
            relative: String::new(),
            canonical: None,
            depth: 0,
        }
    }
}

/// One entry of a scanned directory.
pub(crate) enum Found {
    /// A regular file (or a link to one inside the root), not yet checked for size.
    File {
        relative: String,
        metadata: Metadata,
        /// Its real path relative to the root, when it was reached through a link (the
        /// file itself or a directory on the way) and differs from `relative`.
        real_path: Option<String>,
    },
    /// A directory to enter.
    Child(Pending),
    /// Left out, with why.
    Skip(Skipped),
}

/// What one directory entry turned out to be.
enum Entry {
    /// A directory; `canonical` when reached through a link.
    Directory {
        canonical: Option<PathBuf>,
    },
    File {
        metadata: Metadata,
        /// Where it really is, when it is a link.
        target: Option<PathBuf>,
    },
    Skip(SkipReason),
}

/// The entries of `directory`, in name order when `sorted`.
pub(crate) fn scan(directory: &Pending, tree: &Tree<'_>, sorted: bool) -> Vec<Found> {
    let entries = match read_entries(&directory.path, sorted) {
        Ok(entries) => entries,
        Err(error) => return vec![Found::Skip(unreadable(&directory.relative, &error))],
    };
    entries
        .into_iter()
        .map(|entry| found(entry, directory, tree))
        .collect()
}

fn found(entry: DirEntry, directory: &Pending, tree: &Tree<'_>) -> Found {
    let (root, limits) = (tree.root, tree.limits);
    let name = entry.file_name();
    let Some(name) = name.to_str() else {
        let lossy = join(&directory.relative, &name.to_string_lossy());
        return Found::Skip(skipped(lossy, SkipReason::NonUtf8Name));
    };
    let relative = join(&directory.relative, name);
    match classify(&entry, root, directory) {
        Entry::Skip(reason) => Found::Skip(skipped(relative, reason)),
        Entry::File { metadata, target } => {
            // Where the file really is: the link's target, or its name under the real
            // directory when a link led here; `None` when nothing was followed.
            let real = target.or_else(|| {
                directory
                    .canonical
                    .as_ref()
                    .map(|canonical| canonical.join(name))
            });
            let at = real.clone().unwrap_or_else(|| directory.path.join(name));
            if tree.is_forbidden(&at) {
                return Found::Skip(skipped(relative, SkipReason::Excluded));
            }
            let real_path = real
                .and_then(|real| relative_to(root, &real))
                .filter(|real| *real != relative);
            Found::File {
                relative,
                metadata,
                real_path,
            }
        }
        Entry::Directory { canonical } => {
            let at = canonical
                .clone()
                .unwrap_or_else(|| directory.path.join(name));
            if tree.is_forbidden(&at)
                || limits.excluded_dirs.iter().any(|excluded| excluded == name)
            {
                Found::Skip(skipped(relative, SkipReason::Excluded))
            } else if directory.depth + 1 > limits.max_depth {
                Found::Skip(skipped(relative, SkipReason::TooDeep))
            } else {
                Found::Child(Pending {
                    path: directory.path.join(name),
                    relative,
                    canonical,
                    depth: directory.depth + 1,
                })
            }
        }
    }
}

fn read_entries(directory: &Path, sorted: bool) -> std::io::Result<Vec<DirEntry>> {
    let mut entries = fs::read_dir(directory)?.collect::<std::io::Result<Vec<_>>>()?;
    if sorted {
        entries.sort_by_key(DirEntry::file_name);
    }
    Ok(entries)
}

fn classify(entry: &DirEntry, root: &Path, parent: &Pending) -> Entry {
    let file_type = match entry.file_type() {
        Ok(file_type) => file_type,
        Err(error) => return Entry::Skip(unreadable_reason(&error)),
    };
    if file_type.is_symlink() {
        return follow_link(&entry.path(), root, parent);
    }
    if file_type.is_dir() {
        return Entry::Directory {
            canonical: parent
                .canonical
                .as_ref()
                .map(|canonical| canonical.join(entry.file_name())),
        };
    }
    if !file_type.is_file() {
        return Entry::Skip(SkipReason::NotRegular);
    }
    match entry.metadata() {
        Ok(metadata) => Entry::File {
            metadata,
            target: None,
        },
        Err(error) => Entry::Skip(unreadable_reason(&error)),
    }
}

/// A link is followed only when its canonical target is inside the root, and a link
/// to a directory only when that directory does not enclose the link.
fn follow_link(link: &Path, root: &Path, parent: &Pending) -> Entry {
    let target = match fs::canonicalize(link) {
        Ok(target) => target,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Entry::Skip(SkipReason::BrokenSymlink);
        }
        // A chain of links that never ends (ELOOP).
        Err(error) if error.raw_os_error() == Some(ELOOP) => {
            return Entry::Skip(SkipReason::SymlinkLoop);
        }
        Err(error) => return Entry::Skip(unreadable_reason(&error)),
    };
    if !target.starts_with(root) {
        return Entry::Skip(SkipReason::SymlinkOutsideRoot);
    }
    let metadata = match fs::metadata(&target) {
        Ok(metadata) => metadata,
        Err(error) => return Entry::Skip(unreadable_reason(&error)),
    };
    if metadata.is_dir() {
        let parent_canonical = parent.canonical.as_deref().unwrap_or(&parent.path);
        if parent_canonical.starts_with(&target) {
            return Entry::Skip(SkipReason::SymlinkLoop);
        }
        return Entry::Directory {
            canonical: Some(target),
        };
    }
    if metadata.is_file() {
        Entry::File {
            metadata,
            target: Some(target),
        }
    } else {
        Entry::Skip(SkipReason::NotRegular)
    }
}

/// `path` relative to `root`, `/`-separated; `None` outside it or when not UTF-8.
fn relative_to(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let segments: Option<Vec<&str>> = relative.iter().map(|s| s.to_str()).collect();
    Some(segments?.join("/")).filter(|joined| !joined.is_empty())
}

fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_owned()
    } else {
        let mut joined = String::with_capacity(parent.len() + 1 + name.len());
        joined.push_str(parent);
        joined.push('/');
        joined.push_str(name);
        joined
    }
}

fn unreadable(relative: &str, error: &std::io::Error) -> Skipped {
    let path = if relative.is_empty() {
        ".".to_owned()
    } else {
        relative.to_owned()
    };
    skipped(path, unreadable_reason(error))
}

fn unreadable_reason(error: &std::io::Error) -> SkipReason {
    SkipReason::Unreadable {
        error: error.to_string(),
    }
}
