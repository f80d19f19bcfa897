//! What a listing keeps of a file's status, from either source the walk has: std's
//! `Metadata` (a path stat'ed through the standard library) or a `statx` relative to
//! the directory being scanned (the walk's own directory reading, which skips the
//! extra `fstat` the C library's `opendir` makes of every directory). Both must give
//! the same figures for the same file: the sync's no-change re-sync compares them.

use std::fs;
use std::time::{Duration, SystemTime};

use rustix::fs::{Statx, StatxTimestamp};

use crate::Inode;

/// The size, times and identity of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStat {
    pub(crate) size: u64,
    pub(crate) modified: Option<SystemTime>,
    /// The inode change time; `None` before the epoch, as std's `ctime()` gives it.
    pub(crate) changed: Option<SystemTime>,
    pub(crate) inode: Inode,
}

impl FileStat {
    pub(crate) fn of(metadata: &fs::Metadata) -> Self {
        FileStat {
            size: metadata.len(),
            modified: metadata.modified().ok(),
            changed: change_time(metadata),
            inode: Inode::of(metadata),
        }
    }

    /// The same figures as [`of`](Self::of) would give for the file `statx` saw: std
    /// fills `Metadata` from `statx` too, with the device made the C library's way.
    pub(crate) fn from_statx(statx: &Statx) -> Self {
        FileStat {
            size: statx.stx_size,
            modified: Some(time(&statx.stx_mtime)),
            changed: u64::try_from(statx.stx_ctime.tv_sec)
                .ok()
                .and_then(|seconds| {
                    SystemTime::UNIX_EPOCH
                        .checked_add(Duration::new(seconds, statx.stx_ctime.tv_nsec))
                }),
            inode: Inode {
                device: rustix::fs::makedev(statx.stx_dev_major, statx.stx_dev_minor),
                inode: statx.stx_ino,
            },
        }
    }
}

/// A `statx` time as std's `Metadata::modified` gives it (seconds may be negative;
/// the nanoseconds always count forward).
fn time(timestamp: &StatxTimestamp) -> SystemTime {
    let seconds = Duration::from_secs(timestamp.tv_sec.unsigned_abs());
    let at = if timestamp.tv_sec >= 0 {
        SystemTime::UNIX_EPOCH + seconds
    } else {
        SystemTime::UNIX_EPOCH - seconds
    };
    at + Duration::from_nanos(u64::from(timestamp.tv_nsec))
}

/// The inode change time of `metadata`, where the platform keeps one.
fn change_time(metadata: &fs::Metadata) -> Option<SystemTime> {
    use std::os::unix::fs::MetadataExt;
    let seconds = u64::try_from(metadata.ctime()).ok()?;
    let nanos = u32::try_from(metadata.ctime_nsec()).ok()?;
    SystemTime::UNIX_EPOCH.checked_add(std::time::Duration::new(seconds, nanos))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::fs::{AtFlags, StatxFlags};

    #[test]
    fn a_statx_gives_the_figures_std_metadata_gives() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.md");
        std::fs::write(&path, b"some content").unwrap();
        // Before the epoch too: the mtime conversion handles negative seconds.
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(SystemTime::UNIX_EPOCH - Duration::new(5, 250))
            .unwrap();
        drop(file);
        let directory = rustix::fs::open(
            dir.path(),
            rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY,
            rustix::fs::Mode::empty(),
        )
        .unwrap();
        let statx = rustix::fs::statx(
            &directory,
            "f.md",
            AtFlags::SYMLINK_NOFOLLOW,
            StatxFlags::BASIC_STATS,
        )
        .unwrap();
        let metadata = std::fs::symlink_metadata(&path).unwrap();
        assert_eq!(FileStat::from_statx(&statx), FileStat::of(&metadata));
        assert!(FileStat::of(&metadata).modified < Some(SystemTime::UNIX_EPOCH));
    }
}
