//! The walk behind `list`: depth-first over an explicit stack (no recursion, so a
//! deep tree cannot overflow the call stack), entries in name order, symlinks followed
//! only inside the root, everything left out reported with its reason.

use std::fs::{self, DirEntry, Metadata};
use std::path::{Path, PathBuf};

use crate::{ConnectorLimits, ListedFile, Listing, SkipReason, Skipped};

/// Linux's "too many levels of symbolic links" (`ErrorKind::FilesystemLoop` is not
/// stable yet).
const ELOOP: i32 = 40;

/// A directory waiting to be read.
struct Pending {
    /// The path the walk opens (through any followed links).
    path: PathBuf,
    /// Relative to the root, `/`-separated ("" for the root).
    relative: String,
    /// Where it really is, to detect a link back to an enclosing directory.
    canonical: PathBuf,
    depth: usize,
}

/// What one directory entry turned out to be.
enum Entry {
    Directory { canonical: PathBuf },
    File { metadata: Metadata },
    Skip(SkipReason),
}

pub(crate) fn walk(root: &Path, limits: &ConnectorLimits) -> Listing {
    let mut listing = Listing::default();
    let mut stack = vec![Pending {
        path: root.to_path_buf(),
        relative: String::new(),
        canonical: root.to_path_buf(),
        depth: 0,
    }];
    'walk: while let Some(directory) = stack.pop() {
        let entries = match read_sorted(&directory.path) {
            Ok(entries) => entries,
            Err(error) => {
                listing
                    .skipped
                    .push(unreadable(&directory.relative, &error));
                continue;
            }
        };
        let mut children = Vec::new();
        for entry in entries {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                let lossy = join(&directory.relative, &name.to_string_lossy());
                listing
                    .skipped
                    .push(skipped(lossy, SkipReason::NonUtf8Name));
                continue;
            };
            let relative = join(&directory.relative, name);
            match classify(&entry, root, &directory) {
                Entry::Skip(reason) => listing.skipped.push(skipped(relative, reason)),
                Entry::Directory { canonical } => {
                    if limits.excluded_dirs.iter().any(|excluded| excluded == name) {
                        listing
                            .skipped
                            .push(skipped(relative, SkipReason::Excluded));
                    } else if directory.depth + 1 > limits.max_depth {
                        listing.skipped.push(skipped(relative, SkipReason::TooDeep));
                    } else {
                        children.push(Pending {
                            path: directory.path.join(name),
                            relative,
                            canonical,
                            depth: directory.depth + 1,
                        });
                    }
                }
                Entry::File { metadata } => {
                    if listing.files.len() >= limits.max_files {
                        listing
                            .skipped
                            .push(skipped(relative, SkipReason::FileLimitReached));
                        break 'walk;
                    }
                    if metadata.len() > limits.max_file_size {
                        let reason = SkipReason::TooLarge {
                            size: metadata.len(),
                            limit: limits.max_file_size,
                        };
                        listing.skipped.push(skipped(relative, reason));
                    } else {
                        listing.files.push(ListedFile {
                            path: relative,
                            size: metadata.len(),
                            modified: metadata.modified().ok(),
                        });
                    }
                }
            }
        }
        // Reversed, so the stack pops children in name order.
        stack.extend(children.into_iter().rev());
    }
    listing.files.sort_by(|a, b| a.path.cmp(&b.path));
    listing.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    listing
}

fn read_sorted(directory: &Path) -> std::io::Result<Vec<DirEntry>> {
    let mut entries = fs::read_dir(directory)?.collect::<std::io::Result<Vec<_>>>()?;
    entries.sort_by_key(DirEntry::file_name);
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
            canonical: parent.canonical.join(entry.file_name()),
        };
    }
    if !file_type.is_file() {
        return Entry::Skip(SkipReason::NotRegular);
    }
    match entry.metadata() {
        Ok(metadata) => Entry::File { metadata },
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
        if parent.canonical.starts_with(&target) {
            return Entry::Skip(SkipReason::SymlinkLoop);
        }
        return Entry::Directory { canonical: target };
    }
    if metadata.is_file() {
        Entry::File { metadata }
    } else {
        Entry::Skip(SkipReason::NotRegular)
    }
}

fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_owned()
    } else {
        format!("{parent}/{name}")
    }
}

fn skipped(path: String, reason: SkipReason) -> Skipped {
    Skipped { path, reason }
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
