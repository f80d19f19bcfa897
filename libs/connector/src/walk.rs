//! The walk behind `list`. Directories are scanned by a few threads at once (listing a
//! large tree is mostly one `stat` per file, and the kernel serves those in parallel);
//! the result is sorted by path, so it does not depend on which thread saw what.
//!
//! When the tree holds as many files as `max_files` or more, the parallel result is
//! dropped and the tree walked again on one thread, depth-first in name order: which
//! files make the cut must not depend on thread timing. Either way no recursion, so a
//! deep tree cannot overflow the call stack; symlinks are followed only inside the
//! root, and everything left out is reported with its reason.

mod scan;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

use crate::{ConnectorLimits, Inode, ListedFile, Listing, SkipReason, Skipped};
use scan::{Found, Pending, scan};

/// The most threads a walk uses.
const MAX_WALK_THREADS: usize = 4;

pub(crate) fn walk(root: &Path, root_inode: Inode, limits: &ConnectorLimits) -> Listing {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_WALK_THREADS);
    let tree = Tree {
        root,
        root_inode,
        limits,
    };
    let parallel = (threads > 1)
        .then(|| parallel_walk(&tree, threads))
        .flatten();
    let mut listing = parallel.unwrap_or_else(|| sequential_walk(&tree));
    listing.files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    listing.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    listing
}

/// The tree being walked.
struct Tree<'a> {
    root: &'a Path,
    root_inode: Inode,
    limits: &'a ConnectorLimits,
}

impl Tree<'_> {
    /// A file within the size limit is listed; a larger one is reported.
    fn accept(&self, listing: &mut Listing, relative: String, metadata: &std::fs::Metadata) {
        let limit = self.limits.max_file_size;
        if metadata.len() > limit {
            let reason = SkipReason::TooLarge {
                size: metadata.len(),
                limit,
            };
            listing.skipped.push(skipped(relative, reason));
        } else {
            let file = ListedFile::from_metadata(relative, metadata, self.root_inode);
            listing.files.push(file);
        }
    }
}

/// Depth-first in name order on one thread, stopping at `max_files`.
fn sequential_walk(tree: &Tree<'_>) -> Listing {
    let (root, limits) = (tree.root, tree.limits);
    let mut listing = Listing::default();
    let mut stack = vec![Pending::root(root)];
    while let Some(directory) = stack.pop() {
        let mut children = Vec::new();
        for found in scan(&directory, root, limits, true) {
            match found {
                Found::Child(child) => children.push(child),
                Found::Skip(skipped) => listing.skipped.push(skipped),
                Found::File { relative, metadata } => {
                    if listing.files.len() >= limits.max_files {
                        listing
                            .skipped
                            .push(skipped(relative, SkipReason::FileLimitReached));
                        return listing;
                    }
                    tree.accept(&mut listing, relative, &metadata);
                }
            }
        }
        // Reversed, so the stack pops children in name order.
        stack.extend(children.into_iter().rev());
    }
    listing
}

/// Directories waiting for a thread, and how many threads are inside one.
struct Queue {
    pending: Vec<Pending>,
    busy: usize,
}

/// What the walking threads share.
struct Shared<'a> {
    tree: &'a Tree<'a>,
    queue: Mutex<Queue>,
    wakeup: Condvar,
    accepted: AtomicUsize,
    /// Set once `max_files` is reached: the threads stop, the walk is redone in order.
    too_many: AtomicBool,
}

