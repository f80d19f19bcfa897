//! The five precedence rules, one test each, and the binding rule
//! (seed 000, "How files group into packages").
#![allow(clippy::unwrap_used)]

mod support;

use neuralis_layout::{Category, Invocation, RootRule, UnloadedReason};
use support::*;

/// The seed's `repo://` example, whole.
#[test]
fn seed_repo_example_groups_into_marker_manifest_and_source_root_packages() {
    let layout = group_synced(&[
        (".claude/skills/review/SKILL.md", "---\nname: review\n---\n"),
        (".claude/rules/style.md", "---\nname: style\n---\n"),
        ("packages/helper/package.json", NEURALIS_PACKAGE),
        (
            "packages/helper/skills/deploy/SKILL.md",
            "---\ndescription: deploys\n---\n",
        ),
        ("AGENTS.md", "# Agents\n"),
    ]);
    assert_eq!(
        roots(&layout),
        [
            ("", RootRule::SourceRoot, "source"),
            (".claude", RootRule::Marker, ".claude"),
            ("packages/helper", RootRule::Manifest, "helper"),
        ]
    );
    let agents = contribution(&layout, "AGENTS.md");
    assert!(agents.identity && !agents.default_enabled, "rule 5, opt-in");
    assert_eq!(
        contribution(&layout, "packages/helper/skills/deploy/SKILL.md").id,
        "deploy"
    );
    assert!(layout.unloaded.is_empty(), "{:?}", layout.unloaded);
}

