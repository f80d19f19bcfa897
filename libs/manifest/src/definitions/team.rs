//! Team members (`team/<slug>/member.json` or inline). Their template paths must stay
//! inside the package (seed 002: "That includes the team-member template paths, which
//! must stay inside the package").

use crate::issue::Pointer;
use crate::package_path::inside_package;
use crate::shape::Cx;
use serde::Serialize;
use serde_json::{Map, Value};

/// One validated team member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TeamMember {
    pub slug: String,
    pub name: Option<String>,
    /// Every template path the member names, normalized and package-relative.
    pub paths: Vec<String>,
}

const KEYS: &[&str] = &[
    "slug",
    "name",
    "title",
    "description",
    "role",
    "template",
    "identity",
    "files",
];

/// `^[a-z0-9][a-z0-9-]*$`, at most 64: the member's folder name.
pub fn is_member_slug(slug: &str) -> bool {
    slug.len() <= 64
        && slug.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && slug
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

pub(crate) fn check_inline(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<TeamMember> {
    let map = cx.object(value, at)?;
    let slug = cx.required_text(map, at, "slug").map(str::to_owned);
    member(cx, map, at, slug)
}

pub(crate) fn check_file(
    cx: &mut Cx<'_>,
    slug: &str,
    value: &Value,
    at: &Pointer,
) -> Option<TeamMember> {
    let map = cx.object(value, at)?;
    if let Some(declared) = cx.optional_text(map, at, "slug")
        && declared != slug
    {
        cx.error(
            &at.key("slug"),
            format!("{declared:?} differs from the folder name {slug:?}"),
        );
    }
    member(cx, map, at, Some(slug.to_owned()))
}

fn member(
    cx: &mut Cx<'_>,
    map: &Map<String, Value>,
    at: &Pointer,
    slug: Option<String>,
) -> Option<TeamMember> {
    cx.closed(map, at, KEYS);
    let slug = slug.filter(|s| {
        let ok = is_member_slug(s);
        if !ok {
            cx.error(
                &at.key("slug"),
                format!("{s:?} is not a member slug: lowercase letters, digits and -, at most 64"),
            );
        }
        ok
    });
    let name = cx.optional_text(map, at, "name").map(str::to_owned);
    let mut paths = Vec::new();
    if let Some(t) = map.get("template") {
        paths.extend(template_path(cx, t, &at.key("template")));
    }
    for key in ["identity", "files"] {
        let Some(v) = map.get(key) else { continue };
        let list_at = at.key(key);
        let Some(items) = cx.array(v, &list_at) else {
            continue;
        };
        paths.extend(
            items
                .iter()
                .enumerate()
                .filter_map(|(i, p)| template_path(cx, p, &list_at.index(i))),
        );
    }
    Some(TeamMember {
        slug: slug?,
        name,
        paths,
    })
}

fn template_path(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<String> {
    let text = cx.string(value, at)?;
    match inside_package(text) {
        Ok(path) => Some(path),
        Err(problem) => {
            cx.error(
                at,
                format!("{problem}; a team-member template path stays inside the package"),
            );
            None
        }
    }
}
