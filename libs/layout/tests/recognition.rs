//! Categories by path and admission inside package roots (DESIGN.md section 4, the
//! categories table; seed 000, "What is recognized" and "What is deliberately not
//! loaded").
#![allow(clippy::unwrap_used)]

mod support;

use neuralis_layout::{Category, Invocation, UnloadedReason};
use support::*;

#[test]
fn categories_come_from_the_folder_inside_a_package_root() {
    let layout = group_synced(&[
        (".claude/skills/s/SKILL.md", "s"),
        (".claude/instructions/i.md", NAMED),
        (".claude/rules/r.md", NAMED),
        (".claude/agents/a.md", NAMED),
        (".claude/docs/d.md", NAMED),
        (".claude/commands/c.md", "c"),
        (".claude/CLAUDE.md", PLAIN),
    ]);
    let cases = [
        (".claude/skills/s/SKILL.md", Category::Skill),
        (".claude/instructions/i.md", Category::Instruction),
        (".claude/rules/r.md", Category::Rule),
        (".claude/agents/a.md", Category::Agent),
        (".claude/docs/d.md", Category::Docs),
        (".claude/commands/c.md", Category::Command),
        (".claude/CLAUDE.md", Category::Instruction),
    ];
    for (path, category) in cases {
        assert_eq!(contribution(&layout, path).category, category, "{path}");
    }
}

/// "`<category>/*.md` means direct children"
#[test]
fn category_patterns_match_direct_children_only() {
    let layout = group_synced(&[
        (".claude/rules/sub/r.md", NAMED),
        (".claude/rules/r.md", NAMED),
    ]);
    assert!(is_contribution(&layout, ".claude/rules/r.md"));
    assert_eq!(
        unloaded_reason(&layout, ".claude/rules/sub/r.md"),
        Some(UnloadedReason::NotAContributionPath)
    );
}

/// "a *.agent.md anywhere" inside a root; "a folder pattern wins over *.agent.md
/// (rules/x.agent.md is a rule)"
#[test]
fn agent_md_is_an_agent_anywhere_in_a_root_but_a_folder_pattern_wins() {
    let layout = group_synced(&[
        (".github/agents/reviewer.agent.md", NAMED),
        (".github/deep/er/planner.agent.md", NAMED),
        (".github/rules/x.agent.md", NAMED),
        (".github/unnamed.agent.md", PLAIN),
    ]);
    assert_eq!(
        contribution(&layout, ".github/agents/reviewer.agent.md").category,
        Category::Agent
    );
    assert_eq!(
        contribution(&layout, ".github/deep/er/planner.agent.md").category,
        Category::Agent
    );
    assert_eq!(
        contribution(&layout, ".github/rules/x.agent.md").category,
        Category::Rule
    );
    assert_eq!(
        unloaded_reason(&layout, ".github/unnamed.agent.md"),
        Some(UnloadedReason::NoIdOrName)
    );
}

/// The identity basenames, at a package root only; copilot-instructions.md only at
/// the root of `.github`.
#[test]
fn identity_files_count_only_at_a_package_root() {
    let layout = group_synced(&[
        ("AGENTS.md", PLAIN),
        ("CLAUDE.local.md", PLAIN),
        ("GEMINI.md", PLAIN),
        (".github/copilot-instructions.md", PLAIN),
        (".claude/copilot-instructions.md", PLAIN),
        (".claude/sub/AGENTS.md", PLAIN),
        ("lib/AGENTS.md", PLAIN),
    ]);
    for path in [
        "AGENTS.md",
        "CLAUDE.local.md",
        "GEMINI.md",
        ".github/copilot-instructions.md",
    ] {
        let c = contribution(&layout, path);
        assert!(
            c.identity && !c.default_enabled && c.category == Category::Instruction,
            "{path}"
        );
    }
    for path in [".claude/copilot-instructions.md", ".claude/sub/AGENTS.md"] {
        assert_eq!(
            unloaded_reason(&layout, path),
            Some(UnloadedReason::NotAContributionPath),
            "{path}"
        );
    }
    assert_eq!(
        unloaded_reason(&layout, "lib/AGENTS.md"),
        Some(UnloadedReason::Unclaimed)
    );
}

