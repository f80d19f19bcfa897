//! The local source connector: lists, stats and reads the files of a source directory
//! the way a sync does. Blocking I/O, no async; the sync service and the installed
//! package loader call it from a blocking context.
//!
//! It never leaves its root: symlinks are followed only while their target stays
//! inside the root (canonicalized and checked), and a path that escapes — through `..`
//! or a link — is not found. Whatever cannot be indexed (a link out of the root, a
//! loop, a file over the size limit, a non-UTF-8 name, an unreadable entry, a tree too
//! deep) is reported in the listing, never fatal.
#![forbid(unsafe_code)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod error;
mod resolve;
mod walk;

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use error::ConnectorError;

/// Bounds on what a connector lists and reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectorLimits {
    /// Files larger than this are skipped in a listing and refused by `read`.
    pub max_file_size: u64,
    /// The walk stops, and says so, after this many files.
    pub max_files: usize,
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
    limits: ConnectorLimits,
}

impl LocalConnector {
    /// A connector over `root`, which must be an existing directory.
    pub fn new(root: impl AsRef<Path>, limits: ConnectorLimits) -> Result<Self, ConnectorError> {
        let given = root.as_ref();
        let root = fs::canonicalize(given).map_err(|source| ConnectorError::Root {
            path: given.display().to_string(),
            source,
        })?;
        if !root.is_dir() {
            return Err(ConnectorError::Root {
                path: given.display().to_string(),
                source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory"),
            });
        }
        Ok(Self { root, limits })
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
        walk::walk(&self.root, &self.limits)
    }

    /// The size and modification time of one file. Missing, escaping or non-file
    /// paths are `NotFound`.
    pub fn stat(&self, path: &str) -> Result<ListedFile, ConnectorError> {
        let (_, metadata) = resolve::resolve_file(&self.root, path)?;
        Ok(ListedFile {
            path: path.to_owned(),
            size: metadata.len(),
            modified: metadata.modified().ok(),
        })
    }

    /// Reads one file whole, within the size limit. Missing, escaping or non-file paths
    /// are `NotFound`; the content is never read for them.
    pub fn read(&self, path: &str) -> Result<Vec<u8>, ConnectorError> {
        let (resolved, metadata) = resolve::resolve_file(&self.root, path)?;
        let limit = self.limits.max_file_size;
        let too_large = |size| ConnectorError::TooLarge {
            path: path.to_owned(),
            size,
            limit,
        };
        if metadata.len() > limit {
            return Err(too_large(metadata.len()));
        }
        let io = |source| ConnectorError::Io {
            path: path.to_owned(),
            source,
        };
        let file = fs::File::open(&resolved).map_err(io)?;
        let mut content = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
        // The file may grow between the stat and the read: never read past the limit.
        file.take(limit.saturating_add(1))
            .read_to_end(&mut content)
            .map_err(io)?;
        if content.len() as u64 > limit {
            return Err(too_large(content.len() as u64));
        }
        Ok(content)
    }
}
