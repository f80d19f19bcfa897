//! One load per real file (issue 27): a file the walk reached through an in-root link
//! is an alias of its real path, and each real file loads at most once per source.
#![allow(clippy::unwrap_used)]

mod support;

use std::collections::{BTreeMap, HashMap};

use neuralis_layout::{GroupOptions, IndexedFile, Layout, group};
use proptest::prelude::*;
use support::*;

const SKILL: &str = "---\nname: s\ndescription: d\n---\nbody\n";

/// A row reached through a link: `path` is an alias of `real`.
fn alias(path: &str, real: &str, content: &str) -> IndexedFile {
    row(path, content).with_real_path(Some(real.to_owned()))
}

fn synced(rows: &[IndexedFile]) -> Layout {
    group(rows, &GroupOptions::synced("source"))
}

fn contribution_paths(layout: &Layout) -> Vec<&str> {
    let mut paths: Vec<&str> = layout
        .packages
        .iter()
        .flat_map(|p| p.files.iter().map(|f| f.path.as_str()))
        .collect();
    paths.sort_unstable();
    paths
}

/// `.agents/skills -> ../skills`: the real skills load in the source-root package, the
/// linked tool folder forms no package, and each alias is reported with where it loads.
#[test]
fn a_skill_folder_linked_into_a_tool_directory_loads_once_at_its_real_path() {
    let rows = [
        row("skills/a/SKILL.md", SKILL),
        row("skills/a/scripts/run.sh", ""),
        row("skills/b/SKILL.md", SKILL),
        alias(".agents/skills/a/SKILL.md", "skills/a/SKILL.md", SKILL),
        alias(
            ".agents/skills/a/scripts/run.sh",
            "skills/a/scripts/run.sh",
            "",
        ),
        alias(".agents/skills/b/SKILL.md", "skills/b/SKILL.md", SKILL),
    ];
    let layout = synced(&rows);
    assert_eq!(
        contribution_paths(&layout),
        ["skills/a/SKILL.md", "skills/b/SKILL.md"]
    );
    assert_eq!(roots(&layout).len(), 1, "{:#?}", roots(&layout));
    let aliases: Vec<(&str, &str)> = layout
        .aliases
        .iter()
        .map(|a| (a.path.as_str(), a.loads_at.as_str()))
        .collect();
    assert_eq!(
        aliases,
        [
            (".agents/skills/a/SKILL.md", "skills/a/SKILL.md"),
            (".agents/skills/b/SKILL.md", "skills/b/SKILL.md"),
        ]
    );
    assert_eq!(
        contribution(&layout, "skills/a/SKILL.md").bundle,
        ["SKILL.md", "scripts/run.sh"]
    );
}

/// A real file in no recognized location (a stray note) reached through two links into
/// tool folders: the first alias in path order loads, the other is an alias of it.
#[test]
fn where_only_an_alias_is_recognized_the_first_alias_in_path_order_loads() {
    let rows = [
        row("notes/style.md", NAMED),
        alias(".github/rules/style.md", "notes/style.md", NAMED),
        alias(".claude/rules/style.md", "notes/style.md", NAMED),
    ];
    let layout = synced(&rows);
    assert_eq!(contribution_paths(&layout), [".claude/rules/style.md"]);
    assert_eq!(layout.aliases.len(), 1);
    assert_eq!(layout.aliases[0].path, ".github/rules/style.md");
    assert_eq!(layout.aliases[0].loads_at, ".claude/rules/style.md");
}

/// `.claude-plugin/plugins -> ../plugins`: a package root and its manifest reached
/// through a linked directory form no second package.
#[test]
fn a_package_root_reached_through_a_linked_directory_forms_no_second_package() {
    let rows = [
        row("plugins/helper/package.json", NEURALIS_PACKAGE),
        row("plugins/helper/skills/deploy/SKILL.md", SKILL),
        alias(
            "vendored/helper/package.json",
            "plugins/helper/package.json",
            NEURALIS_PACKAGE,
        ),
        alias(
            "vendored/helper/skills/deploy/SKILL.md",
            "plugins/helper/skills/deploy/SKILL.md",
            SKILL,
        ),
    ];
    let layout = synced(&rows);
    assert_eq!(
        contribution_paths(&layout),
        ["plugins/helper/skills/deploy/SKILL.md"]
    );
    assert_eq!(package(&layout, "plugins/helper").files.len(), 1);
}

/// A link inside a real skill's folder is bundle content of that skill: it is still
/// listed in `files[]`, and the skill loads once.
#[test]
fn a_linked_folder_inside_a_real_skill_is_still_in_its_bundle() {
    let rows = [
        row("skills/a/SKILL.md", SKILL),
        row("shared/run.sh", ""),
        alias("skills/a/scripts/run.sh", "shared/run.sh", ""),
    ];
    let layout = synced(&rows);
    assert_eq!(contribution_paths(&layout), ["skills/a/SKILL.md"]);
    assert_eq!(
        contribution(&layout, "skills/a/SKILL.md").bundle,
        ["SKILL.md", "scripts/run.sh"]
    );
}

