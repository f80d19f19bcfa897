//! The parallel walk: a few threads scan directories at once, each from a stack of
//! its own, sharing work only when a thread waits; each directory's entries are put in
//! order where it is scanned, for `order::assemble` to read off depth-first.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

use super::order::{self, Entry, Scanned};
use super::scan::{Found, Pending, scan};
use super::{Choose, Tree, Unordered};
use crate::{ListedFile, Skipped};

/// Directories shared between the threads, and how many threads are still working.
struct Queue {
    pending: Vec<Pending>,
    /// Threads not waiting for work (each may hold directories of its own).
    busy: usize,
}

/// What the walking threads share.
struct Shared<'a> {
    tree: &'a Tree<'a>,
    choose: &'a Choose<'a>,
    queue: Mutex<Queue>,
    wakeup: Condvar,
    /// Threads waiting for work: a thread with directories to spare shares them then.
    waiting: AtomicUsize,
    accepted: AtomicUsize,
    /// Entries of every kind found so far, against `max_entries`.
    entries: AtomicUsize,
    /// The next directory's id (the root's is 0): where its entries go in the listing.
    directories: AtomicUsize,
    /// Set once `max_files` or `max_entries` is reached: the threads stop, the walk is
    /// redone in order.
    too_many: AtomicBool,
}

/// What one walking thread found: the directories it scanned, what it left out, and
/// the files it picked.
#[derive(Default)]
struct Part {
    scanned: Scanned,
    skipped: Vec<Skipped>,
    chosen: Vec<ListedFile>,
}

/// The whole tree on `threads` threads, or `None` when it holds `max_files` files or
/// more, or more than `max_entries` entries (then only the ordered walk knows which
/// ones to keep); and the listed files `choose` picks.
pub(super) fn parallel_walk(
    tree: &Tree<'_>,
    threads: usize,
    choose: &Choose<'_>,
) -> Option<(Unordered, Vec<ListedFile>)> {
    let shared = Shared {
        tree,
        choose,
        queue: Mutex::new(Queue {
            pending: vec![Pending::root(tree.root, tree.root_inode)],
            busy: threads,
        }),
        wakeup: Condvar::new(),
        waiting: AtomicUsize::new(0),
        accepted: AtomicUsize::new(0),
        entries: AtomicUsize::new(0),
        directories: AtomicUsize::new(1),
        too_many: AtomicBool::new(false),
    };
    let parts: Vec<Part> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| scope.spawn(|| worker(&shared)))
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap_or_default())
            .collect()
    });
    if shared.too_many.load(Ordering::Relaxed) {
        return None;
    }
    let mut scanned = Vec::with_capacity(parts.len());
    let (mut skipped, mut chosen) = (Vec::new(), Vec::new());
    for part in parts {
        scanned.push(part.scanned);
        skipped.extend(part.skipped);
        chosen.extend(part.chosen);
    }
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    let unordered = Unordered::Scanned {
        scanned,
        directories: shared.directories.load(Ordering::Relaxed),
        files: shared.accepted.load(Ordering::Relaxed),
        skipped,
    };
    Some((unordered, chosen))
}

/// Scans directories depth-first from a stack of its own, taking from the shared
/// queue only when that stack is empty and giving to it only when a thread waits, so
/// the threads rarely touch the lock.
fn worker(shared: &Shared<'_>) -> Part {
    let tree = shared.tree;
    let mut part = Part::default();
    let mut own: Vec<Pending> = Vec::new();
    loop {
        let Some(directory) = own.pop().or_else(|| next_directory(shared)) else {
            return part;
        };
        let mut found = scan(&directory, tree, false);
        if shared.entries.fetch_add(found.len(), Ordering::Relaxed) + found.len()
            > tree.limits.max_entries
        {
            shared.too_many.store(true, Ordering::Relaxed);
            shared.wakeup.notify_all();
            return part;
        }
        found.sort_unstable_by(|a, b| {
            let (a, a_is_dir) = a.place();
            let (b, b_is_dir) = b.place();
            order::sibling_order(a, a_is_dir, b, b_is_dir)
        });
        let mut entries = Vec::with_capacity(found.len());
        for found in found {
            match found {
                Found::Child(mut child) => {
                    child.id = shared.directories.fetch_add(1, Ordering::Relaxed);
                    entries.push(Entry::Directory(child.id));
                    own.push(child);
                }
                Found::Skip(skipped) => part.skipped.push(skipped),
                Found::File {
                    relative,
                    stat,
                    real_path,
                } => match tree.accept(relative, &stat, real_path) {
                    Ok(file) => {
                        if shared.accepted.fetch_add(1, Ordering::Relaxed) + 1
                            >= tree.limits.max_files
                        {
                            shared.too_many.store(true, Ordering::Relaxed);
                        }
                        if (shared.choose)(&file.path) {
                            part.chosen.push(file.clone());
                        }
                        entries.push(Entry::File(file));
                    }
                    Err(skipped) => part.skipped.push(skipped),
                },
            }
        }
        part.scanned.push((directory.id, entries));
        if shared.too_many.load(Ordering::Relaxed) {
            shared.wakeup.notify_all();
            return part;
        }
        if own.len() > 1 && shared.waiting.load(Ordering::Relaxed) > 0 {
            share(shared, &mut own);
        }
    }
}

/// Gives the shallowest half of this thread's directories to the waiting threads.
fn share(shared: &Shared<'_>, own: &mut Vec<Pending>) {
    let given: Vec<Pending> = own.drain(..own.len() / 2).collect();
    let mut queue = shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
    queue.pending.extend(given);
    drop(queue);
    shared.wakeup.notify_all();
}

/// The next shared directory, or `None` when the walk is over (every thread out of
/// work and nothing queued) or abandoned.
fn next_directory(shared: &Shared<'_>) -> Option<Pending> {
    let mut queue = shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
    queue.busy -= 1;
    loop {
        if shared.too_many.load(Ordering::Relaxed) {
            shared.wakeup.notify_all();
            return None;
        }
        if let Some(directory) = queue.pending.pop() {
            queue.busy += 1;
            return Some(directory);
        }
        if queue.busy == 0 {
            shared.wakeup.notify_all();
            return None;
        }
        shared.waiting.fetch_add(1, Ordering::Relaxed);
        queue = shared
            .wakeup
            .wait(queue)
            .unwrap_or_else(PoisonError::into_inner);
        shared.waiting.fetch_sub(1, Ordering::Relaxed);
    }
}
