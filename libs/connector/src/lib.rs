//! The local source connector: lists, stats and reads the files of a source directory
//! the way a sync does. Blocking I/O, no async; the sync service and the installed
//! package loader call it from a blocking context.
//!
//! It never leaves its root: symlinks are followed only while their target stays
//! inside the root (canonicalized and checked), and a path that escapes — through `..`
//! or a link — is not found. Whatever cannot be indexed (a link out of the root, a
//! loop, a file over the size limit, a non-UTF-8 name, an unreadable entry, a tree too
//! deep) is reported in the listing, never fatal.
//!
//! What a caller is served is read another way, by [`LocalConnector::read_decided`]
//! only: no link followed at all, and only the bytes the caller's decision named.
#![forbid(unsafe_code)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod decided;
mod digest;
mod error;
mod resolve;
mod root;
mod stat;
mod walk;

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use digest::{content_hash, fingerprint, fingerprint_of_hash};
pub use error::ConnectorError;
use stat::FileStat;

/// Bounds on what a connector lists and reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectorLimits {
    /// Files larger than this are skipped in a listing and refused by `read`.
    pub max_file_size: u64,
    /// The walk stops, and says so, after this many files.
    pub max_files: usize,
    /// The walk stops, and says so, after this many entries of any kind: files listed,
    /// directories entered and entries left out. `max_files` alone let a tree of empty
    /// directories, broken links or fifos be walked and reported without bound. A
    /// directory holding more entries than this is left out whole.
    pub max_entries: usize,
    /// Directories deeper than this (in segments below the root) are skipped.
    pub max_depth: usize,
    /// Directory names never entered (reported once each).
    pub excluded_dirs: Vec<String>,
}

impl Default for ConnectorLimits {
    fn default() -> Self {
        Self {
            max_file_size: 4 * 1024 * 1024,
            max_files: 1_000_000,
            max_entries: 2_000_000,
            max_depth: 128,
            excluded_dirs: vec![".git".to_owned()],
        }
    }
}

/// A file found by a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedFile {
    /// Relative to the root, `/`-separated.
    pub path: String,
    pub size: u64,
    pub modified: Option<SystemTime>,
    /// The inode change time (ctime): moved by every write and by a rename onto the
    /// path, and never set back by a caller, unlike `modified` (`None` where the
    /// platform has none). A stat check that trusts size and mtime alone misses an edit
    /// that restores both; git compares ctime too.
    pub changed: Option<SystemTime>,
    /// Which file the listing saw, so [`LocalConnector::read_listed`] can read it
    /// again without resolving its path in user space (`None` when not known).
    pub identity: Option<FileIdentity>,
    /// When the file was reached through a symlink inside the root (the file itself or
    /// a directory on the way): its real path relative to the root, `/`-separated.
    pub real_path: Option<String>,
}

impl ListedFile {
    pub(crate) fn from_stat(path: String, stat: &FileStat, root: Inode) -> Self {
        ListedFile {
            path,
            size: stat.size,
            modified: stat.modified,
            changed: stat.changed,
            identity: Some(FileIdentity {
                root,
                file: stat.inode,
            }),
            real_path: None,
        }
    }
}

/// Which file a listing saw, and under which root: only the connector of that root
/// honours it, and only code of this crate can make one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileIdentity {
    root: Inode,
    file: Inode,
}

/// A device and inode: the same pair is the same file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Inode {
    device: u64,
    inode: u64,
}

impl Inode {
    /// The identity of what an open descriptor names (`fstat`).
    pub(crate) fn of_open(fd: rustix::fd::BorrowedFd<'_>) -> std::io::Result<Self> {
        let stat = rustix::fs::fstat(fd)?;
        Ok(Inode {
            device: stat.st_dev,
            inode: stat.st_ino,
        })
    }

    pub(crate) fn of(metadata: &fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        Inode {
            device: metadata.dev(),
            inode: metadata.ino(),
        }
    }
}