/// `.cursorrules`, `.windsurfrules` and `.cursor/rules/*.mdc` are rules by protocol:
/// always admitted, default off; ".mdc counts only in .cursor/rules/".
#[test]
fn cursor_and_windsurf_rules_are_admitted_by_protocol() {
    let layout = group_synced(&[
        (
            ".cursor/rules/ts.mdc",
            "---\ndescription: ts\nglobs: **/*.ts\n---\nUse strict.",
        ),
        (".cursor/rules/plain.mdc", "no frontmatter"),
        (".cursor/rules/x.md", PLAIN),
        (".claude/rules/y.mdc", "y"),
        (".cursor/rules/sub/z.mdc", "z"),
        ("app/.cursorrules", "nested"),
    ]);
    for path in [".cursor/rules/ts.mdc", ".cursor/rules/plain.mdc"] {
        let c = contribution(&layout, path);
        assert_eq!(c.category, Category::Rule, "{path}");
        assert!(!c.default_enabled);
    }
    assert_eq!(contribution(&layout, ".cursor/rules/ts.mdc").id, "ts");
    assert_eq!(
        unloaded_reason(&layout, ".cursor/rules/x.md"),
        Some(UnloadedReason::NoIdOrName)
    );
    for path in [".claude/rules/y.mdc", ".cursor/rules/sub/z.mdc"] {
        assert_eq!(
            unloaded_reason(&layout, path),
            Some(UnloadedReason::NotAContributionPath),
            "{path}"
        );
    }
    assert_eq!(
        unloaded_reason(&layout, "app/.cursorrules"),
        Some(UnloadedReason::Unclaimed)
    );
    let recovered = layout
        .diagnostics
        .iter()
        .find(|d| d.path == ".cursor/rules/ts.mdc");
    assert!(
        recovered.is_some(),
        "the unquoted glob is reported: {:?}",
        layout.diagnostics
    );
}

/// "README* files and anything under template(s)/ directories — indexed for search,
/// excluded from the contribution categories"; "Nothing under a workflows/ directory
/// is a source contribution at all".
#[test]
fn readmes_templates_and_workflows_are_never_contributions() {
    let layout = group_synced(&[
        (".claude/rules/README.md", NAMED),
        (".claude/README.md", NAMED),
        (".claude/templates/rules/x.md", NAMED),
        (".claude/template/y.agent.md", NAMED),
        (".claude/workflows/z.agent.md", NAMED),
        (".claude/rules/keep.md", NAMED),
    ]);
    assert_eq!(
        unloaded_reason(&layout, ".claude/rules/README.md"),
        Some(UnloadedReason::Readme)
    );
    assert_eq!(
        unloaded_reason(&layout, ".claude/README.md"),
        Some(UnloadedReason::Readme)
    );
    for path in [
        ".claude/templates/rules/x.md",
        ".claude/template/y.agent.md",
        ".claude/workflows/z.agent.md",
    ] {
        assert_eq!(
            unloaded_reason(&layout, path),
            Some(UnloadedReason::TemplateOrWorkflow),
            "{path}"
        );
    }
    assert_eq!(package(&layout, ".claude").files.len(), 1);
}

/// Issue 27: `README*` matches in any case: `readme.md` and `Readme.md` are READMEs too.
#[test]
fn a_readme_is_one_in_any_case() {
    let layout = group_synced(&[
        (".claude/rules/readme.md", NAMED),
        (".claude/agents/Readme.md", NAMED),
        (".claude/rules/keep.md", NAMED),
        (".claude/rules/read-me-later.md", NAMED),
    ]);
    for path in [".claude/rules/readme.md", ".claude/agents/Readme.md"] {
        assert_eq!(
            unloaded_reason(&layout, path),
            Some(UnloadedReason::Readme),
            "{path}"
        );
    }
    assert_eq!(package(&layout, ".claude").files.len(), 2);
}

