//! The fixed names the layout rules match on (DESIGN.md section 4, "Categories" and
//! "Roots, precisely"). Names are matched per path segment and case-sensitively.

use crate::category::Category;

/// The well-known tool directories whose contents are matched like a package root
/// (seed 000: "recognized marker directories").
pub const MARKER_DIRS: [&str; 10] = [
    ".claude",
    ".agents",
    ".cursor",
    ".codex",
    ".gemini",
    ".windsurf",
    ".github",
    ".opencode",
    ".kilo",
    ".roo",
];

/// Basenames whose file is an identity instruction when it sits at a package root.
/// `copilot-instructions.md` counts only at the root of a `.github` package.
pub const IDENTITY_BASENAMES: [&str; 4] =
    ["AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md"];

/// The identity file of GitHub Copilot, an identity only at the root of `.github`.
pub const COPILOT_IDENTITY: &str = "copilot-instructions.md";

/// Rule files whose filename is the identity by protocol, matched at a package root.
pub const ROOT_RULE_FILES: [&str; 2] = [".cursorrules", ".windsurfrules"];

/// Directories under which no root forms and nothing is a contribution (seed 000:
/// "Workflow templates", "anything under template(s)/ directories").
pub const NEVER_CONTRIBUTION_DIRS: [&str; 3] = ["template", "templates", "workflows"];

/// Indexed and categorized, never loaded as runtime contributions from a source.
pub const NEVER_LOADED_FILES: [&str; 3] = [".mcp.json", "mcp.json", "hooks.json"];

/// The plugin directories whose `plugin.json` anchors the folder that holds them.
pub const PLUGIN_DIRS: [&str; 3] = [".claude-plugin", ".cursor-plugin", ".codex-plugin"];

/// Folders directly under a package root that are never skill folders (seed 001:
/// "Reserved directories (src, dist, tools, node_modules, the category folders, …)").
/// The skill bundle folders are reserved too, so a root skill's `scripts/` is its own.
const RESERVED_DIRS: [&str; 14] = [
    "src",
    "dist",
    "tools",
    "node_modules",
    "workflows",
    "template",
    "templates",
    "team",
    "routes",
    "app",
    "hooks",
    "scripts",
    "references",
    "assets",
];

/// The category a folder name declares, when it is one of the six category folders.
pub fn category_folder(name: &str) -> Option<Category> {
    Some(match name {
        "skills" => Category::Skill,
        "instructions" => Category::Instruction,
        "rules" => Category::Rule,
        "agents" => Category::Agent,
        "docs" => Category::Docs,
        "commands" => Category::Command,
        _ => return None,
    })
}

/// Whether a directory name is a recognized marker directory.
pub fn is_marker(name: &str) -> bool {
    MARKER_DIRS.contains(&name)
}

/// Whether a folder directly under a package root may hold a skill (`<subdir>/SKILL.md`).
pub fn is_reserved_dir(name: &str) -> bool {
    name.starts_with('.') || RESERVED_DIRS.contains(&name) || category_folder(name).is_some()
}

/// Whether a path segment puts everything below it out of the contribution categories.
pub fn is_never_contribution_dir(name: &str) -> bool {
    NEVER_CONTRIBUTION_DIRS.contains(&name)
}

/// `README*` files are indexed for search but never contributions. Matched in any case
/// (`readme.md`, `Readme.txt`): a README is one by its name, not its spelling (issue 27,
/// docs/decisions/layout.md).
pub fn is_readme(basename: &str) -> bool {
    basename
        .get(..6)
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case("README"))
}

/// Markdown by extension (`.md`); `.mdc` is separate because it counts only in
/// `.cursor/rules/`.
pub fn is_markdown(basename: &str) -> bool {
    basename.len() > 3 && basename.ends_with(".md")
}

/// A Cursor rule file (`.mdc`).
pub fn is_mdc(basename: &str) -> bool {
    basename.len() > 4 && basename.ends_with(".mdc")
}

/// `*.agent.md`: an agent wherever it sits inside a package root.
pub fn is_agent_md(basename: &str) -> bool {
    basename.len() > ".agent.md".len() && basename.ends_with(".agent.md")
}

