//! The walk behind `list`. Directories are scanned by a few threads at once (listing a
//! large tree is mostly one `stat` per file, and the kernel serves those in parallel);
//! the listing comes in path order (each directory's entries ordered where it is scanned,
//! read off depth-first at the end), so it does not depend on which thread saw what.
//!
//! When the tree holds as many files as `max_files` or more, the parallel result is
//! dropped and the tree walked again on one thread, depth-first in name order: which
//! files make the cut must not depend on thread timing. Either way no recursion, so a
//! deep tree cannot overflow the call stack; symlinks are followed only inside the
//! root, and everything left out is reported with its reason.

mod kept;
mod order;
mod scan;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

use crate::stat::FileStat;
use crate::{ConnectorLimits, Inode, ListedFile, Listing, SkipReason, Skipped};
use order::{Entry, Scanned};
use scan::{Found, Pending, scan};

/// The most threads a walk uses.
const MAX_WALK_THREADS: usize = 4;

pub(crate) fn walk(
    root: &Path,
    root_inode: Inode,
    limits: &ConnectorLimits,
    forbidden: &[PathBuf],
) -> Listing {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_WALK_THREADS);
    let tree = Tree {
        root,
        root_inode,
        limits,
        forbidden,
    };
    let parallel = (threads > 1)
        .then(|| parallel_walk(&tree, threads))
        .flatten();
    // The parallel listing is assembled in path order: sorted already.
    parallel.unwrap_or_else(|| {
        let mut listing = sequential_walk(&tree);
        sort(&mut listing);
        listing
    })
}

/// The tree being walked.
pub(crate) struct Tree<'a> {
    pub(crate) root: &'a Path,
    root_inode: Inode,
    pub(crate) limits: &'a ConnectorLimits,
    /// Directories never entered and files never listed, wherever reached (canonical).
    forbidden: &'a [PathBuf],
}

impl Tree<'_> {
    pub(crate) fn has_forbidden(&self) -> bool {
        !self.forbidden.is_empty()
    }

    /// Whether `path` (where an entry really is) lies in a forbidden directory.
    pub(crate) fn is_forbidden(&self, path: &Path) -> bool {
        self.forbidden.iter().any(|dir| path.starts_with(dir))
    }

    /// A file within the size limit is listed; a larger one is reported.
    fn accept(
        &self,
        relative: String,
        stat: &FileStat,
        real_path: Option<String>,
    ) -> Result<ListedFile, Skipped> {
        let limit = self.limits.max_file_size;
        if stat.size > limit {
            let reason = SkipReason::TooLarge {
                size: stat.size,
                limit,
            };
            return Err(skipped(relative, reason));
        }
        let mut file = ListedFile::from_stat(relative, stat, self.root_inode);
        file.real_path = real_path;
        Ok(file)
    }
}

fn sort(listing: &mut Listing) {
    listing.files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    listing.skipped.sort_by(|a, b| a.path.cmp(&b.path));
}

/// Depth-first in name order on one thread, stopping at `max_files`.
fn sequential_walk(tree: &Tree<'_>) -> Listing {
    let (root, limits) = (tree.root, tree.limits);
    let mut listing = Listing::default();
    let mut stack = vec![Pending::root(root)];
    while let Some(directory) = stack.pop() {
        let mut children = Vec::new();
        for found in scan(&directory, tree, true) {
            match found {
                Found::Child(child) => children.push(child),
                Found::Skip(skipped) => listing.skipped.push(skipped),
                Found::File {
                    relative,
                    stat,
                    real_path,
                } => {
                    if listing.files.len() >= limits.max_files {
                        listing
                            .skipped
                            .push(skipped(relative, SkipReason::FileLimitReached));
                        return listing;
                    }
                    match tree.accept(relative, &stat, real_path) {
                        Ok(file) => listing.files.push(file),
                        Err(skipped) => listing.skipped.push(skipped),
                    }
                }
            }
        }
        // Reversed, so the stack pops children in name order.
        stack.extend(children.into_iter().rev());
    }
    listing
}