/// The whole tree on `threads` threads, or `None` when it holds `max_files` files or
/// more (then only the ordered walk knows which ones to keep).
fn parallel_walk(tree: &Tree<'_>, threads: usize) -> Option<Listing> {
    let shared = Shared {
        tree,
        queue: Mutex::new(Queue {
            pending: vec![Pending::root(tree.root)],
            busy: 0,
        }),
        wakeup: Condvar::new(),
        accepted: AtomicUsize::new(0),
        too_many: AtomicBool::new(false),
    };
    let parts: Vec<Listing> = std::thread::scope(|scope| {
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
    let mut listing = Listing::default();
    for part in parts {
        listing.files.extend(part.files);
        listing.skipped.extend(part.skipped);
    }
    Some(listing)
}

fn worker(shared: &Shared<'_>) -> Listing {
    let tree = shared.tree;
    let mut listing = Listing::default();
    while let Some(directory) = next_directory(shared) {
        let mut children = Vec::new();
        for found in scan(&directory, tree.root, tree.limits, false) {
            match found {
                Found::Child(child) => children.push(child),
                Found::Skip(skipped) => listing.skipped.push(skipped),
                Found::File { relative, metadata } => {
                    let fits = metadata.len() <= tree.limits.max_file_size;
                    if fits
                        && shared.accepted.fetch_add(1, Ordering::Relaxed) + 1
                            >= tree.limits.max_files
                    {
                        shared.too_many.store(true, Ordering::Relaxed);
                    }
                    tree.accept(&mut listing, relative, &metadata);
                }
            }
        }
        finish_directory(shared, children);
    }
    listing
}

/// The next directory to scan, or `None` when the walk is over (or abandoned).
fn next_directory(shared: &Shared<'_>) -> Option<Pending> {
    let mut queue = shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
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
            // Nothing queued and nobody scanning: nothing more will be queued.
            shared.wakeup.notify_all();
            return None;
        }
        queue = shared
            .wakeup
            .wait(queue)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

fn finish_directory(shared: &Shared<'_>, children: Vec<Pending>) {
    let mut queue = shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
    queue.busy -= 1;
    let woken = children.len();
    queue.pending.extend(children);
    drop(queue);
    if woken > 1 || shared.too_many.load(Ordering::Relaxed) {
        shared.wakeup.notify_all();
    } else {
        // One child (this thread takes it) or none (the last one out must wake the rest).
        shared.wakeup.notify_one();
    }
}

pub(crate) fn skipped(path: String, reason: SkipReason) -> Skipped {
    Skipped { path, reason }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn write(root: &Path, path: &str, content: &[u8]) {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }

    fn sorted(mut listing: Listing) -> Listing {
        listing.files.sort_by(|a, b| a.path.cmp(&b.path));
        listing.skipped.sort_by(|a, b| a.path.cmp(&b.path));
        listing
    }

    #[test]
    fn the_parallel_walk_lists_exactly_what_the_ordered_walk_lists() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for n in 0..300 {
            write(&root, &format!("d{}/e{}/f{n}.md", n % 7, n % 11), b"x");
        }
        write(&root, "big.bin", &[0; 200]);
        write(&root, ".git/config", b"x");
        write(&root, "deep/a/b/c/d.md", b"x");
        symlink(root.join("d1"), root.join("linked")).unwrap();
        symlink(outside.path(), root.join("escape")).unwrap();
        symlink(&root, root.join("d2/up")).unwrap();
        let limits = ConnectorLimits {
            max_file_size: 100,
            max_depth: 3,
            ..ConnectorLimits::default()
        };
        let root_inode = Inode::of(&std::fs::metadata(&root).unwrap());
        let tree = Tree {
            root: &root,
            root_inode,
            limits: &limits,
        };
        let ordered = sorted(sequential_walk(&tree));
        for threads in [2, 3, 8] {
            let parallel = sorted(parallel_walk(&tree, threads).expect("under the limit"));
            assert_eq!(parallel, ordered, "{threads} threads");
        }
        assert!(ordered.files.len() > 300, "the linked folder is listed too");
    }

    #[test]
    fn a_tree_at_the_file_limit_is_walked_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for n in 0..20 {
            write(&root, &format!("d{}/f{n:02}.md", n % 3), b"x");
        }
        let root_inode = Inode::of(&std::fs::metadata(&root).unwrap());
        for max_files in [5, 20] {
            let limits = ConnectorLimits {
                max_files,
                ..ConnectorLimits::default()
            };
            let tree = Tree {
                root: &root,
                root_inode,
                limits: &limits,
            };
            assert!(parallel_walk(&tree, 2).is_none(), "{max_files}");
            let listing = walk(&root, root_inode, &limits);
            assert_eq!(listing, sorted(sequential_walk(&tree)));
        }
        let limits = ConnectorLimits {
            max_files: 21,
            ..ConnectorLimits::default()
        };
        assert_eq!(walk(&root, root_inode, &limits).files.len(), 20);
    }
}
