use super::*;

/// "High-rate writes that cannot affect a package — ... files outside every package
/// root — cost nothing."
#[test]
fn writes_outside_every_root_that_cannot_create_one_do_not_invalidate() {
    let roots = ["", ".claude", "packages/helper"];
    for path in [
        "src/main.rs",
        "notes/todo.md",
        "logs/2024/run.jsonl",
        "x.agent.md",
        "README.md",
        "templates/skills/a/SKILL.md",
    ] {
        assert!(!can_move_package(path, &roots), "{path}");
    }
}

#[test]
fn writes_inside_a_root_invalidate_even_non_markdown_bundle_files() {
    let roots = ["", ".claude", "packages/helper"];
    for path in [
        ".claude/settings.json",
        "packages/helper/skills/deploy/scripts/run.sh",
        "packages/helper",
        // Nothing but the root it lies in makes these count.
        "packages/helper/dist/index.js",
        "packages/helper/notes.txt",
    ] {
        assert!(can_move_package(path, &roots), "{path}");
    }
}

#[test]
fn writes_that_could_create_a_root_or_bind_to_the_source_root_invalidate() {
    for path in [
        "new/package.json",
        "lib/.cursor/rules/x.mdc",
        "app/.github/copilot-instructions.md",
        "tools/x/SKILL.md",
        "x/docs/y.md",
        "x/agents/y.md",
        "AGENTS.md",
        ".cursorrules",
        "rules/style.md",
        "plugins/p/.claude-plugin/plugin.json",
        ".claude",
    ] {
        assert!(can_move_package(path, &[""]), "{path}");
    }
}

/// Found by the property `a_write_the_predicate_calls_harmless_never_changes_the_packages`:
/// a skill folder may be named like a never-contribution folder.
#[test]
fn a_skill_named_like_a_template_folder_invalidates() {
    for path in [
        "skills/templates/SKILL.md",
        "skills/workflows/run.sh",
        "skills/x/templates/notes.txt",
        "a/docs/templates/x.md",
        "a/.claude/workflows/x.md",
    ] {
        assert!(can_move_package(path, &[""]), "{path}");
    }
    for path in ["templates/skills/a/SKILL.md", "a/templates/docs/x.md"] {
        assert!(!can_move_package(path, &[""]), "{path}");
    }
}

#[test]
fn a_source_root_skill_makes_every_write_relevant() {
    let roots = PackageRoots::new([""], true);
    assert!(roots.can_move_package("src/main.rs"));
}

/// "What moved" names every path whose answer differs between two sets of roots:
/// a holder that re-splits only the paths below a root that came or went splits
/// exactly as one that asks of every path.
#[test]
fn only_a_path_below_a_root_that_came_or_went_changes_its_answer() {
    use proptest::prelude::*;
    let segment = prop::sample::select(vec![
        "a",
        "b",
        "a-b",
        "skills",
        "rules",
        ".claude",
        "templates",
        "SKILL.md",
        "x.md",
        "run.sh",
    ]);
    let path = prop::collection::vec(segment, 1..5).prop_map(|parts| parts.join("/"));
    let roots = (prop::collection::vec(path.clone(), 0..4), any::<bool>())
        .prop_map(|(roots, all)| PackageRoots::new(roots.iter().map(String::as_str), all));
    proptest!(|(before in roots.clone(), after in roots, asked in path)| {
        let changed = before.can_move_package(&asked) != after.can_move_package(&asked);
        match after.moved_since(&before) {
            None => prop_assert_ne!(before.source_root_binds_all, after.source_root_binds_all),
            Some(moved) => {
                prop_assert!(!changed || moved.touches(&asked), "{asked}: {moved:?}");
                prop_assert!(moved.added.iter().all(|r| !before.nested.iter().any(|b| b == r)));
                prop_assert!(moved.removed.iter().all(|r| !after.nested.iter().any(|a| a == r)));
            }
        }
    });
}

/// Only a path at or below a root that came or went is named (the property above
/// checks that every path whose answer changed is; this, that the others are not).
#[test]
fn what_moved_names_only_the_paths_below_a_root_that_came_or_went() {
    let before = PackageRoots::new(["a", "c"], false);
    let after = PackageRoots::new(["a", "a/b"], false);
    let moved = after
        .moved_since(&before)
        .expect("the source root binds the same");
    assert_eq!(
        (moved.added.clone(), moved.removed.clone()),
        (vec!["a/b"], vec!["c"])
    );
    for (path, expected) in [
        ("a/b", true),
        ("a/b/x.sh", true),
        ("c/x.sh", true),
        ("a/x.sh", false),
        ("a/bc/x.sh", false),
        ("cd/x.sh", false),
    ] {
        assert_eq!(moved.touches(path), expected, "{path}");
    }
    assert!(
        PackageRoots::new(["a"], true)
            .moved_since(&before)
            .is_none()
    );
}

#[test]
fn a_path_is_at_or_below_a_folder_only_at_a_segment_boundary() {
    for (path, dir, expected) in [
        ("a/b", "a", true),
        ("a", "a", true),
        ("a-b/c", "a", false),
        ("ab", "a", false),
        ("a/b/c", "a/b", true),
        ("a/bc", "a/b", false),
    ] {
        assert_eq!(at_or_below(path, dir), expected, "{path} under {dir}");
    }
}

/// Asking under two layouts at once is asking under each: a sync that asked the
/// combined question must never call harmless a write one of them calls moving.
#[test]
fn asking_under_either_layout_is_asking_under_each() {
    use proptest::prelude::*;
    let segment = prop::sample::select(vec![
        "a",
        "b",
        "skills",
        "rules",
        ".claude",
        "templates",
        "workflows",
        "SKILL.md",
        "AGENTS.md",
        "package.json",
        ".claude-plugin",
        "plugin.json",
        "x.md",
        "",
    ]);
    let path = prop::collection::vec(segment, 0..5).prop_map(|parts| parts.join("/"));
    let roots = (prop::collection::vec(path.clone(), 0..4), any::<bool>())
        .prop_map(|(roots, all)| PackageRoots::new(roots.iter().map(String::as_str), all));
    proptest!(|(before in roots.clone(), after in roots, asked in path)| {
        prop_assert_eq!(
            before.can_move_package_in_either(&after, &asked),
            before.can_move_package(&asked) || after.can_move_package(&asked)
        );
    });
}

#[test]
fn the_roots_depend_only_on_paths_that_signal_a_folder() {
    for (path, depends) in [
        ("SKILL.md", true),
        ("tools/lint/SKILL.md", true),
        (".claude/settings.local.json", true),
        ("pkg/.cursor/rules/style.mdc", true),
        ("pkg/skills/review/run.sh", true),
        ("docs/guide.txt", true),
        ("src/main.rs", false),
        ("src/docsy/notes.txt", false),
        ("skill.md", false),
        ("package.json", false),
        ("README.md", false),
    ] {
        assert_eq!(PackageRoots::depend_on_path(path), depends, "{path}");
    }
}
