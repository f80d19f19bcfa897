//! The one read every caller-facing path takes (ReadFile, Hydrate, ActivateSkill,
//! bundle entries): the file is opened so that what is read is provably the file whose
//! row was decided on, whatever the tree became since the sync.
//!
//! - No link is followed anywhere below the root: each directory is opened relative to
//!   its parent with `O_NOFOLLOW | O_DIRECTORY`, the file itself with `O_NOFOLLOW`
//!   (and `O_NONBLOCK`, so a fifo swapped in cannot stall the read). A file the sync
//!   reached through an in-root link is read through its recorded real path instead.
//! - The opened file must be a regular file within the size limit, outside every
//!   forbidden directory (exact lexically, since no link is followed).
//! - Its bytes must hash to the fingerprint the caller decided on. A fingerprint, not
//!   the device and inode: the bytes served are the bytes decided, so a file rewritten
//!   in place (same inode, new content) is refused as surely as a swapped one.
//!
//! Every refusal is `NotFound`, except a file that is there, plain, and changed since
//! its row: `Changed`, so the service can count it and re-sync (callers still see
//! NOT_FOUND for it).

use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{Mode, OFlags};

use crate::{ConnectorError, Inode, LocalConnector, digest, resolve};

/// Flags of every directory opened on the way down: never through a link.
fn directory_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// Flags of the file itself: not a link, never blocking, never a controlling terminal.
fn file_flags() -> OFlags {
    OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC
}

/// A path a decided read accepts: plain relative segments, no control character.
pub(crate) fn is_decidable(path: &str) -> bool {
    resolve::is_plain_relative(path) && !path.chars().any(char::is_control)
}

impl LocalConnector {
    /// Reads `path` only when it is, right now, a regular file reached without any
    /// link whose bytes hash to `expected` (see [`crate::fingerprint`]). `path` is the
    /// row's real path when the sync reached the file through an in-root link.
    ///
    /// Missing, escaping, linked, non-file, forbidden and too-large paths are
    /// `NotFound` (their content is never read); a plain file whose bytes differ is
    /// `Changed`. A fingerprint of 0 means "no decided row" and matches nothing.
    pub fn read_decided(&self, path: &str, expected: u64) -> Result<Vec<u8>, ConnectorError> {
        if expected == 0 {
            return Err(ConnectorError::NotFound {
                path: path.to_owned(),
            });
        }
        let content = self.read_beneath(path)?;
        if digest::fingerprint(&content) != expected {
            return Err(ConnectorError::Changed {
                path: path.to_owned(),
            });
        }
        Ok(content)
    }

    /// [`read_decided`](Self::read_decided) without the fingerprint, for directories
    /// the operator owns (installed packages): no link followed, a regular file within
    /// the size limit outside every forbidden directory, else `NotFound`. A file the
    /// listing reached through an in-root link is read at its real path.
    pub fn read_beneath(&self, path: &str) -> Result<Vec<u8>, ConnectorError> {
        let not_found = || ConnectorError::NotFound {
            path: path.to_owned(),
        };
        if !is_decidable(path) {
            return Err(not_found());
        }
        let full = self.root.join(path);
        if self.forbidden.iter().any(|dir| full.starts_with(dir)) {
            return Err(not_found());
        }
        let file = self.open_beneath(path).ok_or_else(not_found)?;
        let metadata = file.metadata().map_err(|_| not_found())?;
        if !metadata.is_file() || metadata.len() > self.limits.max_file_size {
            return Err(not_found());
        }
        // Bounded by the size limit + 1: a file that grew past it since is refused, and
        // like every other refusal here it is not found (no size or error told).
        self.read_open(path, file, metadata.len())
            .map_err(|_| not_found())
    }

    /// `path` opened below the root one segment at a time, no link followed; `None`
    /// when any segment is missing, a link, or (for all but the last) not a directory,
    /// or when the root directory itself was replaced since the connector was made.
    fn open_beneath(&self, path: &str) -> Option<File> {
        let root = File::from(rustix::fs::open(&self.root, directory_flags(), Mode::empty()).ok()?);
        if Inode::of(&root.metadata().ok()?) != self.root_inode {
            return None;
        }
        let mut directory: OwnedFd = root.into();
        let mut segments = path.split('/').peekable();
        while let Some(segment) = segments.next() {
            let name = Path::new(segment).as_os_str().as_bytes();
            if segments.peek().is_none() {
                // The caller checks the opened file's own type (fstat), not the name's.
                let file = rustix::fs::openat(directory.as_fd(), name, file_flags(), Mode::empty());
                return file.ok().map(File::from);
            }
            directory =
                rustix::fs::openat(directory.as_fd(), name, directory_flags(), Mode::empty())
                    .ok()?;
        }
        None
    }
}