/// Why an entry was left out of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// Larger than `max_file_size`.
    TooLarge { size: u64, limit: u64 },
    /// A symlink whose target lies outside the root.
    SymlinkOutsideRoot,
    /// A symlink to a directory that encloses it: following it would never end.
    SymlinkLoop,
    /// A symlink whose target does not exist.
    BrokenSymlink,
    /// A name that is not UTF-8.
    NonUtf8Name,
    /// Not a regular file or directory (socket, fifo, device).
    NotRegular,
    /// A directory below `max_depth`.
    TooDeep,
    /// A directory named in `excluded_dirs`.
    Excluded,
    /// The walk reached `max_files`; entries after this one were not listed.
    FileLimitReached,
    /// The walk reached `max_entries` (after this entry nothing was listed), or this
    /// directory holds more entries than that and was not read.
    EntryLimitReached,
    /// The entry could not be read (permissions, a path too long for the system, ...).
    Unreadable { error: String },
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::TooLarge { size, limit } => {
                write!(f, "file of {size} bytes exceeds the {limit}-byte limit")
            }
            SkipReason::SymlinkOutsideRoot => f.write_str("symlink leads outside the source root"),
            SkipReason::SymlinkLoop => f.write_str("symlink loops back to an enclosing directory"),
            SkipReason::BrokenSymlink => f.write_str("symlink target does not exist"),
            SkipReason::NonUtf8Name => f.write_str("name is not UTF-8"),
            SkipReason::NotRegular => f.write_str("not a regular file or directory"),
            SkipReason::TooDeep => f.write_str("directory nested deeper than the depth limit"),
            SkipReason::Excluded => f.write_str("excluded directory"),
            SkipReason::FileLimitReached => {
                f.write_str("file limit reached; the rest was not listed")
            }
            SkipReason::EntryLimitReached => {
                f.write_str("entry limit reached (files, directories and entries left out); the rest was not listed")
            }
            SkipReason::Unreadable { error } => write!(f, "unreadable: {error}"),
        }
    }
}

/// An entry left out, with why. `path` is relative to the root, lossily decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: String,
    pub reason: SkipReason,
}

/// What a walk found, each list sorted by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    pub files: Vec<ListedFile>,
    pub skipped: Vec<Skipped>,
}

/// A source directory on the local filesystem.
#[derive(Debug, Clone)]
pub struct LocalConnector {
    root: PathBuf,
    /// The root directory's own identity, stamped on every listed file.
    root_inode: Inode,
    limits: ConnectorLimits,
    /// Directories never listed nor read, however reached (canonical).
    forbidden: Vec<PathBuf>,
}

impl LocalConnector {
    /// A connector over `root`, which must be an existing directory. Links on the way
    /// to it are resolved once, here ([`LocalConnector::root`] is the canonical path);
    /// the canonical path is then opened following no link at any of its names, and
    /// the root's identity taken from that open, not from the path: a link swapped in
    /// on the way after it was resolved names no directory this connector reads (every
    /// walk checks the root's identity on opening it).
    pub fn new(root: impl AsRef<Path>, limits: ConnectorLimits) -> Result<Self, ConnectorError> {
        let given = root.as_ref();
        let refused = |source: std::io::Error| ConnectorError::Root {
            path: given.display().to_string(),
            source,
        };
        let root = fs::canonicalize(given).map_err(refused)?;
        // ENOTDIR for a file or a link in the middle of the path, ELOOP for one at its
        // end, put there since it was resolved.
        let opened = root::open_without_links(&root).map_err(refused)?;
        let root_inode = Inode::of_open(rustix::fd::AsFd::as_fd(&opened)).map_err(refused)?;
        Ok(Self {
            root,
            root_inode,
            limits,
            forbidden: Vec::new(),
        })
    }

    /// The same connector, never listing nor reading anything inside `directories`
    /// (the server's data and keys), however a walk or a path reaches them. Each is
    /// canonicalized; one that does not exist holds nothing to protect yet, and is kept
    /// as given.
    pub fn with_forbidden(mut self, directories: &[PathBuf]) -> Self {
        self.forbidden = directories
            .iter()
            .map(|dir| fs::canonicalize(dir).unwrap_or_else(|_| dir.clone()))
            .collect();
        self
    }