/// "Non-contribution content inside them (settings files, themes) is indexed for
/// search but never becomes a contribution."
#[test]
fn non_contribution_files_in_marker_directories_are_not_contributions() {
    let layout = group_synced(&[
        (".claude/settings.json", "{}"),
        (".claude/notes.md", NAMED),
        (".claude/rules/r.md", NAMED),
    ]);
    assert_eq!(package(&layout, ".claude").files.len(), 1);
    assert_eq!(
        unloaded_reason(&layout, ".claude/notes.md"),
        Some(UnloadedReason::NotAContributionPath)
    );
    assert!(unloaded_reason(&layout, ".claude/settings.json").is_none());
}

/// ".mcp.json / mcp.json and hooks.json are indexed and categorized but are not
/// loaded as runtime contributions"
#[test]
fn mcp_and_hooks_files_are_never_loaded_from_a_source() {
    let layout = group_synced(&[
        (".mcp.json", "{}"),
        ("kit/mcp.json", "{}"),
        (".claude/hooks.json", "{}"),
        (".claude/rules/r.md", NAMED),
    ]);
    for path in [".mcp.json", "kit/mcp.json", ".claude/hooks.json"] {
        assert_eq!(
            unloaded_reason(&layout, path),
            Some(UnloadedReason::NeverLoadedFromSource),
            "{path}"
        );
    }
}

/// "The docs posture is server-pinned": docs are listed with manual invocation.
#[test]
fn docs_are_pinned_to_manual_invocation_and_stay_enabled() {
    let layout = group_synced(&[(
        "kit/docs/guide.md",
        "---\nname: guide\nactivation: {invocation: auto}\n---\n",
    )]);
    let docs = contribution(&layout, "kit/docs/guide.md");
    assert_eq!(
        (docs.default_enabled, docs.invocation),
        (true, Invocation::Manual)
    );
}

/// The defaults table: skill, instruction, agent, command on; rule and identity off.
#[test]
fn defaults_per_category() {
    let layout = group_synced(&[
        ("kit/skills/s/SKILL.md", "s"),
        ("kit/instructions/i.md", NAMED),
        ("kit/agents/a.md", NAMED),
        ("kit/commands/c.md", "c"),
        ("kit/rules/r.md", NAMED),
        ("kit/AGENTS.md", PLAIN),
    ]);
    let cases = [
        ("kit/skills/s/SKILL.md", true),
        ("kit/instructions/i.md", true),
        ("kit/agents/a.md", true),
        ("kit/commands/c.md", true),
        ("kit/rules/r.md", false),
        ("kit/AGENTS.md", false),
    ];
    for (path, enabled) in cases {
        let c = contribution(&layout, path);
        assert_eq!(c.default_enabled, enabled, "{path}");
        assert_eq!(c.invocation, Invocation::Auto, "{path}");
    }
}

/// "A role: frontmatter key is ignored with a warning"
#[test]
fn a_role_key_is_ignored_with_a_warning_in_the_layout_diagnostics() {
    let layout = group_synced(&[("kit/agents/a.md", "---\nname: a\nrole: admin\n---\n")]);
    assert_eq!(
        contribution(&layout, "kit/agents/a.md").category,
        Category::Agent
    );
    assert!(
        layout
            .diagnostics
            .iter()
            .any(|d| d.path == "kit/agents/a.md" && d.message.contains("role"))
    );
}

/// "a skill that declares context: fork in its frontmatter registers as an agent"
#[test]
fn a_forked_skill_is_an_agent_without_a_bundle() {
    let layout = group_synced(&[
        (
            "kit/skills/s/SKILL.md",
            "---\nname: s\ncontext: fork\n---\n",
        ),
        ("kit/skills/s/scripts/x.sh", ""),
    ]);
    let agent = contribution(&layout, "kit/skills/s/SKILL.md");
    assert_eq!(agent.category, Category::Agent);
    assert!(agent.bundle.is_empty());
}