/// A file the layout may read as a contribution: markdown, `.mdc`, or a root rule file.
pub fn is_contribution_shaped(basename: &str) -> bool {
    is_markdown(basename) || is_mdc(basename) || ROOT_RULE_FILES.contains(&basename)
}

/// The skill entry file.
pub const SKILL_FILE: &str = "SKILL.md";

/// Splits a `/`-separated relative path into its parent directory ("" at the top) and
/// its basename.
pub fn split_parent(path: &str) -> (&str, &str) {
    // A plain backwards scan: paths are short, and `rfind`'s word-at-a-time search
    // costs more to set up than it saves (measured with the `group` bench).
    match path.as_bytes().iter().rposition(|b| *b == b'/') {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => ("", path),
    }
}

/// The `/`-separated segments of `path`, as `str::split('/')` gives them, found by a
/// plain byte scan: `split`'s searcher costs more to set up than these short paths
/// take to scan (callgrind, the `group` bench).
pub fn segments(path: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(path);
    std::iter::from_fn(move || {
        let current = rest?;
        match current.bytes().position(|b| b == b'/') {
            Some(slash) => {
                rest = Some(&current[slash + 1..]);
                Some(&current[..slash])
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

/// The last segment of a directory path ("" for the source root).
pub fn basename(dir: &str) -> &str {
    split_parent(dir).1
}

/// `path` relative to the directory `dir` ("" is the source root), when `dir` encloses it.
pub fn relative_to<'a>(path: &'a str, dir: &str) -> Option<&'a str> {
    if dir.is_empty() {
        return Some(path);
    }
    path.strip_prefix(dir)?.strip_prefix('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_what_split_on_a_slash_gives() {
        for path in ["", "a", "a/b", "/a", "a/", "a//b", "a/b/c.md", "é/ü/x"] {
            let expected: Vec<&str> = path.split('/').collect();
            assert_eq!(segments(path).collect::<Vec<_>>(), expected, "{path:?}");
        }
    }

    #[test]
    fn category_folders_are_the_six_named_by_the_directory_contract() {
        for (name, category) in [
            ("skills", Category::Skill),
            ("instructions", Category::Instruction),
            ("rules", Category::Rule),
            ("agents", Category::Agent),
            ("docs", Category::Docs),
            ("commands", Category::Command),
        ] {
            assert_eq!(category_folder(name), Some(category), "{name}");
        }
        for name in ["skill", "Rules", "doc", "tools", "workflows", ""] {
            assert_eq!(category_folder(name), None, "{name}");
        }
    }

    #[test]
    fn marker_directories_are_matched_case_sensitively() {
        for name in MARKER_DIRS {
            assert!(is_marker(name));
        }
        for name in [".Claude", "claude", ".vscode", ".git", ".idea"] {
            assert!(!is_marker(name), "{name}");
        }
    }

    #[test]
    fn reserved_directories_are_never_skill_folders() {
        for name in [
            "src",
            "dist",
            "tools",
            "node_modules",
            "skills",
            "docs",
            ".hidden",
        ] {
            assert!(is_reserved_dir(name), "{name}");
        }
        for name in ["review", "deploy", "my-skill"] {
            assert!(!is_reserved_dir(name), "{name}");
        }
    }

    #[test]
    fn relative_to_requires_a_whole_segment_prefix() {
        assert_eq!(relative_to("a/b/c.md", "a"), Some("b/c.md"));
        assert_eq!(relative_to("a/b/c.md", ""), Some("a/b/c.md"));
        assert_eq!(relative_to("ab/c.md", "a"), None);
        assert_eq!(relative_to("a", "a"), None);
    }

    #[test]
    fn markdown_shapes_need_a_stem() {
        assert!(is_markdown("x.md") && !is_markdown(".md"));
        assert!(is_agent_md("x.agent.md") && !is_agent_md(".agent.md"));
        assert!(is_mdc("x.mdc") && !is_mdc(".mdc"));
        assert!(is_contribution_shaped(".cursorrules"));
        assert!(!is_contribution_shaped("x.json"));
    }
}