    /// The canonical root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The limits in force.
    pub fn limits(&self) -> &ConnectorLimits {
        &self.limits
    }

    /// Walks the whole source, iteratively.
    pub fn list(&self) -> Listing {
        walk::walk(&self.tree())
    }

    /// Walks the whole source as [`list`](Self::list) does, picking on the walking
    /// threads the listed files `choose` accepts by path. As soon as the walk ends the
    /// picked files (in no set order) go to `on_chosen` on a thread of its own, while
    /// the listing is put in path order and handed to `on_listing` on this one:
    /// `neuralis inspect` reads the files grouping needs there, the two taking about
    /// as long, so on two cores neither waits for the other.
    pub fn list_choosing<T: Send, U>(
        &self,
        choose: impl Fn(&str) -> bool + Sync,
        on_chosen: impl FnOnce(Vec<ListedFile>) -> T + Send,
        on_listing: impl FnOnce(Listing) -> U,
    ) -> (U, T) {
        walk::walk_choosing(&self.tree(), &choose, on_chosen, on_listing)
    }

    fn tree(&self) -> walk::Tree<'_> {
        walk::Tree {
            root: &self.root,
            root_inode: self.root_inode,
            limits: &self.limits,
            forbidden: &self.forbidden,
        }
    }

    /// The size and modification time of one file. Missing, escaping or non-file
    /// paths are `NotFound`.
    pub fn stat(&self, path: &str) -> Result<ListedFile, ConnectorError> {
        let (_, metadata) = self.resolve(path)?;
        Ok(ListedFile::from_stat(
            path.to_owned(),
            &FileStat::of(&metadata),
            self.root_inode,
        ))
    }

    /// Reads one file whole, within the size limit. Missing, escaping or non-file paths
    /// are `NotFound`; the content is never read for them.
    pub fn read(&self, path: &str) -> Result<Vec<u8>, ConnectorError> {
        let (resolved, metadata) = self.resolve(path)?;
        self.check_size(path, metadata.len())?;
        let file = fs::File::open(&resolved).map_err(|source| io_error(path, source))?;
        // Resolved inside the root, then opened by that path again: a link swapped into
        // it between the two would be followed anywhere. Only the file resolved is read.
        let opened = file.metadata().map_err(|source| io_error(path, source))?;
        if Inode::of(&opened) != Inode::of(&metadata) {
            return Err(ConnectorError::NotFound {
                path: path.to_owned(),
            });
        }
        self.read_open(path, file, metadata.len())
    }

    /// Reads a file this connector listed, as [`read`](Self::read) would, but cheaply
    /// when it is still the file the listing saw: the path is opened as it stands
    /// (one `open`, no user-space resolution of each segment) and read only when the
    /// opened file has the listed device and inode, which proves it is the file the
    /// walk found inside the root, whatever links changed since. Anything else (a
    /// replaced file, a moved link, a listing from elsewhere) takes the careful path.
    pub fn read_listed(&self, listed: &ListedFile) -> Result<Vec<u8>, ConnectorError> {
        self.read_identified(&listed.path, listed.identity)
    }

    /// [`read_listed`](Self::read_listed) for a path and the identity its listing gave.
    pub fn read_identified(
        &self,
        path: &str,
        identity: Option<FileIdentity>,
    ) -> Result<Vec<u8>, ConnectorError> {
        if let Some(identity) = identity
            && identity.root == self.root_inode
            && resolve::is_plain_relative(path)
            && let Some((file, size)) = self.open_same(path, identity.file)
        {
            self.check_size(path, size)?;
            return self.read_open(path, file, size);
        }
        self.read(path)
    }

    /// `path` resolved inside the root and outside every forbidden directory.
    fn resolve(&self, path: &str) -> Result<(PathBuf, fs::Metadata), ConnectorError> {
        let (resolved, metadata) = resolve::resolve_file(&self.root, path)?;
        if self.forbidden.iter().any(|dir| resolved.starts_with(dir)) {
            return Err(ConnectorError::NotFound {
                path: path.to_owned(),
            });
        }
        Ok((resolved, metadata))
    }

    /// The file at `path` when it is the file `identity` names. Opened non-blocking, so
    /// a fifo swapped in since the listing cannot stall the read.
    fn open_same(&self, path: &str, identity: Inode) -> Option<(fs::File, u64)> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(self.root.join(path))
            .ok()?;
        let metadata = file.metadata().ok()?;
        (metadata.is_file() && Inode::of(&metadata) == identity).then_some((file, metadata.len()))
    }

    fn check_size(&self, path: &str, size: u64) -> Result<(), ConnectorError> {
        if size > self.limits.max_file_size {
            return Err(ConnectorError::TooLarge {
                path: path.to_owned(),
                size,
                limit: self.limits.max_file_size,
            });
        }
        Ok(())
    }

    fn read_open(&self, path: &str, file: fs::File, size: u64) -> Result<Vec<u8>, ConnectorError> {
        let limit = self.limits.max_file_size;
        // The file may grow between the stat and the read: never read past the limit.
        let mut file = file.take(limit.saturating_add(1));
        let expected = usize::try_from(size.min(limit)).unwrap_or(0);
        let mut content = vec![0; expected.saturating_add(1)];
        let first = read_once(&mut file, &mut content).map_err(|source| io_error(path, source))?;
        content.truncate(first);
        // A read of a regular file stops short only at its end, so a first read that
        // returns the very size the open file had holds all of it (one `read` a file
        // instead of two: the end-of-file probe was a third of the sync's reads). A
        // file that grew or shrank since reads on to its end.
        if first != 0 && first != expected {
            file.read_to_end(&mut content)
                .map_err(|source| io_error(path, source))?;
        }
        self.check_size(path, content.len() as u64)?;
        Ok(content)
    }
}