/// "<root-subdir>/SKILL.md — a skill package whose skills sit directly under the
/// package root"; "Reserved directories ... are never treated as skill folders".
#[test]
fn subdir_skills_sit_directly_under_a_root_but_never_in_reserved_folders() {
    let layout = group_synced(&[
        ("kit/package.json", NEURALIS_PACKAGE),
        ("kit/review/SKILL.md", "r"),
        ("kit/src/SKILL.md", "no"),
        ("kit/dist/SKILL.md", "no"),
        ("kit/docs/SKILL.md", "no"),
    ]);
    assert_eq!(contribution(&layout, "kit/review/SKILL.md").id, "review");
    for path in ["kit/src/SKILL.md", "kit/dist/SKILL.md", "kit/docs/SKILL.md"] {
        assert!(!is_contribution(&layout, path), "{path}");
    }
}

/// A package whose root is the skill keeps its category folders as contributions and
/// leaves them out of the bundle (DESIGN.md section 4, "A skill's directory is its scope").
#[test]
fn a_root_skill_package_keeps_its_category_folders_as_contributions() {
    let layout = group_synced(&[
        ("pdf/SKILL.md", "---\nname: pdf\n---\n"),
        ("pdf/scripts/fill.py", ""),
        ("pdf/rules/careful.md", NAMED),
        ("pdf/README.md", PLAIN),
        ("pdf/forms.md", PLAIN),
    ]);
    let skill = contribution(&layout, "pdf/SKILL.md");
    assert_eq!(skill.bundle, ["SKILL.md", "scripts/fill.py"]);
    assert_eq!(
        contribution(&layout, "pdf/rules/careful.md").category,
        Category::Rule
    );
}

#[test]
fn malformed_frontmatter_keeps_a_file_out_with_its_reason() {
    let layout = group_synced(&[("kit/agents/a.md", "---\nname: a\nnever closed\n")]);
    assert_eq!(
        unloaded_reason(&layout, "kit/agents/a.md"),
        Some(UnloadedReason::MalformedFrontmatter)
    );
    assert!(
        layout
            .diagnostics
            .iter()
            .any(|d| d.path == "kit/agents/a.md")
    );
}

/// "syncing a repository must never silently change agent behavior": source
/// sanitization strips overwrite and prompt-context, rules stay rules.
#[test]
fn source_packages_are_sanitized_but_keep_their_rules() {
    let layout = group_synced(&[(
        ".claude/rules/r.md",
        "---\nname: r\noverwrite: true\nactivation: {target: prompt-context}\n---\n",
    )]);
    let rule = contribution(&layout, ".claude/rules/r.md");
    assert_eq!(rule.category, Category::Rule);
    assert!(!rule.overwrite && !rule.default_enabled);
    assert_eq!(rule.activation_target.as_deref(), Some("workspace"));
}

#[test]
fn package_names_follow_their_rule() {
    let layout = group_synced(&[
        (
            "a/package.json",
            r#"{"name": "npm-name", "neuralis": {"id": "neuralis-id"}}"#,
        ),
        ("a/commands/c.md", "c"),
        (
            "b/package.json",
            r#"{"name": "npm-name-b", "neuralis": {}}"#,
        ),
        ("b/commands/c.md", "c"),
        ("c/.claude-plugin/plugin.json", r#"{}"#),
        ("c/commands/c.md", "c"),
        ("d/.gemini/commands/c.md", "c"),
        ("e/commands/c.md", "c"),
        ("f/SKILL.md", "f"),
        ("commands/c.md", "c"),
    ]);
    let names: Vec<(&str, &str)> = layout
        .packages
        .iter()
        .map(|p| (p.root.as_str(), p.name.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("", "source"),
            ("a", "neuralis-id"),
            ("b", "npm-name-b"),
            ("c", "c"),
            ("d/.gemini", ".gemini"),
            ("e", "e"),
            ("f", "f")
        ]
    );
}