// ---- the property over random trees with random in-root links ----

const DIRS: [&str; 10] = [
    "a", "b", ".claude", ".agents", "skills", "rules", "agents", "pkg", "s1", "scripts",
];
const FILES: [&str; 6] = [
    "SKILL.md",
    "x.md",
    "AGENTS.md",
    "r.agent.md",
    "package.json",
    "run.sh",
];
const CONTENTS: [&str; 3] = [NAMED, PLAIN, NEURALIS_PACKAGE];

fn dirs(max: usize) -> impl Strategy<Value = Vec<&'static str>> {
    proptest::collection::vec(proptest::sample::select(&DIRS[..]), 0..max)
}

fn real_tree() -> impl Strategy<Value = BTreeMap<String, &'static str>> {
    let file = (
        dirs(4),
        proptest::sample::select(&FILES[..]),
        proptest::sample::select(&CONTENTS[..]),
    )
        .prop_map(|(mut parts, file, content)| {
            parts.push(file);
            (parts.join("/"), content)
        });
    proptest::collection::vec(file, 1..30).prop_map(|files| files.into_iter().collect())
}

/// A link: where it sits, and what it points at (a file or a folder, possibly another
/// link, possibly an enclosing folder: a cycle the walk skips).
fn links() -> impl Strategy<Value = Vec<(String, String)>> {
    proptest::collection::vec((link_end(), link_end()), 0..5)
}

fn link_end() -> impl Strategy<Value = String> {
    (dirs(3), proptest::sample::select(&DIRS[..])).prop_map(|(mut parts, last)| {
        parts.push(last);
        parts.join("/")
    })
}

fn under(path: &str, dir: &str) -> bool {
    path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/'
}

/// The rows a walk of the real tree with these links lists, as the connector does:
/// a file reached through a link carries its real path; a link inside a real folder
/// or pointing at a folder enclosing it is skipped; chains resolve to the real file.
fn walk(real: &BTreeMap<String, &'static str>, links: &[(String, String)]) -> Vec<IndexedFile> {
    // path -> (content, real path)
    let mut listed: BTreeMap<String, (&str, String)> = real
        .iter()
        .map(|(path, content)| (path.clone(), (*content, path.clone())))
        .collect();
    for _round in 0..3 {
        for (link, target) in links {
            let taken = real.keys().any(|p| p == link || under(p, link));
            let cycle = link == target || under(link, target) || under(target, link);
            if taken || cycle {
                continue;
            }
            let reached: Vec<(String, (&str, String))> = listed
                .iter()
                .filter(|(path, _)| *path == target || under(path, target))
                .map(|(path, (content, real))| {
                    (
                        format!("{link}{}", &path[target.len()..]),
                        (*content, real.clone()),
                    )
                })
                .collect();
            for (path, found) in reached {
                listed.entry(path).or_insert(found);
            }
        }
    }
    listed
        .into_iter()
        .map(|(path, (content, real))| {
            let real = (real != path).then_some(real);
            row(&path, content).with_real_path(real)
        })
        .collect()
}

/// Each contribution as (path, package root, category, id, default): what it adds.
fn contributions(layout: &Layout) -> Vec<(String, String, String, String, bool)> {
    let mut all: Vec<_> = layout
        .packages
        .iter()
        .flat_map(|p| {
            p.files.iter().map(|f| {
                (
                    f.path.clone(),
                    p.root.clone(),
                    f.category.as_str().to_owned(),
                    f.id.clone(),
                    f.default_enabled,
                )
            })
        })
        .collect();
    all.sort();
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// No real file contributes twice, whatever links reach it.
    #[test]
    fn no_real_file_contributes_twice(real in real_tree(), links in links()) {
        let rows = walk(&real, &links);
        let real_of: HashMap<&str, &str> = rows
            .iter()
            .map(|r| (r.path.as_str(), r.real_path.as_deref().unwrap_or(&r.path)))
            .collect();
        let layout = synced(&rows);
        let mut seen: HashMap<&str, &str> = HashMap::new();
        for path in contribution_paths(&layout) {
            let real = real_of[path];
            prop_assert!(
                seen.insert(real, path).is_none(),
                "{real} loads at {path} and at {}", seen[real]
            );
        }
    }

    /// Adding links never changes what the real paths contribute (the linked-to ones
    /// included): every contribution of the tree without links is there, the same.
    #[test]
    fn adding_a_link_never_changes_what_the_linked_to_paths_contribute(
        real in real_tree(),
        links in links(),
    ) {
        let without = synced(&walk(&real, &[]));
        let rows = walk(&real, &links);
        let with = synced(&rows);
        let real_paths: Vec<_> = contributions(&with)
            .into_iter()
            .filter(|c| real.contains_key(&c.0))
            .collect();
        prop_assert_eq!(contributions(&without), real_paths);
    }
}
