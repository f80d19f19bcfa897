//! A skill's directory is its scope (seed 001, "Skill bundles — the directory is the
//! scope"; DESIGN.md section 4): below a skill's folder, everything is bundle content of
//! that skill. Only the folder's own `SKILL.md` is the skill; a nested `SKILL.md` or any
//! other file never becomes a second skill or a contribution of its own.
#![allow(clippy::unwrap_used)]

mod support;

use neuralis_layout::{
    Category, GroupOptions, IndexedFile, PackageRoots, Trust, UnloadedReason, group,
};
use support::*;

#[test]
fn only_the_skill_folders_own_skill_md_is_a_skill_below_it_everything_is_bundle_content() {
    // `notes.md` has the length of `SKILL.md`; `sub/SKILL.md` ends like it.
    let layout = group_synced(&[
        (".claude/skills/a/SKILL.md", "---\nname: a\n---\n"),
        (".claude/skills/a/notes.md", NAMED),
        (".claude/skills/a/sub/SKILL.md", "---\nname: sub\n---\n"),
        (".claude/skills/a/agents/x.agent.md", NAMED),
        ("kit/package.json", NEURALIS_PACKAGE),
        ("kit/review/SKILL.md", "---\nname: review\n---\n"),
        ("kit/review/abcd.txt", ""),
        ("kit/review/deep/SKILL.md", "---\nname: deep\n---\n"),
    ]);
    let skills: Vec<(&str, &str)> = layout
        .packages
        .iter()
        .flat_map(|p| &p.files)
        .map(|c| (c.path.as_str(), c.id.as_str()))
        .collect();
    assert_eq!(
        skills,
        [
            (".claude/skills/a/SKILL.md", "a"),
            ("kit/review/SKILL.md", "review")
        ]
    );
    assert_eq!(
        contribution(&layout, ".claude/skills/a/SKILL.md").bundle,
        ["SKILL.md", "agents/x.agent.md", "notes.md", "sub/SKILL.md"]
    );
    assert_eq!(
        contribution(&layout, "kit/review/SKILL.md").bundle,
        ["SKILL.md", "abcd.txt", "deep/SKILL.md"]
    );
    for path in [".claude/skills/a/notes.md", ".claude/skills/a/sub/SKILL.md"] {
        assert_eq!(unloaded_reason(&layout, path), None, "{path}");
    }
}

/// "`.mdc` counts only in `.cursor/rules/`", where the file name is the rule's identity
/// by protocol; any other file there needs an `id` or `name` like every flat file.
#[test]
fn only_cursor_rules_mdc_files_are_exempt_from_the_id_or_name_requirement() {
    let files = [
        ("package.json", r#"{"name": "acme", "neuralis": {}}"#),
        (".cursor/rules/c.mdc", "plain"),
        (".cursor/rules/notes.md", PLAIN),
        (".cursor/other/x.mdc", "plain"),
    ];
    let rows: Vec<IndexedFile> = files.iter().map(|(p, c)| row(p, c)).collect();
    let layout = group(&rows, &GroupOptions::installed("acme", Trust::FirstParty));
    assert_eq!(
        contribution(&layout, ".cursor/rules/c.mdc").category,
        Category::Rule
    );
    assert!(!is_contribution(&layout, ".cursor/rules/notes.md"));
    assert!(!is_contribution(&layout, ".cursor/other/x.mdc"));
    assert_eq!(
        unloaded_reason(&layout, ".cursor/rules/notes.md"),
        Some(UnloadedReason::NotAContributionPath)
    );
}

/// Seed 000: "README* files and anything under template(s)/ directories — indexed for
/// search, excluded from the contribution categories"; "Nothing under a workflows/
/// directory is a source contribution at all". A skill folder named like one is no
/// exception. (Repro: `skills/templates/SKILL.md` alone used to load as a skill, while
/// the invalidation predicate rightly called adding it harmless.)
#[test]
fn a_skill_folder_under_templates_or_workflows_is_never_a_skill() {
    let layout = group_synced(&[
        ("skills/templates/SKILL.md", "---\nname: t\n---\n"),
        (".claude/skills/template/SKILL.md", "---\nname: t\n---\n"),
        ("kit/package.json", NEURALIS_PACKAGE),
        ("kit/skills/workflows/SKILL.md", "---\nname: w\n---\n"),
        ("kit/skills/real/SKILL.md", "---\nname: real\n---\n"),
    ]);
    let contributions: Vec<&str> = layout
        .packages
        .iter()
        .flat_map(|p| &p.files)
        .map(|c| c.path.as_str())
        .collect();
    assert_eq!(contributions, ["kit/skills/real/SKILL.md"]);
    for path in [
        "skills/templates/SKILL.md",
        ".claude/skills/template/SKILL.md",
        "kit/skills/workflows/SKILL.md",
    ] {
        assert_eq!(
            unloaded_reason(&layout, path),
            Some(UnloadedReason::TemplateOrWorkflow),
            "{path}"
        );
    }
}

/// A skill's directory is its scope, template folders included: a write there changes
/// the skill's bundle, so the invalidation predicate must not call it harmless ("a false
/// no would let discovery serve stale packages"). (Repro: `skills/a/templates/x.md` at
/// the source root was called harmless while it joined skill `a`'s bundle, and so was
/// `kit/skills/templates/SKILL.md` while it made `kit` a package.)
#[test]
fn a_write_inside_a_skill_folder_is_never_called_harmless_whatever_its_subfolder() {
    let before = group_synced(&[("skills/a/SKILL.md", "---\nname: a\n---\n")]);
    let roots = PackageRoots::from_layout(&before);
    for path in [
        "skills/a/templates/x.md",
        "skills/a/workflows/flow.json",
        "skills/a/scripts/run.sh",
    ] {
        assert!(roots.can_move_package(path), "{path}");
        let after = group_synced(&[("skills/a/SKILL.md", "---\nname: a\n---\n"), (path, "x")]);
        assert_ne!(after.packages, before.packages, "{path}");
    }
    // A category folder above a template folder still forms a root around it.
    let with_identity = group_synced(&[("kit/AGENTS.md", "x")]);
    let after = group_synced(&[
        ("kit/AGENTS.md", "x"),
        ("kit/skills/templates/SKILL.md", "x"),
    ]);
    assert!(with_identity.packages.is_empty());
    assert!(after.packages.iter().any(|p| p.root == "kit"));
    assert!(
        PackageRoots::from_layout(&with_identity).can_move_package("kit/skills/templates/SKILL.md")
    );
    // Template folders below no marker or category folder stay harmless.
    for path in ["templates/skills/a/SKILL.md", "notes/workflows/x.md"] {
        assert!(!roots.can_move_package(path), "{path}");
        let after = group_synced(&[("skills/a/SKILL.md", "---\nname: a\n---\n"), (path, "x")]);
        assert_eq!(after.packages, before.packages, "{path}");
    }
}
