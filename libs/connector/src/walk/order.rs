//! The parallel walk's listing in path order without sorting it. Each directory's few
//! entries are put in order where it is scanned, a subdirectory stands in its parent's
//! list for its own entries, and the listing is read off depth-first from the root.
//! Sorting the whole listing (each thread its part, then a merge of the parts) compared
//! every path about twenty times and moved each file as often; this moves each file
//! twice and compares only siblings (docs/decisions/sync.md, "`neuralis inspect`, fifth
//! round").

use std::cmp::Ordering;

use crate::ListedFile;

/// One entry of a scanned directory's listing.
pub(crate) enum Entry {
    File(ListedFile),
    /// A subdirectory, by the id the walk gave it.
    Directory(usize),
}

/// The directories one thread scanned: each one's id and its listing in path order.
pub(crate) type Scanned = Vec<(usize, Vec<Entry>)>;

/// How two entries of one directory are ordered so that the listing comes out in the
/// byte order of full paths: a directory sorts as its name followed by `/`, which is
/// where its files' paths (`name/...`) fall among its siblings' (`name.md` comes before
/// `name/x`, `name0` after it). Both paths have the directory's path as a prefix.
pub(crate) fn sibling_order(a: &str, a_is_dir: bool, b: &str, b_is_dir: bool) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let shorter = a.len().min(b.len());
    // Where the paths differ before either ends, that byte decides (a slash after a
    // directory's name comes later); else the byte after the shorter one's end, or
    // the slash after it when it is a directory, against the longer one's byte there.
    a[..shorter].cmp(&b[..shorter]).then_with(|| {
        let slash = |is_dir: bool| is_dir.then_some(b'/');
        let after_a = a.get(shorter).copied().or_else(|| slash(a_is_dir));
        let after_b = b.get(shorter).copied().or_else(|| slash(b_is_dir));
        after_a.cmp(&after_b)
    })
}

/// The files of every scanned directory in path order, read off depth-first from the
/// root (id 0). `directories` is one more than the largest id given, `files` how many
/// files there are (the listing's capacity). A directory no thread scanned (none, but
/// the walk does not rely on it) lists nothing.
pub(crate) fn assemble(parts: Vec<Scanned>, directories: usize, files: usize) -> Vec<ListedFile> {
    let mut listings: Vec<Vec<Entry>> = Vec::new();
    listings.resize_with(directories, Vec::new);
    for (id, entries) in parts.into_iter().flatten() {
        if let Some(slot) = listings.get_mut(id) {
            *slot = entries;
        }
    }
    let mut listing = Vec::with_capacity(files);
    let mut open = vec![take(&mut listings, 0)];
    while let Some(directory) = open.last_mut() {
        match directory.next() {
            Some(Entry::File(file)) => listing.push(file),
            Some(Entry::Directory(id)) => {
                let entries = take(&mut listings, id);
                open.push(entries);
            }
            None => {
                open.pop();
            }
        }
    }
    listing
}

fn take(listings: &mut [Vec<Entry>], id: usize) -> std::vec::IntoIter<Entry> {
    listings
        .get_mut(id)
        .map(std::mem::take)
        .unwrap_or_default()
        .into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Sorting siblings by `sibling_order` and reading the tree off depth-first gives
    /// the byte order of the full paths, whatever the names (`.`, `-` and `0` sort
    /// around `/`).
    fn in_path_order(paths: &[String]) -> Vec<String> {
        // Build the tree of `paths` as the walk would: one listing per directory.
        let mut directories: Vec<(String, Vec<(String, bool)>)> = vec![(String::new(), vec![])];
        for path in paths {
            let mut parent = 0;
            let mut at = String::new();
            let segments: Vec<&str> = path.split('/').collect();
            for (n, segment) in segments.iter().enumerate() {
                let child = if at.is_empty() {
                    (*segment).to_owned()
                } else {
                    format!("{at}/{segment}")
                };
                let is_dir = n + 1 < segments.len();
                let known = directories[parent].1.iter().any(|(p, _)| *p == child);
                if !known {
                    directories[parent].1.push((child.clone(), is_dir));
                    if is_dir {
                        directories.push((child.clone(), vec![]));
                    }
                }
                if is_dir {
                    parent = directories.iter().position(|(d, _)| *d == child).unwrap();
                }
                at = child;
            }
        }
        let ids: Vec<String> = directories.iter().map(|(d, _)| d.clone()).collect();
        let parts: Vec<Scanned> = directories
            .into_iter()
            .enumerate()
            .map(|(id, (_, mut entries))| {
                entries.sort_by(|a, b| sibling_order(&a.0, a.1, &b.0, b.1));
                let entries = entries
                    .into_iter()
                    .map(|(path, is_dir)| match is_dir {
                        true => Entry::Directory(ids.iter().position(|d| *d == path).unwrap()),
                        false => Entry::File(listed(&path)),
                    })
                    .collect();
                vec![(id, entries)]
            })
            .rev()
            .collect();
        assemble(parts, ids.len(), paths.len())
            .into_iter()
            .map(|file| file.path)
            .collect()
    }

    fn listed(path: &str) -> ListedFile {
        ListedFile {
            path: path.to_owned(),
            size: 0,
            modified: None,
            changed: None,
            identity: None,
            real_path: None,
        }
    }

    #[test]
    fn a_directory_sorts_among_its_siblings_as_its_name_and_a_slash() {
        let paths: Vec<String> = ["a.md", "a/x", "a-b", "a0", "ab/c/d", "ab/c.md", "a/b/c"]
            .map(str::to_owned)
            .to_vec();
        let mut expected = paths.clone();
        expected.sort();
        assert_eq!(in_path_order(&paths), expected);
    }

    proptest! {
        #[test]
        fn the_assembled_listing_is_in_the_byte_order_of_full_paths(
            names in proptest::collection::btree_set("[a0.-]{1,2}(/[a0.-]{1,2}){0,3}", 1..40)
        ) {
            // Names made of the characters that sort around `/`; a path that is also
            // another's directory is left out (a name is a file or a directory).
            let paths: Vec<String> = names
                .iter()
                .filter(|p| !p.split('/').any(|s| s == "." || s == ".."))
                .filter(|p| !names.iter().any(|q| q.starts_with(&format!("{p}/"))))
                .cloned()
                .collect();
            let mut expected = paths.clone();
            expected.sort();
            prop_assert_eq!(in_path_order(&paths), expected);
        }
    }
}
