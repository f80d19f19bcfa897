//! Scanning one directory: what each entry is (a file with its metadata, a directory to
//! enter, or something skipped with its reason), with symlinks followed only inside the
//! root. The ordered and the parallel walks share it.

use std::ffi::{CString, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{FileType, Mode, OFlags};

use super::classify::{Entry, Parent, classify, stat_at, unreadable_reason};
use super::entries::{DirEntry, NAMES, ReadError, entries_of};
use super::kept::KeptDir;
use super::{Tree, skipped};
use crate::stat::FileStat;
use crate::{Inode, SkipReason, Skipped};

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
    /// The parent's open descriptor and this directory's name in it, when the parent
    /// was kept open: then it is opened relative to it (no lookup from the root).
    at: Option<(Arc<KeptDir>, CString)>,
    /// Its id in the parallel walk, where its entries are put in the listing (the
    /// walk sets it; 0 for the root).
    pub(crate) id: usize,
    /// The identity it had when it was decided on (the root's when the connector was
    /// made; a child's when its parent was scanned), checked when it is opened by its
    /// path (`at` is `None`): a path is resolved again at open, so a link swapped in
    /// since would be followed anywhere. Opened relative to a kept parent, it needs
    /// none: `O_NOFOLLOW` refuses a link there.
    expected: Option<Inode>,
}

impl Pending {
    pub(crate) fn root(root: &Path, identity: Inode) -> Self {
        Pending {
            path: root.to_path_buf(),
            relative: String::new(),
            canonical: None,
            depth: 0,
            at: None,
            id: 0,
            expected: Some(identity),
        }
    }
}

/// The descriptor of the directory being scanned: its own, or kept for its children.
enum OpenDir {
    Owned(OwnedFd),
    Kept(Arc<KeptDir>),
}

impl OpenDir {
    /// Kept when some entry is a directory (and the bound allows), else owned.
    fn new(fd: OwnedFd, entries: &[DirEntry<'_>], directory: &Pending) -> Self {
        let subdirectories = entries
            .iter()
            .any(|entry| entry.file_type == FileType::Directory);
        if !subdirectories || directory.canonical.is_some() {
            return OpenDir::Owned(fd);
        }
        KeptDir::keep(fd).map_or_else(OpenDir::Owned, OpenDir::Kept)
    }

    fn fd(&self) -> BorrowedFd<'_> {
        match self {
            OpenDir::Owned(fd) => fd.as_fd(),
            OpenDir::Kept(kept) => kept.fd(),
        }
    }

    fn kept(&self) -> Option<&Arc<KeptDir>> {
        match self {
            OpenDir::Owned(_) => None,
            OpenDir::Kept(kept) => Some(kept),
        }
    }
}

/// One entry of a scanned directory.
pub(crate) enum Found {
    /// A regular file (or a link to one inside the root), not yet checked for size.
    File {
        relative: String,
        stat: FileStat,
        /// Its real path relative to the root, when it was reached through a link (the
        /// file itself or a directory on the way) and differs from `relative`.
        real_path: Option<String>,
    },
    /// A directory to enter.
    Child(Pending),
    /// Left out, with why.
    Skip(Skipped),
}

impl Found {
    /// The entry's path, and whether it is a directory: its place among its siblings.
    pub(crate) fn place(&self) -> (&str, bool) {
        match self {
            Found::File { relative, .. } => (relative, false),
            Found::Child(pending) => (&pending.relative, true),
            Found::Skip(skipped) => (&skipped.path, false),
        }
    }
}

/// The entries of `directory`, in name order when `sorted`.
pub(crate) fn scan(directory: &Pending, tree: &Tree<'_>, sorted: bool) -> Vec<Found> {
    NAMES.with_borrow_mut(|names| {
        let max = tree.limits.max_entries;
        let (fd, entries) = match read_entries(directory, sorted, names, max) {
            Ok(read) => read,
            Err(ReadError::Io(error)) => {
                return vec![Found::Skip(unreadable(&directory.relative, &error))];
            }
            Err(ReadError::TooMany) => {
                let path = shown_path(&directory.relative);
                return vec![Found::Skip(skipped(path, SkipReason::EntryLimitReached))];
            }
        };
        let dir = OpenDir::new(fd, &entries, directory);
        entries
            .into_iter()
            .map(|entry| found(&dir, entry, directory, tree))
            .collect()
    })
}

