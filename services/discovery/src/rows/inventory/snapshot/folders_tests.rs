//! Files filed by folder as they come hold what one map of folders to files would,
//! in path order or any other (a folder's files interrupted by its subfolders').

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::rows::fixtures::row;
use crate::rows::inventory::snapshot::kept;

fn path() -> impl Strategy<Value = String> {
    // Folders nested in each other and beside names that sort between them
    // (`a-b` before `a/`), and the top folder.
    let folder = prop_oneof![
        Just(""),
        Just("a"),
        Just("a/b"),
        Just("a/b/c"),
        Just("a-b"),
        Just("a/b-c"),
        Just("ab"),
        Just("z"),
    ];
    // File names that sort before, between and after the subfolders (`b`, `b-c`).
    let name = prop_oneof![Just("a0"), Just("b"), Just("c1"), Just("z2"), Just("z3")];
    (folder, name).prop_map(|(folder, name)| match folder {
        "" => name.to_owned(),
        folder => format!("{folder}/{name}"),
    })
}

/// Each folder's (path, size) in order, as `others` holds them.
fn held(others: &Others) -> Vec<(String, Vec<(String, u64)>)> {
    others
        .iter()
        .map(|(folder, files)| {
            let files = files
                .iter()
                .map(|(p, k)| (p.clone(), k.facts.size))
                .collect();
            (folder.clone(), files)
        })
        .collect()
}

proptest! {
    /// In path order (as a fill sends them) and in any order: the same folders and
    /// files as a map of folders to maps of files, the later file of a path kept; in path
    /// order, with no folder closed twice.
    #[test]
    fn files_filed_by_folder_as_they_come_are_held_as_one_map_would(
        paths in prop::collection::vec((path(), 0u8..4), 0..60),
        sorted in any::<bool>(),
    ) {
        let mut sent: Vec<(String, Kept)> = paths
            .iter()
            .map(|(path, size)| kept(row(path, &"x".repeat(usize::from(*size)))))
            .collect();
        if sorted {
            sent.sort_by(|a, b| a.0.cmp(&b.0));
        }
        let mut model: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        let mut filed = ByFolder::default();
        for (path, kept) in sent {
            model
                .entry(parent(&path).to_owned())
                .or_default()
                .insert(path.clone(), kept.facts.size);
            filed.push(path, kept);
        }
        let expected: Vec<_> = model
            .into_iter()
            .map(|(folder, files)| (folder, files.into_iter().collect::<Vec<_>>()))
            .collect();
        if sorted {
            // In path order each folder is closed once, never merged.
            while !filed.open.is_empty() {
                filed.close_top();
            }
            let mut folders: Vec<&String> = filed.done.iter().map(|(f, _)| f).collect();
            folders.sort();
            let closed = folders.len();
            folders.dedup();
            prop_assert_eq!(folders.len(), closed);
        }
        prop_assert_eq!(held(&filed.finish()), expected);
    }
}