/// Directories shared between the threads, and how many threads are still working.
struct Queue {
    pending: Vec<Pending>,
    /// Threads not waiting for work (each may hold directories of its own).
    busy: usize,
}

/// What the walking threads share.
struct Shared<'a> {
    tree: &'a Tree<'a>,
    queue: Mutex<Queue>,
    wakeup: Condvar,
    /// Threads waiting for work: a thread with directories to spare shares them then.
    waiting: AtomicUsize,
    accepted: AtomicUsize,
    /// The next directory's id (the root's is 0): where its entries go in the listing.
    directories: AtomicUsize,
    /// Set once `max_files` is reached: the threads stop, the walk is redone in order.
    too_many: AtomicBool,
}

/// What one walking thread found: the directories it scanned, and what it left out.
#[derive(Default)]
struct Part {
    scanned: Scanned,
    skipped: Vec<Skipped>,
}

/// The whole tree on `threads` threads, or `None` when it holds `max_files` files or
/// more (then only the ordered walk knows which ones to keep).
fn parallel_walk(tree: &Tree<'_>, threads: usize) -> Option<Listing> {
    let shared = Shared {
        tree,
        queue: Mutex::new(Queue {
            pending: vec![Pending::root(tree.root)],
            busy: threads,
        }),
        wakeup: Condvar::new(),
        waiting: AtomicUsize::new(0),
        accepted: AtomicUsize::new(0),
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
    let (scanned, skipped): (Vec<_>, Vec<_>) = parts
        .into_iter()
        .map(|part| (part.scanned, part.skipped))
        .unzip();
    let mut skipped: Vec<Skipped> = skipped.into_iter().flatten().collect();
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    let directories = shared.directories.load(Ordering::Relaxed);
    let files = shared.accepted.load(Ordering::Relaxed);
    Some(Listing {
        files: order::assemble(scanned, directories, files),
        skipped,
    })
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
        let tree = test_tree(&root, &limits);
        let ordered = sorted(sequential_walk(&tree));
        for threads in [2, 3, 8] {
            let parallel = sorted(parallel_walk(&tree, threads).expect("under the limit"));
            assert_eq!(parallel, ordered, "{threads} threads");
        }
        assert!(ordered.files.len() > 300, "the linked folder is listed too");
    }

    #[test]
    fn the_parallel_listing_comes_sorted_by_path_without_a_final_sort() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        // Names that sort around `/` beside the directories `dN`: `dN.md/` and `dN-z`
        // before their files, `dN0/` after; half the `dN.md` files too large (skipped).
        for n in 0..300 {
            write(&root, &format!("d{}/e{}/f{n}.md", n % 7, n % 11), b"x");
            let size = if n % 2 == 0 { 1 } else { 200 };
            write(&root, &format!("d{}.md/x{n}", n % 5), &vec![0; size]);
            write(&root, &format!("d{}0/y{n}", n % 3), b"x");
            write(&root, &format!("d{}-z", n % 7), b"x");
        }
        let limits = ConnectorLimits {
            max_file_size: 100,
            ..ConnectorLimits::default()
        };
        let tree = test_tree(&root, &limits);
        for threads in [2, 3, 8] {
            let parallel = parallel_walk(&tree, threads).expect("under the limit");
            assert_eq!(parallel, sorted(parallel.clone()), "{threads} threads");
        }
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
                forbidden: &[],
            };
            assert!(parallel_walk(&tree, 2).is_none(), "{max_files}");
            let listing = walk(&root, root_inode, &limits, &[]);
            assert_eq!(listing, sorted(sequential_walk(&tree)));
        }
        let limits = ConnectorLimits {
            max_files: 21,
            ..ConnectorLimits::default()
        };
        assert_eq!(walk(&root, root_inode, &limits, &[]).files.len(), 20);
    }

    /// The tree at `root` with `limits` and nothing forbidden.
    fn test_tree<'a>(root: &'a Path, limits: &'a ConnectorLimits) -> Tree<'a> {
        Tree {
            root,
            root_inode: Inode::of(&std::fs::metadata(root).unwrap()),
            limits,
            forbidden: &[],
        }
    }
}
