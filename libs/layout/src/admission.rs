//! Admission: the path decides the category, the file's own declaration decides
//! whether it is a contribution (seed 000, "Admission"; seed 001, "Category comes from
//! the folder"). Also the id and title chains and the pinned defaults.

use crate::capture::FilePayload;
use crate::category::{Category, default_state};
use crate::frontmatter::{Frontmatter, FrontmatterStatus};
use crate::layout::{Contribution, UnloadedReason};
use crate::vocabulary::{basename, split_parent};

/// What recognition decided about a file that may be a contribution.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Form<'p> {
    /// A skill entry file; `fallback_id` names it when frontmatter does not (the
    /// skill's folder, or the package name for a root skill of the source root).
    Skill { fallback_id: &'p str },
    /// Any other contribution; `exempt` forms need no frontmatter `id`/`name`.
    Flat {
        category: Category,
        identity: bool,
        exempt: bool,
    },
}

/// Admits a file and builds its contribution, or says why it stays unloaded.
pub(crate) fn admit(
    path: &str,
    form: Form<'_>,
    payload: &FilePayload,
) -> Result<Contribution, UnloadedReason> {
    if payload.frontmatter_status == FrontmatterStatus::Malformed {
        return Err(UnloadedReason::MalformedFrontmatter);
    }
    let empty = Frontmatter::default();
    let frontmatter = payload.frontmatter.as_deref().unwrap_or(&empty);
    let (category, identity, fallback_id) = match form {
        Form::Skill { fallback_id } => {
            // "a skill that declares context: fork in its frontmatter registers as an agent"
            let fork = frontmatter.context.as_deref() == Some("fork");
            let category = if fork {
                Category::Agent
            } else {
                Category::Skill
            };
            (category, false, fallback_id)
        }
        Form::Flat {
            category,
            identity,
            exempt,
        } => {
            if !exempt && !frontmatter.declares_identity() {
                // "a title: or description: alone never promotes a file"
                return Err(UnloadedReason::NoIdOrName);
            }
            (category, identity, stem(basename(path)))
        }
    };
    Ok(contribution(
        path,
        category,
        identity,
        fallback_id,
        frontmatter,
    ))
}

/// Reads what [`admit`] will read of each payload (the status, the frontmatter's
/// fields, the first bytes of its strings) and drops it: called on a batch of payloads
/// before admitting them, so that their cache misses are taken together instead of one
/// admission at a time. Changes nothing; only the cache sees it.
pub(crate) fn read_ahead<'p>(payloads: impl Iterator<Item = &'p FilePayload>) {
    let text = |s: &Option<String>| {
        s.as_deref()
            .map_or(0, |s| s.len() + s.bytes().next().map_or(0, usize::from))
    };
    let mut seen = 0usize;
    for payload in payloads {
        seen = seen.wrapping_add(payload.frontmatter_status as usize);
        if let Some(fm) = &payload.frontmatter {
            seen = seen
                .wrapping_add(text(&fm.id))
                .wrapping_add(text(&fm.name))
                .wrapping_add(text(&fm.title))
                .wrapping_add(text(&fm.description))
                .wrapping_add(text(&fm.context))
                .wrapping_add(text(&fm.activation_target))
                .wrapping_add(fm.required_features.len())
                .wrapping_add(fm.allowed_tools.len())
                .wrapping_add(usize::from(fm.credentials.is_some()))
                .wrapping_add(fm.metadata.as_ref().map_or(0, serde_json::Map::len));
        }
    }
    // Kept, so the reads are not optimized away.
    std::hint::black_box(seen);
}

fn contribution(
    path: &str,
    category: Category,
    identity: bool,
    fallback_id: &str,
    frontmatter: &Frontmatter,
) -> Contribution {
    // The fallback is copied only when used: most admitted files declare an id or name.
    let id = frontmatter
        .id
        .clone()
        .or_else(|| frontmatter.name.clone())
        .unwrap_or_else(|| fallback_id.to_owned());
    let title = frontmatter
        .title
        .clone()
        .or_else(|| frontmatter.name.clone())
        .unwrap_or_else(|| id.clone());
    let (default_enabled, invocation) = default_state(category, identity);
    Contribution {
        path: path.to_owned(),
        category,
        id,
        title,
        description: frontmatter.description.clone(),
        identity,
        default_enabled,
        invocation,
        required_features: frontmatter.required_features.clone(),
        credentials: frontmatter.credentials.clone(),
        allowed_tools: frontmatter.allowed_tools.clone(),
        metadata: frontmatter.metadata.clone(),
        bundle: Vec::new(),
        overwrite: frontmatter.overwrite == Some(true),
        activation_target: frontmatter.activation_target.clone(),
        downgraded_from: None,
    }
}

/// The id a file falls back to: its name without the contribution extension or a
/// leading dot (`style.md` → `style`, `x.agent.md` → `x`, `.cursorrules` → `cursorrules`).
fn stem(file: &str) -> &str {
    let stem = [".agent.md", ".md", ".mdc"]
        .iter()
        .find_map(|ext| file.strip_suffix(ext))
        .unwrap_or(file);
    stem.strip_prefix('.').unwrap_or(stem)
}

/// The fallback id of a skill: its folder's name, or `package_name` for a skill whose
/// folder is the source root.
pub(crate) fn skill_fallback<'a>(path: &'a str, package_name: &'a str) -> &'a str {
    let folder = split_parent(path).0;
    if folder.is_empty() {
        package_name
    } else {
        basename(folder)
    }
}

#[cfg(test)]
mod tests;
