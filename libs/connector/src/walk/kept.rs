//! Directory descriptors kept open while their subdirectories wait to be read, so each
//! subdirectory is opened relative to its parent (`openat`), bounded across the process.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};

/// The most directory descriptors the walks of this process keep open at once for
/// their subdirectories (a depth-first walk needs about one per level); past it, a
/// subdirectory is opened by its path, as the walk did before.
const KEPT_DIRECTORIES: usize = 64;

/// How many directory descriptors are kept now, across every walk of the process.
static KEPT: AtomicUsize = AtomicUsize::new(0);

/// A directory's descriptor kept open while its subdirectories wait to be read, so each
/// is opened relative to it instead of by its full path (one lookup, not one per
/// segment; docs/decisions/layout.md measures what that saves: little).
pub(crate) struct KeptDir(OwnedFd);

impl KeptDir {
    /// Keeps `fd` when the bound allows, else gives it back.
    pub(super) fn keep(fd: OwnedFd) -> Result<Arc<Self>, OwnedFd> {
        let taken = KEPT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |kept| {
            (kept < KEPT_DIRECTORIES).then_some(kept + 1)
        });
        match taken {
            Ok(_) => Ok(Arc::new(KeptDir(fd))),
            Err(_) => Err(fd),
        }
    }

    pub(super) fn fd(&self) -> BorrowedFd<'_> {
        self.0.as_fd()
    }
}

impl Drop for KeptDir {
    fn drop(&mut self) {
        KEPT.fetch_sub(1, Ordering::Relaxed);
    }
}