fn found(dir: &OpenDir, entry: DirEntry<'_>, directory: &Pending, tree: &Tree<'_>) -> Found {
    let (root, limits) = (tree.root, tree.limits);
    let name = OsStr::from_bytes(entry.name.to_bytes());
    let Some(name) = name.to_str() else {
        let lossy = join(&directory.relative, &name.to_string_lossy());
        return Found::Skip(skipped(lossy, SkipReason::NonUtf8Name));
    };
    let relative = join(&directory.relative, name);
    let parent = Parent {
        path: &directory.path,
        canonical: directory.canonical.as_deref(),
    };
    match classify(dir.fd(), &entry, name, tree.root, parent) {
        Entry::Skip(reason) => Found::Skip(skipped(relative, reason)),
        Entry::File { stat, target } => {
            // Where the file really is: the link's target, or its name under the real
            // directory when a link led here; `None` when nothing was followed.
            let real = target.or_else(|| {
                directory
                    .canonical
                    .as_ref()
                    .map(|canonical| canonical.join(name))
            });
            // Nothing to check (and no path to build) when nothing is forbidden.
            if tree.has_forbidden() {
                let at = real.clone().unwrap_or_else(|| directory.path.join(name));
                if tree.is_forbidden(&at) {
                    return Found::Skip(skipped(relative, SkipReason::Excluded));
                }
            }
            let real_path = real
                .and_then(|real| relative_to(root, &real))
                .filter(|real| *real != relative);
            Found::File {
                relative,
                stat,
                real_path,
            }
        }
        Entry::Directory {
            canonical,
            identity,
        } => {
            let path = directory.path.join(name);
            let real = canonical.as_ref().unwrap_or(&path);
            if tree.is_forbidden(real)
                || limits.excluded_dirs.iter().any(|excluded| excluded == name)
            {
                Found::Skip(skipped(relative, SkipReason::Excluded))
            } else if directory.depth + 1 > limits.max_depth {
                Found::Skip(skipped(relative, SkipReason::TooDeep))
            } else {
                let at = dir
                    .kept()
                    .filter(|_| opens_like_its_path(&entry, directory, &path))
                    .map(|kept| (Arc::clone(kept), entry.name.to_owned()));
                // Opened by its path later: what it is now, to check it is still that.
                let expected = match (&at, identity) {
                    (Some(_), _) => None,
                    (None, Some(identity)) => Some(identity),
                    (None, None) => match stat_at(dir.fd(), &entry) {
                        Ok(statx) => Some(FileStat::from_statx(&statx).inode),
                        Err(error) => {
                            return Found::Skip(skipped(relative, unreadable_reason(&error)));
                        }
                    },
                };
                Found::Child(Pending {
                    path,
                    relative,
                    canonical,
                    depth: directory.depth + 1,
                    at,
                    id: 0,
                    expected,
                })
            }
        }
    }
}

/// Whether opening the directory `entry` relative to its parent gives exactly what
/// opening `path` would: getdents said "directory" (a link is opened by its path), no
/// link was followed on the way (a path through more than 40 links fails), and `path`
/// is not too long for the system (the walk reports such a directory unreadable).
fn opens_like_its_path(entry: &DirEntry<'_>, parent: &Pending, path: &Path) -> bool {
    entry.file_type == FileType::Directory
        && parent.canonical.is_none()
        && path.as_os_str().len() < PATH_MAX
}

/// The longest path the system takes, its final NUL included.
const PATH_MAX: usize = 4096;

/// The directory's entries but `.` and `..` (their names copied into `names`), read
/// from a descriptor opened here and returned, so each file is stat'ed relative to it;
/// at most `max` entries (see [`entries_of`]).
fn read_entries<'a>(
    directory: &Pending,
    sorted: bool,
    names: &'a mut Vec<u8>,
    max: usize,
) -> Result<(OwnedFd, Vec<DirEntry<'a>>), ReadError> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NONBLOCK;
    let fd = match &directory.at {
        // Not following a link: the name was a directory when its parent was read, and
        // one swapped for a link since is refused rather than followed.
        Some((parent, name)) => rustix::fs::openat(
            parent.fd(),
            name.as_c_str(),
            flags | OFlags::NOFOLLOW,
            Mode::empty(),
        )
        .map_err(std::io::Error::from)?,
        None => {
            let fd = rustix::fs::open(&directory.path, flags, Mode::empty())
                .map_err(std::io::Error::from)?;
            if directory
                .expected
                .is_some_and(|expected| Inode::of_open(fd.as_fd()).ok() != Some(expected))
            {
                return Err(ReadError::Io(std::io::Error::other(
                    "replaced since it was listed: not the directory decided on",
                )));
            }
            fd
        }
    };
    let entries = entries_of(&fd, sorted, names, max)?;
    Ok((fd, entries))
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
    skipped(shown_path(relative), unreadable_reason(error))
}

/// A directory's path as a skipped entry names it: `.` for the root.
fn shown_path(relative: &str) -> String {
    if relative.is_empty() {
        ".".to_owned()
    } else {
        relative.to_owned()
    }
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
