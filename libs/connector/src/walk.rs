//! The walk behind `list`. Directories are scanned by a few threads at once (listing a
//! large tree is mostly one `stat` per file, and the kernel serves those in parallel);
//! the listing comes in path order (each directory's entries ordered where it is scanned,
//! read off depth-first at the end), so it does not depend on which thread saw what.
//!
//! When the tree holds as many files as `max_files` or more, or more entries of any
//! kind than `max_entries`, the parallel result is dropped and the tree walked again on
//! one thread, depth-first in name order: which files make the cut must not depend on
//! thread timing. Either way no recursion, so a
//! deep tree cannot overflow the call stack; symlinks are followed only inside the
//! root, and everything left out is reported with its reason.
//!
//! A walk may also pick files by path as it lists them (`list_choosing`): the picked
//! ones are handed on as soon as the walk ends, before the listing is put in order.

mod classify;
mod entries;
mod kept;
mod order;
mod parallel;
mod scan;

use std::path::{Path, PathBuf};

use crate::stat::FileStat;
use crate::{ConnectorLimits, Inode, ListedFile, Listing, SkipReason, Skipped};
use order::Scanned;
use parallel::parallel_walk;
use scan::{Found, Pending, scan};

/// The most threads a walk uses.
const MAX_WALK_THREADS: usize = 4;

/// Which listed files a walk picks, by path.
pub(crate) type Choose<'a> = dyn Fn(&str) -> bool + Sync + 'a;

/// The whole tree, in path order.
pub(crate) fn walk(tree: &Tree<'_>) -> Listing {
    walk_unordered(tree, &|_| false).0.in_order()
}

/// The whole tree, the files `choose` picks going to `on_chosen` on a thread of its
/// own while the listing is put in order and handed to `on_listing` on this one.
pub(crate) fn walk_choosing<T: Send, U>(
    tree: &Tree<'_>,
    choose: &Choose<'_>,
    on_chosen: impl FnOnce(Vec<ListedFile>) -> T + Send,
    on_listing: impl FnOnce(Listing) -> U,
) -> (U, T) {
    let (unordered, chosen) = walk_unordered(tree, choose);
    std::thread::scope(|scope| {
        let chosen = scope.spawn(move || on_chosen(chosen));
        let listed = on_listing(unordered.in_order());
        // `on_chosen` panics only on a bug: the panic goes on, as it would have here.
        let chosen = chosen
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (listed, chosen)
    })
}

/// Walks on as many threads as make sense, or on one when the tree is at the file
/// limit, returning the files `choose` picked (in no set order).
fn walk_unordered(tree: &Tree<'_>, choose: &Choose<'_>) -> (Unordered, Vec<ListedFile>) {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_WALK_THREADS);
    let parallel = (threads > 1)
        .then(|| parallel_walk(tree, threads, choose))
        .flatten();
    parallel.unwrap_or_else(|| {
        let (listing, chosen) = sequential_walk(tree, choose);
        (Unordered::Listed(listing), chosen)
    })
}

/// A walk's result before its listing is in path order.
pub(crate) enum Unordered {
    /// The parallel walk's directories, to be read off depth-first.
    Scanned {
        scanned: Vec<Scanned>,
        /// One more than the largest directory id given.
        directories: usize,
        files: usize,
        /// In path order already.
        skipped: Vec<Skipped>,
    },
    /// The ordered walk's listing, in walk order.
    Listed(Listing),
}

impl Unordered {
    pub(crate) fn in_order(self) -> Listing {
        match self {
            // Assembled in path order: sorted already.
            Unordered::Scanned {
                scanned,
                directories,
                files,
                skipped,
            } => Listing {
                files: order::assemble(scanned, directories, files),
                skipped,
            },
            Unordered::Listed(mut listing) => {
                sort(&mut listing);
                listing
            }
        }
    }
}

/// The tree being walked.
pub(crate) struct Tree<'a> {
    pub(crate) root: &'a Path,
    pub(crate) root_inode: Inode,
    pub(crate) limits: &'a ConnectorLimits,
    /// Directories never entered and files never listed, wherever reached (canonical).
    pub(crate) forbidden: &'a [PathBuf],
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