/// Rule 1: "a directory holding a package.json with a neuralis block (or another
/// recognized manifest) anchors that directory as one package. A plain application
/// package.json is not usable and binds nothing."
#[test]
fn rule1_a_usable_manifest_anchors_its_directory_and_a_plain_one_binds_nothing() {
    let layout = group_synced(&[
        ("a/package.json", NEURALIS_PACKAGE),
        ("a/notes/x.agent.md", NAMED),
        ("b/package.json", r#"{"name": "app"}"#),
        ("b/notes/y.agent.md", NAMED),
        ("c/gemini-extension.json", r#"{"name": "gem"}"#),
        ("c/commands/go.md", "go"),
        ("d/neuralis.package.json", r#"{"neuralis": {"id": "dee"}}"#),
        ("d/commands/go.md", "go"),
    ]);
    assert_eq!(
        roots(&layout),
        [
            ("a", RootRule::Manifest, "helper"),
            ("c", RootRule::Manifest, "gem"),
            ("d", RootRule::Manifest, "dee")
        ]
    );
    assert_eq!(
        unloaded_reason(&layout, "b/notes/y.agent.md"),
        Some(UnloadedReason::Unclaimed)
    );
}

#[test]
fn rule1_plugin_json_anchors_the_folder_that_holds_the_plugin_dir() {
    for dir in [".claude-plugin", ".cursor-plugin", ".codex-plugin"] {
        let manifest = format!("plugins/review/{dir}/plugin.json");
        let layout = group_synced(&[
            (manifest.as_str(), r#"{"name": "review-kit"}"#),
            ("plugins/review/skills/lint/SKILL.md", "lint"),
        ]);
        assert_eq!(
            roots(&layout),
            [("plugins/review", RootRule::Manifest, "review-kit")],
            "{dir}"
        );
    }
}

#[test]
fn rule1_a_usable_manifest_at_the_source_root_makes_the_whole_source_one_package() {
    let layout = group_synced(&[
        ("package.json", NEURALIS_PACKAGE),
        ("docs/guide.md", NAMED),
        ("review/SKILL.md", "review"),
    ]);
    assert_eq!(roots(&layout), [("", RootRule::Manifest, "helper")]);
    assert_eq!(
        contribution(&layout, "docs/guide.md").invocation,
        Invocation::Manual
    );
    assert_eq!(
        contribution(&layout, "review/SKILL.md").category,
        Category::Skill
    );
}

/// Rule 2: "a .claude/, .cursor/, .github/, or other marker dot-dir becomes one package
/// named after the dot-dir."
#[test]
fn rule2_every_marker_directory_is_one_package_named_after_the_dot_dir() {
    for marker in neuralis_layout::vocabulary::MARKER_DIRS {
        let rule = format!("repo/{marker}/rules/style.md");
        let skill = format!("repo/{marker}/skills/a/SKILL.md");
        let layout = group_synced(&[(rule.as_str(), NAMED), (skill.as_str(), "a")]);
        let root = format!("repo/{marker}");
        assert_eq!(roots(&layout), [(root.as_str(), RootRule::Marker, marker)]);
        assert_eq!(package(&layout, &root).files.len(), 2);
    }
}

/// "the strongest matching rule wins for a given directory"
#[test]
fn the_strongest_rule_wins_for_a_directory() {
    let layout = group_synced(&[
        (".claude/package.json", NEURALIS_PACKAGE),
        (".claude/rules/r.md", NAMED),
        ("tools/x/rules/r.md", NAMED),
        ("tools/x/SKILL.md", "x"),
    ]);
    assert_eq!(
        roots(&layout),
        [
            (".claude", RootRule::Manifest, "helper"),
            ("tools/x", RootRule::Category, "x")
        ]
    );
}

/// When one directory holds several usable manifests, the most specific names the
/// package (docs/decisions/layout.md): `neuralis.package.json`, then `package.json`,
/// then `gemini-extension.json`, then `plugin.json` (the first plugin directory by name).
#[test]
fn of_several_manifests_in_one_directory_the_most_specific_names_the_package() {
    let manifests = [
        (
            "kit/neuralis.package.json",
            r#"{"neuralis": {"id": "from-neuralis"}}"#,
        ),
        (
            "kit/package.json",
            r#"{"name": "from-npm", "neuralis": {}}"#,
        ),
        ("kit/gemini-extension.json", r#"{"name": "from-gemini"}"#),
        (
            "kit/.cursor-plugin/plugin.json",
            r#"{"name": "from-cursor-plugin"}"#,
        ),
        (
            "kit/.claude-plugin/plugin.json",
            r#"{"name": "from-claude-plugin"}"#,
        ),
    ];
    // The winner of `manifests[first..]`.
    let expected = [
        "from-neuralis",
        "from-npm",
        "from-gemini",
        "from-claude-plugin",
        "from-claude-plugin",
    ];
    // Drop the most specific manifests one by one; list them in either order.
    for first in 0..manifests.len() {
        for reversed in [false, true] {
            let mut files: Vec<(&str, &str)> = manifests[first..].to_vec();
            if reversed {
                files.reverse();
            }
            files.push(("kit/commands/go.md", "go"));
            let layout = group_synced(&files);
            assert_eq!(
                roots(&layout),
                [("kit", RootRule::Manifest, expected[first])],
                "{files:?}"
            );
        }
    }
}

/// Rule 3: "a directory holding skills/, instructions/, rules/, agents/, docs/, or
/// commands/ folders becomes a package named after that directory."
#[test]
fn rule3_a_directory_holding_category_folders_is_a_package_named_after_it() {
    for folder in [
        "skills",
        "instructions",
        "rules",
        "agents",
        "docs",
        "commands",
    ] {
        let path = if folder == "skills" {
            "kit/skills/a/SKILL.md".to_owned()
        } else {
            format!("kit/{folder}/x.md")
        };
        let layout = group_synced(&[(path.as_str(), NAMED)]);
        assert_eq!(
            roots(&layout),
            [("kit", RootRule::Category, "kit")],
            "{folder}"
        );
    }
}

/// Rule 4: "a free-standing SKILL.md folder enclosed by no other root becomes a
/// one-skill package."
#[test]
fn rule4_a_free_standing_skill_folder_is_a_one_skill_package() {
    let layout = group_synced(&[
        ("tools/pdf/SKILL.md", "---\nname: pdf\n---\n"),
        ("tools/pdf/scripts/fill.py", ""),
        ("tools/pdf/sub/SKILL.md", "nested"),
    ]);
    assert_eq!(roots(&layout), [("tools/pdf", RootRule::BareSkill, "pdf")]);
    let skill = contribution(&layout, "tools/pdf/SKILL.md");
    assert_eq!(skill.bundle, ["SKILL.md", "scripts/fill.py"]);
    // a SKILL.md folder directly under the skill root is a skill of that package
    assert_eq!(contribution(&layout, "tools/pdf/sub/SKILL.md").id, "sub");
}

#[test]
fn rule4_a_skill_folder_inside_another_root_is_not_a_bare_skill() {
    let layout = group_synced(&[("kit/docs/d.md", NAMED), ("kit/deep/er/SKILL.md", "x")]);
    assert_eq!(roots(&layout), [("kit", RootRule::Category, "kit")]);
    assert_eq!(
        unloaded_reason(&layout, "kit/deep/er/SKILL.md"),
        Some(UnloadedReason::NotAContributionPath)
    );
}

/// Rule 5: "the source root itself binds only root-level identity files, a root
/// SKILL.md, and files under root-level category directories. Docs never bind to the
/// implicit source-root package, and nested stray files claimed by no rule above stay
/// unloaded."
#[test]
fn rule5_the_source_root_binds_only_its_restricted_set() {
    let layout = group_synced(&[
        ("AGENTS.md", PLAIN),
        ("CLAUDE.md", PLAIN),
        (".cursorrules", "be terse"),
        (".windsurfrules", "be kind"),
        ("SKILL.md", "---\nname: root-skill\n---\n"),
        ("skills/a/SKILL.md", "a"),
        ("instructions/i.md", NAMED),
        ("rules/r.md", NAMED),
        ("agents/g.md", NAMED),
        ("commands/c.md", "c"),
        ("docs/d.md", NAMED),
        ("CONTRIBUTING.md", PLAIN),
        ("x.agent.md", NAMED),
        ("src/deep/y.agent.md", NAMED),
    ]);
    assert_eq!(roots(&layout), [("", RootRule::SourceRoot, "source")]);
    for path in [
        "AGENTS.md",
        "CLAUDE.md",
        ".cursorrules",
        ".windsurfrules",
        "SKILL.md",
        "skills/a/SKILL.md",
        "instructions/i.md",
        "rules/r.md",
        "agents/g.md",
        "commands/c.md",
    ] {
        assert!(is_contribution(&layout, path), "{path}");
    }
    assert_eq!(
        unloaded_reason(&layout, "docs/d.md"),
        Some(UnloadedReason::DocsAtSourceRoot)
    );
    for stray in ["CONTRIBUTING.md", "x.agent.md", "src/deep/y.agent.md"] {
        assert_eq!(
            unloaded_reason(&layout, stray),
            Some(UnloadedReason::Unclaimed),
            "{stray}"
        );
    }
    assert!(
        !contribution(&layout, ".cursorrules").default_enabled,
        "root rules default off"
    );
}

/// "every contribution binds to the deepest detected root that encloses it"
#[test]
fn a_contribution_binds_to_the_deepest_enclosing_root() {
    let layout = group_synced(&[
        ("packages/helper/package.json", NEURALIS_PACKAGE),
        ("packages/helper/rules/outer.md", NAMED),
        ("packages/helper/.claude/rules/inner.md", NAMED),
        ("packages/helper/.claude/CLAUDE.md", PLAIN),
    ]);
    assert_eq!(package(&layout, "packages/helper").files.len(), 1);
    let inner = package(&layout, "packages/helper/.claude");
    let paths: Vec<&str> = inner.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "packages/helper/.claude/CLAUDE.md",
            "packages/helper/.claude/rules/inner.md"
        ]
    );
}

/// "A folder-per-skill layout (skills/a/SKILL.md, skills/b/SKILL.md) stays one package"
#[test]
fn folder_per_skill_stays_one_package() {
    let layout = group_synced(&[
        ("kit/skills/a/SKILL.md", "a"),
        ("kit/skills/b/SKILL.md", "b"),
        ("kit/skills/b/agents/helper.md", NAMED),
        ("kit/skills/b/docs/x/rules/y.md", NAMED),
        ("kit/skills/c/SKILL.md", "c"),
    ]);
    assert_eq!(roots(&layout), [("kit", RootRule::Category, "kit")]);
    assert_eq!(package(&layout, "kit").files.len(), 3);
    // "an agents/ folder or a nested SKILL.md there is bundle content of that skill"
    let b = contribution(&layout, "kit/skills/b/SKILL.md");
    assert_eq!(
        b.bundle,
        ["SKILL.md", "agents/helper.md", "docs/x/rules/y.md"]
    );
}

#[test]
fn a_root_in_which_nothing_loads_forms_no_package() {
    let layout = group_synced(&[
        (".github/workflows/ci.yml", "on: push"),
        ("kit/docs/notes.md", PLAIN),
    ]);
    assert!(layout.packages.is_empty());
    assert_eq!(
        unloaded_reason(&layout, "kit/docs/notes.md"),
        Some(UnloadedReason::NoIdOrName)
    );
}

#[test]
fn no_root_forms_under_templates_or_workflows() {
    let layout = group_synced(&[
        ("templates/starter/.claude/rules/r.md", NAMED),
        ("template/kit/skills/a/SKILL.md", "a"),
        ("workflows/x/package.json", NEURALIS_PACKAGE),
        ("workflows/x/commands/c.md", "c"),
    ]);
    assert!(layout.packages.is_empty(), "{:?}", summary(&layout));
}

#[test]
fn a_category_folder_is_never_itself_a_root() {
    // a skill named "docs" must not turn skills/ into a package
    let layout = group_synced(&[
        ("kit/skills/docs/SKILL.md", "d"),
        ("kit/skills/rules/SKILL.md", "r"),
    ]);
    assert_eq!(roots(&layout), [("kit", RootRule::Category, "kit")]);
    assert_eq!(package(&layout, "kit").files.len(), 2);
}

/// Rule 1 holds for any folder name (issue 10): a usable manifest in a folder named
/// like a category folder anchors it, and its skill loads (a real extension repository
/// ships `examples/skills/gemini-extension.json` beside `examples/hooks/`).
#[test]
fn rule_1_a_usable_manifest_anchors_its_directory_whatever_it_is_called() {
    let layout = group_synced(&[
        ("examples/hooks/hooks.json", "{}"),
        (
            "examples/skills/gemini-extension.json",
            r#"{"name": "ext"}"#,
        ),
        (
            "examples/skills/review/SKILL.md",
            "---\nname: review\n---\n",
        ),
        ("rules/gemini-extension.json", r#"{"name": "top-rules"}"#),
        ("rules/skills/a/SKILL.md", "---\nname: a\n---\n"),
    ]);
    let rooted: Vec<(&str, RootRule, &str)> = roots(&layout)
        .into_iter()
        .filter(|(_, rule, _)| *rule == RootRule::Manifest)
        .collect();
    assert_eq!(
        rooted,
        [
            ("examples/skills", RootRule::Manifest, "ext"),
            ("rules", RootRule::Manifest, "top-rules"),
        ]
    );
    assert_eq!(
        contribution(&layout, "examples/skills/review/SKILL.md").id,
        "review"
    );
    assert_eq!(contribution(&layout, "rules/skills/a/SKILL.md").id, "a");
}
