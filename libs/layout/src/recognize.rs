//! Recognition: what a file is inside the package root it binds to, by path alone
//! (DESIGN.md section 4, the categories table). Admission by frontmatter comes after.

use crate::category::Category;
use crate::layout::UnloadedReason;
use crate::path_set::PathSet;
use crate::roots::{Root, skill_folder_of};
use crate::vocabulary::{
    COPILOT_IDENTITY, IDENTITY_BASENAMES, NEVER_LOADED_FILES, ROOT_RULE_FILES, SKILL_FILE,
    basename, category_folder, is_agent_md, is_contribution_shaped, is_markdown, is_mdc,
    is_never_contribution_dir, is_readme, segments,
};

/// What a file is within its root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape<'p> {
    /// A contribution candidate. `exempt`: the filename is the identity by protocol, so
    /// no frontmatter `id`/`name` is needed.
    Candidate {
        category: Category,
        identity: bool,
        exempt: bool,
    },
    /// A skill entry file; `folder` is the skill's directory (its scope).
    Skill { folder: &'p str },
    /// Inside a skill's folder: bundle content of that skill, not a contribution.
    BundleContent,
    /// Contribution-shaped, but not a contribution here.
    Unloaded(UnloadedReason),
    /// Neither a contribution nor shaped like one (code, settings, data).
    Other,
}

/// Where the file is being recognized: its root, and whether the tree is an installed
/// package (whose root-level loose markdown is package-meta).
pub(crate) struct Context<'r, 'a> {
    pub root: &'r Root<'a>,
    pub installed: bool,
    pub skills: &'r PathSet<'a>,
}

/// Recognizes `path` (relative to the source root) inside `context.root`.
pub(crate) fn recognize<'p>(path: &'p str, context: &Context<'_, '_>) -> Shape<'p> {
    let root = context.root;
    let offset = if root.dir.is_empty() {
        0
    } else {
        root.dir.len() + 1
    };
    let Some(relative) = path.get(offset..) else {
        return Shape::Other;
    };
    if relative == SKILL_FILE {
        let folder = path.get(..root.dir.len()).unwrap_or_default();
        return Shape::Skill { folder };
    }
    if let Some(folder) = skill_folder_of(path, root, context.skills) {
        return if path.len() == folder.len() + 1 + SKILL_FILE.len() && path.ends_with(SKILL_FILE) {
            Shape::Skill { folder }
        } else {
            Shape::BundleContent
        };
    }
    let base = basename(relative);
    if NEVER_LOADED_FILES.contains(&base) && !context.installed {
        return Shape::Unloaded(UnloadedReason::NeverLoadedFromSource);
    }
    if !is_contribution_shaped(base) {
        return Shape::Other;
    }
    if is_readme(base) {
        return Shape::Unloaded(UnloadedReason::Readme);
    }
    if segments(path).any(is_never_contribution_dir) {
        return Shape::Unloaded(UnloadedReason::TemplateOrWorkflow);
    }
    // At most three segments matter; reading them in place spares a vector per file.
    let mut parts = segments(relative);
    let segments = (
        parts.next().unwrap_or_default(),
        parts.next(),
        parts.next(),
        parts.next().is_some(),
    );
    let shape = match segments {
        (file, None, _, _) => root_level(file, context),
        (folder, Some(file), None, _) if category_folder(folder).is_some() => {
            in_category_folder(folder, file, root)
        }
        (".cursor", Some("rules"), Some(file), false) if is_mdc(file) => rule_by_protocol(),
        _ if is_agent_md(base) && !root.restricted() => candidate(Category::Agent, false, false),
        _ => None,
    };
    shape.unwrap_or(Shape::Unloaded(if root.restricted() {
        UnloadedReason::Unclaimed
    } else {
        UnloadedReason::NotAContributionPath
    }))
}

fn candidate<'p>(category: Category, identity: bool, exempt: bool) -> Option<Shape<'p>> {
    Some(Shape::Candidate {
        category,
        identity,
        exempt,
    })
}

fn rule_by_protocol<'p>() -> Option<Shape<'p>> {
    candidate(Category::Rule, false, true)
}

/// Files directly at the root: identity files, `.cursorrules`/`.windsurfrules`.
fn root_level<'p>(file: &str, context: &Context<'_, '_>) -> Option<Shape<'p>> {
    let root = context.root;
    if ROOT_RULE_FILES.contains(&file) {
        return rule_by_protocol();
    }
    let identity = IDENTITY_BASENAMES.contains(&file)
        || (file == COPILOT_IDENTITY && basename(root.dir) == ".github");
    if context.installed && is_markdown(file) {
        // Seed 001: "README.md, AGENTS.md, PLAN.md, and any other markdown at the
        // package root are package-meta files, never contributions."
        return Some(Shape::Unloaded(UnloadedReason::PackageMeta));
    }
    if identity {
        return candidate(Category::Instruction, true, true);
    }
    if is_agent_md(file) && !root.restricted() {
        return candidate(Category::Agent, false, false);
    }
    None
}

/// `<category>/<file>`: direct children of a category folder.
fn in_category_folder<'p>(folder: &str, file: &str, root: &Root<'_>) -> Option<Shape<'p>> {
    let category = category_folder(folder)?;
    if is_mdc(file) {
        // ".mdc counts only in .cursor/rules/"
        return (category == Category::Rule && basename(root.dir) == ".cursor")
            .then(rule_by_protocol)
            .flatten();
    }
    if !is_markdown(file) {
        return None;
    }
    match category {
        Category::Skill => None,
        Category::Command => candidate(Category::Command, false, true),
        Category::Docs if root.restricted() => {
            Some(Shape::Unloaded(UnloadedReason::DocsAtSourceRoot))
        }
        // "a folder pattern wins over *.agent.md (rules/x.agent.md is a rule)"
        other => candidate(other, false, false),
    }
}