/// One `read`, retried when a signal interrupts it.
fn read_once(file: &mut impl Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match file.read(buffer) {
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            outcome => return outcome,
        }
    }
}

fn io_error(path: &str, source: std::io::Error) -> ConnectorError {
    ConnectorError::Io {
        path: path.to_owned(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::{ConnectorLimits, LocalConnector};

    /// A read takes the file as it is when read, whatever size the open file had at its
    /// stat: one that grew since is read to its new end, one that shrank to its
    /// shorter one, and one past the limit by then is refused.
    #[test]
    fn a_read_returns_the_whole_file_whatever_its_size_was_at_the_stat() {
        let dir = tempfile::tempdir().expect("tempdir");
        let limits = ConnectorLimits {
            max_file_size: 16,
            ..ConnectorLimits::default()
        };
        let connector = LocalConnector::new(dir.path(), limits).expect("connector");
        let path = dir.path().join("f.txt");
        for (content, size_at_stat) in [
            (&b"0123456789"[..], 10),
            (b"0123456789", 4),
            (b"0123456789", 0),
            (b"0123", 10),
            (b"", 0),
            (b"", 3),
            (b"0123456789abcdef", 16),
            (b"0123456789abcdef", 2),
        ] {
            std::fs::write(&path, content).expect("written");
            let file = std::fs::File::open(&path).expect("opens");
            let read = connector.read_open("f.txt", file, size_at_stat);
            assert_eq!(read.expect("reads"), content, "stat said {size_at_stat}");
        }
        std::fs::write(&path, b"0123456789abcdefX").expect("written");
        for size_at_stat in [0, 10, 16, 17] {
            let file = std::fs::File::open(&path).expect("opens");
            let read = connector.read_open("f.txt", file, size_at_stat);
            assert!(
                read.is_err(),
                "17 bytes past a 16-byte limit, stat said {size_at_stat}"
            );
        }
    }
}
