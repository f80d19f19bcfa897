//! A short blocking read run from async code: an embedded store's statement (a
//! project's sources, the access snapshot, the changes since a revision), which every
//! request or catch-up makes and which takes tens of microseconds.
//!
//! Sent to a blocking thread (`spawn_blocking`), such a read costs two thread wake-ups
//! on the request's path: the blocking thread's, then the waiting task's worker's. On a
//! virtual machine each costs about as much as the read (issue 31: a warm
//! `ListPackages` made 14 context switches where a no-op made 4). On a multi-thread
//! runtime the read runs here instead, on the calling worker:
//!
//! - **inline** ([`Place::Inline`]), the worker keeping its core, for a read of a few
//!   rows when no task waits in the runtime's global queue and fewer than all but one
//!   of its workers are inside such a read: no thread is woken at all. At least one
//!   worker is never inside a read, so the runtime always has a thread that runs new
//!   work and takes over the queues of the workers that are (issue 31, round 18: a
//!   warm `ListPackages` 13-16 % shorter than handing over);
//! - otherwise **handed over** ([`Place::HandedOver`]): the worker first hands its core
//!   (its queue of other tasks) to another thread (`block_in_place`), so other tasks
//!   keep running, and the wake-up that takes the core over is off this request's path.
//!   Under load (tasks waiting) this keeps both the read and the waiting tasks going:
//!   inline reads there cost `ActivateSkill` 8 % of its calls per second at 16 calls
//!   at once (`grpc-load`), the process using less CPU over the same run.
//!
//! A current-thread runtime has no other worker, so there the read goes to a blocking
//! thread as before.
//!
//! Whichever way it runs, a panic in the read is caught and answered as [`Stopped`],
//! as a blocking thread's would be: one read that fails never takes the request's
//! task, or the connection serving it, down with it. What runs concurrently *in the
//! same task* (the other branch of a `join!`) waits while the read runs here.
#![forbid(unsafe_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};

use tokio::runtime::{Handle, RuntimeFlavor};

mod inline;

use inline::InlineSlot;

/// The read panicked, or its blocking thread was stopped (the runtime shutting down).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the read stopped before it answered")
    }
}

impl std::error::Error for Stopped {}

/// Where [`run`] runs a read, decided by the runtime it is called on, whether tasks wait
/// in its global queue, and how many of its workers are inside a read already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// On the calling worker, which keeps its core (its queue of other tasks).
    Inline,
    /// On the calling worker, its core handed to another thread meanwhile.
    HandedOver,
    /// On a blocking thread, awaited.
    BlockingThread,
}

/// Where a read of `rows` called from here now would run (nothing is claimed: a read
/// started after this answers may find the inline slots taken by then).
pub fn place(rows: Rows) -> Place {
    match Claim::here(rows) {
        Claim::Inline(_slot) => Place::Inline,
        Claim::HandedOver => Place::HandedOver,
        Claim::BlockingThread => Place::BlockingThread,
    }
}

/// How many rows a read takes, which decides whether it may run inline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rows {
    /// A few rows, whatever the data: a project's sources, its access snapshot.
    Few,
    /// As many as the data holds: the changes since a revision (one file after a
    /// write, a whole source after its first sync). Never inline: a long read holds no
    /// queue of other tasks.
    AnyNumber,
}

/// Runs `read`, a blocking read of `rows`, where [`place`] says (never inline for
/// [`Rows::AnyNumber`]), and answers what it returned, or [`Stopped`] if it panicked.
pub async fn run<T, F>(rows: Rows, read: F) -> Result<T, Stopped>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    match Claim::here(rows) {
        Claim::Inline(slot) => {
            let answer = catch_unwind(AssertUnwindSafe(read)).map_err(|_| Stopped);
            drop(slot);
            answer
        }
        Claim::HandedOver => tokio::task::block_in_place(|| catch_unwind(AssertUnwindSafe(read)))
            .map_err(|_| Stopped),
        Claim::BlockingThread => tokio::task::spawn_blocking(read).await.map_err(|_| Stopped),
    }
}

/// A place decided for one read, holding its inline slot while the read runs.
enum Claim {
    Inline(InlineSlot),
    HandedOver,
    BlockingThread,
}

impl Claim {
    fn here(rows: Rows) -> Self {
        let Ok(handle) = Handle::try_current() else {
            // No runtime: the caller's bug; `spawn_blocking` panics on it as before.
            return Claim::BlockingThread;
        };
        match (handle.runtime_flavor(), rows) {
            (RuntimeFlavor::MultiThread, Rows::Few) => {
                let metrics = handle.metrics();
                // Tasks waiting (woken from other threads, or spawned): the core runs
                // them while the read runs on this thread.
                if metrics.global_queue_depth() > 0 {
                    return Claim::HandedOver;
                }
                let others = metrics.num_workers().saturating_sub(1);
                InlineSlot::claim(others).map_or(Claim::HandedOver, Claim::Inline)
            }
            (RuntimeFlavor::MultiThread, Rows::AnyNumber) => Claim::HandedOver,
            _ => Claim::BlockingThread,
        }
    }
}

#[cfg(test)]
mod tests;
