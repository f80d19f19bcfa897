//! The seed's worked examples, from the fixtures under `tests/fixtures/`, grouped by
//! the pure core (the files are read here; the core only sees paths and payloads).
#![allow(clippy::unwrap_used)]

mod support;

use std::path::{Path, PathBuf};

use neuralis_layout::{
    Category, GroupOptions, IndexedFile, Invocation, RootRule, UnloadedReason, group,
};
use support::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name)
}

/// Every file under `dir`, as rows whose paths start with `prefix`.
fn rows(dir: &Path, prefix: &str) -> Vec<IndexedFile> {
    let mut stack = vec![dir.to_path_buf()];
    let mut rows = Vec::new();
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let relative = path
                .strip_prefix(dir)
                .unwrap()
                .to_str()
                .unwrap()
                .replace('\\', "/");
            let content = std::fs::read_to_string(&path).unwrap();
            rows.push(row(&format!("{prefix}{relative}"), &content));
        }
    }
    rows
}

/// "example-source ... ships skills/, instructions/, rules/, docs/ and a root
/// AGENTS.md, which is exactly the set that shows both default floors side by side":
/// grouped as a folder of a source (rule 3), rules and the identity file are off,
/// skills and instructions on, docs listed with manual invocation.
#[test]
fn the_worked_example_shows_both_default_floors_as_a_folder_of_a_source() {
    let rows = rows(&fixture("example-source"), "example-source/");
    let layout = group(&rows, &GroupOptions::synced("contract-examples"));
    assert_eq!(
        roots(&layout),
        [("example-source", RootRule::Category, "example-source")]
    );
    let cases = [
        (
            "example-source/AGENTS.md",
            Category::Instruction,
            false,
            Invocation::Auto,
        ),
        (
            "example-source/rules/style.md",
            Category::Rule,
            false,
            Invocation::Auto,
        ),
        (
            "example-source/skills/review/SKILL.md",
            Category::Skill,
            true,
            Invocation::Auto,
        ),
        (
            "example-source/skills/release/SKILL.md",
            Category::Skill,
            true,
            Invocation::Auto,
        ),
        (
            "example-source/instructions/tone.md",
            Category::Instruction,
            true,
            Invocation::Auto,
        ),
        (
            "example-source/docs/architecture.md",
            Category::Docs,
            true,
            Invocation::Manual,
        ),
    ];
    for (path, category, enabled, invocation) in cases {
        let c = contribution(&layout, path);
        assert_eq!(
            (c.category, c.default_enabled, c.invocation),
            (category, enabled, invocation),
            "{path}"
        );
    }
    let review = contribution(&layout, "example-source/skills/review/SKILL.md");
    assert_eq!(review.title, "Code review");
    assert_eq!(
        review.bundle,
        [
            "SKILL.md",
            "scripts/diff-stats.sh",
            "references/checklist.md"
        ]
    );
}

/// Inspected as a source of its own, the same tree is the restricted rule-5 package:
/// "Docs never bind to the implicit source-root package".
#[test]
fn the_worked_example_as_a_whole_source_keeps_its_docs_out() {
    let layout = group(
        &rows(&fixture("example-source"), ""),
        &GroupOptions::synced("example-source"),
    );
    assert_eq!(
        roots(&layout),
        [("", RootRule::SourceRoot, "example-source")]
    );
    assert_eq!(package(&layout, "").files.len(), 5);
    assert_eq!(
        unloaded_reason(&layout, "docs/architecture.md"),
        Some(UnloadedReason::DocsAtSourceRoot)
    );
}

#[test]
fn the_seed_repo_example_fixture_groups_as_the_seed_says() {
    let layout = group(
        &rows(&fixture("repo-example"), ""),
        &GroupOptions::synced("repo"),
    );
    assert_eq!(
        roots(&layout),
        [
            ("", RootRule::SourceRoot, "repo"),
            (".claude", RootRule::Marker, ".claude"),
            ("packages/helper", RootRule::Manifest, "helper"),
        ]
    );
    assert_eq!(package(&layout, ".claude").files.len(), 2);
    assert!(layout.unloaded.is_empty());
}
