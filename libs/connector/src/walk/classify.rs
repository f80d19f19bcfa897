//! What one directory entry is (a file with its status, a directory to enter, or
//! something left out with why), links followed only inside the root: the scan's
//! classification, apart from its bookkeeping.

use std::fs;
use std::path::{Path, PathBuf};

use rustix::fd::BorrowedFd;
use rustix::fs::{AtFlags, FileType, StatxFlags};

use super::entries::DirEntry;
use crate::stat::FileStat;
use crate::{Inode, SkipReason};

/// Linux's "too many levels of symbolic links" (`ErrorKind::FilesystemLoop` is not
/// stable yet).
const ELOOP: i32 = 40;

/// The directory an entry was read from: the path the walk opened it by, and where it
/// really is when a link was followed on the way.
#[derive(Clone, Copy)]
pub(super) struct Parent<'a> {
    pub(super) path: &'a Path,
    pub(super) canonical: Option<&'a Path>,
}

/// What one directory entry turned out to be.
pub(super) enum Entry {
    /// A directory; `canonical` and the target's `identity` when reached through a
    /// link.
    Directory {
        canonical: Option<PathBuf>,
        identity: Option<Inode>,
    },
    File {
        stat: FileStat,
        /// Where it really is, when it is a link.
        target: Option<PathBuf>,
    },
    Skip(SkipReason),
}

/// The entry's own status (a link is not followed), relative to its directory.
pub(super) fn stat_at(
    fd: BorrowedFd<'_>,
    entry: &DirEntry<'_>,
) -> std::io::Result<rustix::fs::Statx> {
    Ok(rustix::fs::statx(
        fd,
        entry.name,
        AtFlags::SYMLINK_NOFOLLOW,
        StatxFlags::BASIC_STATS,
    )?)
}

pub(super) fn classify(
    fd: BorrowedFd<'_>,
    entry: &DirEntry<'_>,
    name: &str,
    root: &Path,
    parent: Parent<'_>,
) -> Entry {
    // The type getdents gave; a filesystem that gives none is asked with a stat, as
    // std does.
    let mut statx = None;
    let file_type = match entry.file_type {
        FileType::Unknown => match stat_at(fd, entry) {
            Ok(found) => {
                let file_type = FileType::from_raw_mode(found.stx_mode.into());
                statx = Some(found);
                file_type
            }
            Err(error) => return Entry::Skip(unreadable_reason(&error)),
        },
        known => known,
    };
    if file_type == FileType::Symlink {
        return follow_link(&parent.path.join(name), root, parent);
    }
    if file_type == FileType::Directory {
        return Entry::Directory {
            canonical: parent.canonical.map(|canonical| canonical.join(name)),
            identity: None,
        };
    }
    if file_type != FileType::RegularFile {
        return Entry::Skip(SkipReason::NotRegular);
    }
    match statx.map_or_else(|| stat_at(fd, entry), Ok) {
        Ok(statx) => Entry::File {
            stat: FileStat::from_statx(&statx),
            target: None,
        },
        Err(error) => Entry::Skip(unreadable_reason(&error)),
    }
}

/// A link is followed only when its canonical target is inside the root, and a link
/// to a directory only when that directory does not enclose the link.
fn follow_link(link: &Path, root: &Path, parent: Parent<'_>) -> Entry {
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
        let parent_canonical = parent.canonical.unwrap_or(parent.path);
        if parent_canonical.starts_with(&target) {
            return Entry::Skip(SkipReason::SymlinkLoop);
        }
        return Entry::Directory {
            canonical: Some(target),
            identity: Some(Inode::of(&metadata)),
        };
    }
    if metadata.is_file() {
        Entry::File {
            stat: FileStat::of(&metadata),
            target: Some(target),
        }
    } else {
        Entry::Skip(SkipReason::NotRegular)
    }
}

pub(super) fn unreadable_reason(error: &std::io::Error) -> SkipReason {
    SkipReason::Unreadable {
        error: error.to_string(),
    }
}
