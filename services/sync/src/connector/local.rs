//! A directory on this host (`local`, `data` and `machine` sources), through the
//! shared `neuralis-connector`, which keeps every listing and read inside the root.

use super::{Connector, ConnectorError, FileStat, Listing, SkipReason, Skipped};
use neuralis_connector as shared;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A directory source.
#[derive(Debug, Clone)]
pub struct LocalConnector {
    inner: shared::LocalConnector,
}

impl LocalConnector {
    /// A connector for `root` (an existing directory); files over `max_file_size`
    /// bytes are skipped and never read.
    pub fn new(root: &Path, max_file_size: u64) -> Result<Self, ConnectorError> {
        Self::guarded(root, max_file_size, &[])
    }

    /// A connector that never lists nor reads anything inside `forbidden` (the
    /// server's data and key directories), even if the walk reaches them.
    pub fn guarded(
        root: &Path,
        max_file_size: u64,
        forbidden: &[PathBuf],
    ) -> Result<Self, ConnectorError> {
        let limits = shared::ConnectorLimits {
            max_file_size,
            ..shared::ConnectorLimits::default()
        };
        shared::LocalConnector::new(root, limits)
            .map(|inner| Self {
                inner: inner.with_forbidden(forbidden),
            })
            .map_err(|err| ConnectorError::RootUnavailable(err.to_string()))
    }
}

impl LocalConnector {
    /// The root as it was resolved when the connector was made: what it lists and reads.
    pub fn root(&self) -> &Path {
        self.inner.root()
    }
}

impl Connector for LocalConnector {
    fn list(&self) -> Result<Listing, ConnectorError> {
        let listing = self.inner.list();
        Ok(Listing {
            files: listing.files.into_iter().map(file_stat).collect(),
            skipped: listing.skipped.into_iter().map(skipped).collect(),
        })
    }

    fn stat(&self, path: &str) -> Result<FileStat, ConnectorError> {
        self.inner
            .stat(path)
            .map(file_stat)
            .map_err(|_| ConnectorError::NotFound)
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, ConnectorError> {
        // Missing, escaping, oversized and unreadable all answer alike (DESIGN.md 6).
        self.inner.read(path).map_err(|_| ConnectorError::NotFound)
    }

    fn read_listed(&self, file: &FileStat) -> Result<Vec<u8>, ConnectorError> {
        self.inner
            .read_identified(&file.path, file.identity)
            .map_err(|_| ConnectorError::NotFound)
    }

    fn read_decided(&self, path: &str, fingerprint: u64) -> Result<Vec<u8>, ConnectorError> {
        match self.inner.read_decided(path, fingerprint) {
            Ok(content) => Ok(content),
            Err(shared::ConnectorError::Changed { .. }) => Err(ConnectorError::Changed),
            Err(_) => Err(ConnectorError::NotFound),
        }
    }
}

fn file_stat(file: shared::ListedFile) -> FileStat {
    FileStat {
        path: file.path,
        size: file.size,
        // The later of mtime and ctime: an edit that restores size and mtime still
        // moves ctime, so the stat check examines the file (issue 10 item 5).
        modified: file.modified.max(file.changed).map_or(0, millis),
        identity: file.identity,
        real_path: file.real_path,
    }
}

fn millis(time: SystemTime) -> i64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| {
            i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
        })
}

fn skipped(entry: shared::Skipped) -> Skipped {
    let reason = match &entry.reason {
        shared::SkipReason::TooLarge { .. } => SkipReason::TooLarge,
        shared::SkipReason::SymlinkOutsideRoot => SkipReason::SymlinkEscape,
        shared::SkipReason::SymlinkLoop => SkipReason::SymlinkLoop,
        shared::SkipReason::NonUtf8Name => SkipReason::NonUtf8Name,
        shared::SkipReason::Excluded => SkipReason::Excluded,
        shared::SkipReason::TooDeep => SkipReason::TooDeep,
        // The proto's FILE_LIMIT: a walk limit; the detail tells which.
        shared::SkipReason::FileLimitReached | shared::SkipReason::EntryLimitReached => {
            SkipReason::FileLimitReached
        }
        shared::SkipReason::BrokenSymlink
        | shared::SkipReason::NotRegular
        | shared::SkipReason::Unreadable { .. } => SkipReason::Unreadable,
    };
    Skipped {
        detail: entry.reason.to_string(),
        path: entry.path,
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::symlink;

    fn reasons(listing: &Listing) -> Vec<(&str, SkipReason)> {
        listing
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason))
            .collect()
    }

    #[test]
    fn every_shared_skip_reason_maps_to_a_reported_one() {
        let outside = tempfile::tempdir().expect("tempdir");
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::write(root.join("ok.md"), "fine").expect("write");
        std::fs::write(root.join("big.md"), [b'x'; 65]).expect("write");
        symlink(outside.path(), root.join("escape")).expect("link");
        std::fs::create_dir(root.join("sub")).expect("mkdir");
        symlink(root, root.join("sub/up")).expect("link");
        symlink(root.join("nowhere"), root.join("dangling.md")).expect("link");
        std::fs::write(root.join(std::ffi::OsStr::from_bytes(b"bad\xff.md")), "x").expect("write");
        std::fs::create_dir(root.join(".git")).expect("mkdir");

        let listing = LocalConnector::new(root, 64)
            .expect("root")
            .list()
            .expect("list");
        let files: Vec<&str> = listing.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(files, ["ok.md"]);
        let mut found = reasons(&listing);
        found.sort_by(|a, b| a.0.cmp(b.0));
        assert_eq!(
            found,
            [
                (".git", SkipReason::Excluded),
                ("bad\u{fffd}.md", SkipReason::NonUtf8Name),
                ("big.md", SkipReason::TooLarge),
                ("dangling.md", SkipReason::Unreadable),
                ("escape", SkipReason::SymlinkEscape),
                ("sub/up", SkipReason::SymlinkLoop),
            ]
        );
        assert!(listing.files[0].modified > 0);
    }

    #[test]
    fn reads_outside_the_root_or_over_the_limit_are_not_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("big.md"), [b'x'; 65]).expect("write");
        let connector = LocalConnector::new(dir.path(), 64).expect("root");
        for path in ["big.md", "../etc/passwd", "/etc/passwd", "missing.md"] {
            assert_eq!(
                connector.read(path),
                Err(ConnectorError::NotFound),
                "{path}"
            );
        }
    }

    #[test]
    fn a_missing_root_is_unavailable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = LocalConnector::new(&dir.path().join("gone"), 64);
        assert!(matches!(missing, Err(ConnectorError::RootUnavailable(_))));
    }
}
