//! A short blocking read run from async code: an embedded store's statement (a
//! project's sources, the access snapshot, the changes since a revision), which every
//! request or catch-up makes and which takes tens of microseconds.
//!
//! Sent to a blocking thread (`spawn_blocking`), such a read costs two thread wake-ups
//! on the request's path: the blocking thread's, then the waiting task's worker's. On a
//! virtual machine each costs about as much as the read (issue 31: a warm
//! `ListPackages` made 14 context switches where a no-op made 4). On a multi-thread
//! runtime the read runs here instead, on the calling worker, which first hands its
//! core (its queue of other tasks) to another thread (`block_in_place`): other tasks
//! keep running, and the wake-up that takes the core over is off this request's path.
//! A current-thread runtime cannot hand its only core over, so there the read goes to a
//! blocking thread as before.
//!
//! Whichever way it runs, a panic in the read is caught and answered as [`Stopped`],
//! as a blocking thread's would be: one read that fails never takes the request's
//! task, or the connection serving it, down with it. What runs concurrently *in the
//! same task* (the other branch of a `join!`) waits while the read runs here.
#![forbid(unsafe_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};

use tokio::runtime::{Handle, RuntimeFlavor};

/// The read panicked, or its blocking thread was stopped (the runtime shutting down).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the read stopped before it answered")
    }
}

impl std::error::Error for Stopped {}

/// Where [`run`] runs a read, decided by the runtime it is called on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// On the calling worker, its core handed to another thread meanwhile.
    InPlace,
    /// On a blocking thread, awaited.
    BlockingThread,
}

/// Where a read called from here runs: in place on a multi-thread runtime's thread,
/// on a blocking thread otherwise (a current-thread runtime; no runtime at all is the
/// caller's bug, and `spawn_blocking` panics on it as before).
pub fn place() -> Place {
    match Handle::try_current().map(|handle| handle.runtime_flavor()) {
        Ok(RuntimeFlavor::MultiThread) => Place::InPlace,
        _ => Place::BlockingThread,
    }
}

/// Runs `read`, a short blocking read, where [`place`] says, and answers what it
/// returned, or [`Stopped`] if it panicked.
pub async fn run<T, F>(read: F) -> Result<T, Stopped>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    match place() {
        Place::InPlace => tokio::task::block_in_place(|| catch_unwind(AssertUnwindSafe(read)))
            .map_err(|_| Stopped),
        Place::BlockingThread => tokio::task::spawn_blocking(read).await.map_err(|_| Stopped),
    }
}

#[cfg(test)]
mod tests;
