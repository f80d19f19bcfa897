//! Connectors list, stat and read a source without ever leaving its root. A sync and
//! `ReadFile` see a source only through one.
//!
//! What cannot be indexed safely is skipped and reported, never fatal: symbolic links
//! that resolve outside the root or loop, files over the size limit, names that are
//! not UTF-8, and anything unreadable (DESIGN.md section 6).
//!
//! Calls are blocking file-system I/O: async callers go through
//! `tokio::task::spawn_blocking`.

mod local;

pub use local::LocalConnector;

/// A file as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStat {
    /// The path relative to the source root, `/`-separated.
    pub path: String,
    /// The size in bytes.
    pub size: u64,
    /// The last change, in ms since the Unix epoch (0 when unknown): the later of the
    /// modification time and the inode change time, so an edit that sets the mtime back
    /// is still a change.
    pub modified: i64,
    /// Which file the listing saw, when the connector can tell: lets
    /// [`Connector::read_listed`] read it again cheaply.
    pub identity: Option<neuralis_connector::FileIdentity>,
    /// When the file was reached through an in-root symlink: its real path relative to
    /// the root (access is decided under both names).
    pub real_path: Option<String>,
}

impl neuralis_sync_core::Listed for FileStat {
    fn path(&self) -> &str {
        &self.path
    }
    fn size(&self) -> u64 {
        self.size
    }
    fn modified(&self) -> i64 {
        self.modified
    }
    fn real_path(&self) -> Option<&str> {
        self.real_path.as_deref()
    }
}

/// Why a file was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// A symbolic link resolving outside the source root.
    SymlinkEscape,
    /// A symbolic link loop.
    SymlinkLoop,
    /// Larger than the configured maximum.
    TooLarge,
    /// A name that is not valid UTF-8.
    NonUtf8Name,
    /// Content the layout core reads (a contribution, a manifest) that is not UTF-8.
    NonUtf8Content,
    /// Could not be read (permissions, a dangling link, not a regular file).
    Unreadable,
    /// A directory never entered by configuration (`.git`).
    Excluded,
    /// A directory nested deeper than the connector's depth limit.
    TooDeep,
    /// The connector's file or entry limit was reached; later entries were not listed
    /// (the detail says which).
    FileLimitReached,
}

/// One skipped entry, reported in the sync run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The path relative to the source root (lossy for a non-UTF-8 name).
    pub path: String,
    /// Why it was skipped.
    pub reason: SkipReason,
    /// Details for people.
    pub detail: String,
}

/// What a listing found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    /// The files that can be indexed, ordered by path.
    pub files: Vec<FileStat>,
    /// What was skipped, and why.
    pub skipped: Vec<Skipped>,
}

/// Why a connector call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectorError {
    /// No such file in the source, or a path that would leave the root: the same
    /// answer for both.
    #[error("not found")]
    NotFound,
    /// A decided read found the file rewritten since its row: answered as `NotFound`
    /// to the caller, apart only so the service counts it and re-syncs the source.
    #[error("changed since indexed")]
    Changed,
    /// The source root itself cannot be reached.
    #[error("source root unavailable: {0}")]
    RootUnavailable(String),
}

/// Lists, stats and reads one source.
pub trait Connector: Send + Sync + 'static {
    /// Every file under the root that can be indexed, and what was skipped.
    fn list(&self) -> Result<Listing, ConnectorError>;
    /// One file's size and modification time.
    fn stat(&self, path: &str) -> Result<FileStat, ConnectorError>;
    /// One file's bytes (at most the size limit).
    fn read(&self, path: &str) -> Result<Vec<u8>, ConnectorError>;
    /// The bytes of a file this connector listed: the same answer as
    /// [`read`](Self::read), cheaper when the connector can prove it reads the file its
    /// listing saw.
    fn read_listed(&self, file: &FileStat) -> Result<Vec<u8>, ConnectorError> {
        self.read(&file.path)
    }
    /// The bytes a caller-facing read serves: `path` (the row's real path when it has
    /// one) opened without following any link, and only when its bytes are the ones
    /// whose fingerprint the reader decided on (`neuralis_connector::fingerprint`).
    /// No default: every connector must prove it, none may fall back to `read`.
    fn read_decided(&self, path: &str, fingerprint: u64) -> Result<Vec<u8>, ConnectorError>;
}
