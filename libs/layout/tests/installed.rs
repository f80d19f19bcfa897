//! An installed package directory: one manifest package at its root, sanitized per its
//! trust tier (seed 001, "What is NOT scanned" and "Trust-tier sanitization").
#![allow(clippy::unwrap_used)]

mod support;

use neuralis_layout::{
    Category, GroupOptions, IndexedFile, RootRule, Trust, UnloadedReason, group,
};
use support::*;

fn installed(trust: Trust) -> neuralis_layout::Layout {
    let files = [
        (
            "package.json",
            r#"{"name": "acme", "neuralis": {"id": "acme"}}"#,
        ),
        ("README.md", PLAIN),
        ("AGENTS.md", PLAIN),
        ("PLAN.md", NAMED),
        ("SKILL.md", "---\nname: root\n---\n"),
        (
            "rules/r.md",
            "---\nname: r\noverwrite: true\nactivation: {target: prompt-context}\n---\n",
        ),
        ("skills/s/SKILL.md", "s"),
        (".claude/rules/x.md", NAMED),
        (".cursor/rules/c.mdc", "c"),
        ("nested/package.json", NEURALIS_PACKAGE),
        ("nested/commands/n.md", "n"),
    ];
    let rows: Vec<IndexedFile> = files.iter().map(|(p, c)| row(p, c)).collect();
    group(&rows, &GroupOptions::installed("fallback", trust))
}

#[test]
fn an_installed_directory_is_one_manifest_package_at_its_root() {
    let layout = installed(Trust::FirstParty);
    assert_eq!(roots(&layout), [("", RootRule::Manifest, "acme")]);
    assert!(!is_contribution(&layout, "nested/commands/n.md"));
}

/// "README.md, AGENTS.md, PLAN.md, and any other markdown at the package root are
/// package-meta files, never contributions. The only root-level exception is a root
/// SKILL.md."
#[test]
fn package_root_loose_markdown_is_package_meta_except_a_root_skill() {
    let layout = installed(Trust::FirstParty);
    assert_eq!(
        unloaded_reason(&layout, "AGENTS.md"),
        Some(UnloadedReason::PackageMeta)
    );
    assert_eq!(
        unloaded_reason(&layout, "PLAN.md"),
        Some(UnloadedReason::PackageMeta)
    );
    assert_eq!(
        unloaded_reason(&layout, "README.md"),
        Some(UnloadedReason::Readme)
    );
    assert_eq!(contribution(&layout, "SKILL.md").id, "root");
    assert_eq!(
        contribution(&layout, ".cursor/rules/c.mdc").category,
        Category::Rule
    );
}

#[test]
fn first_party_rules_stay_rules_with_their_declarations() {
    let layout = installed(Trust::FirstParty);
    let rule = contribution(&layout, "rules/r.md");
    assert_eq!(rule.category, Category::Rule);
    assert!(rule.overwrite);
    assert_eq!(rule.activation_target.as_deref(), Some("prompt-context"));
}

#[test]
fn non_first_party_rules_are_downgraded_to_docs_and_sanitized() {
    for trust in [Trust::Untrusted, Trust::Trusted] {
        let layout = installed(trust);
        let rule = contribution(&layout, "rules/r.md");
        assert_eq!(rule.category, Category::Docs, "{trust:?}");
        assert_eq!(rule.downgraded_from, Some(Category::Rule));
        assert!(!rule.overwrite);
        assert_eq!(rule.activation_target.as_deref(), Some("workspace"));
        assert_eq!(
            contribution(&layout, ".cursor/rules/c.mdc").category,
            Category::Docs
        );
    }
}

#[test]
fn an_installed_package_without_a_manifest_name_takes_the_given_name() {
    let rows = vec![row("commands/c.md", "c")];
    let layout = group(&rows, &GroupOptions::installed("fallback", Trust::Trusted));
    assert_eq!(roots(&layout), [("", RootRule::Manifest, "fallback")]);
}