/// Depth-first in name order on one thread, stopping at `max_files` files or
/// `max_entries` entries; and the listed files `choose` picks.
fn sequential_walk(tree: &Tree<'_>, choose: &Choose<'_>) -> (Listing, Vec<ListedFile>) {
    let (root, limits) = (tree.root, tree.limits);
    let mut listing = Listing::default();
    let mut chosen = Vec::new();
    let mut stack = vec![Pending::root(root, tree.root_inode)];
    let mut entries = 0_usize;
    while let Some(directory) = stack.pop() {
        let mut children = Vec::new();
        for found in scan(&directory, tree, true) {
            entries += 1;
            if entries > limits.max_entries {
                let path = found.place().0.to_owned();
                let reason = SkipReason::EntryLimitReached;
                listing.skipped.push(skipped(path, reason));
                return (listing, chosen);
            }
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
                        return (listing, chosen);
                    }
                    match tree.accept(relative, &stat, real_path) {
                        Ok(file) => {
                            if choose(&file.path) {
                                chosen.push(file.clone());
                            }
                            listing.files.push(file);
                        }
                        Err(skipped) => listing.skipped.push(skipped),
                    }
                }
            }
        }
        // Reversed, so the stack pops children in name order.
        stack.extend(children.into_iter().rev());
    }
    (listing, chosen)
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
        let ordered = sorted(sequential_walk(&tree, &|_| false).0);
        for threads in [2, 3, 8] {
            let parallel = sorted(parallel_listing(&tree, threads).expect("under the limit"));
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
            let parallel = parallel_listing(&tree, threads).expect("under the limit");
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
            assert!(parallel_listing(&tree, 2).is_none(), "{max_files}");
            assert_eq!(walk(&tree), sorted(sequential_walk(&tree, &|_| false).0));
        }
        let limits = ConnectorLimits {
            max_files: 21,
            ..ConnectorLimits::default()
        };
        assert_eq!(walk(&test_tree(&root, &limits)).files.len(), 20);
    }

    /// Files picked as a walk lists them: every listed `.md` file outside `d1`.
    fn choose(path: &str) -> bool {
        path.ends_with(".md") && !path.starts_with("d1/")
    }

    #[test]
    fn the_chosen_files_are_exactly_the_listed_files_the_choice_picks() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for n in 0..200 {
            let ext = if n % 3 == 0 { "txt" } else { "md" };
            write(&root, &format!("d{}/e{}/f{n}.{ext}", n % 5, n % 4), b"x");
        }
        write(&root, "big.md", &[0; 200]);
        // 200 files and big.md (skipped): the parallel walk, and twice the file limit
        // reached, so the ordered walk (which stops at the limit) chooses.
        for max_files in [1_000, 120, 7] {
            let limits = ConnectorLimits {
                max_file_size: 100,
                max_files,
                ..ConnectorLimits::default()
            };
            let tree = test_tree(&root, &limits);
            let (listing, mut chosen) =
                walk_choosing(&tree, &choose, |chosen| chosen, |listing| listing);
            chosen.sort_by(|a, b| a.path.cmp(&b.path));
            let expected: Vec<ListedFile> = listing
                .files
                .iter()
                .filter(|file| choose(&file.path))
                .cloned()
                .collect();
            assert!(!expected.is_empty(), "{max_files}");
            assert_eq!(chosen, expected, "{max_files}");
            assert_eq!(listing, walk(&tree), "{max_files}: the same listing");
        }
    }

    #[test]
    fn every_walk_chooses_the_same_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for n in 0..300 {
            write(&root, &format!("d{}/e{}/f{n}.md", n % 7, n % 11), b"x");
        }
        let limits = ConnectorLimits::default();
        let tree = test_tree(&root, &limits);
        let paths = |mut files: Vec<ListedFile>| {
            files.sort_by(|a, b| a.path.cmp(&b.path));
            files.into_iter().map(|file| file.path).collect::<Vec<_>>()
        };
        let ordered = paths(sequential_walk(&tree, &choose).1);
        assert_eq!(ordered.len(), 300 - 43, "d1 holds 43 of the 300");
        for threads in [2, 3, 8] {
            let (_, chosen) = parallel_walk(&tree, threads, &choose).expect("under the limit");
            assert_eq!(paths(chosen), ordered, "{threads} threads");
        }
    }

    /// The parallel walk's listing, in order, or `None` at the file limit.
    fn parallel_listing(tree: &Tree<'_>, threads: usize) -> Option<Listing> {
        parallel_walk(tree, threads, &|_| false).map(|(unordered, _)| unordered.in_order())
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
