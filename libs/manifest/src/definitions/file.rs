//! Inline `files` entries (seed 001, "File-based entries override inline entries"): a
//! legacy manifest may list its markdown contributions inline. Discovered file-based
//! entries win by id; "inline entries without a matching file pass through unchanged":
//! the entry loads as declared — its category, title and description — from the
//! package file its `path` names.

use crate::issue::Pointer;
use crate::package_path::inside_package;
use crate::shape::Cx;
use neuralis_layout::Category;
use serde::Serialize;
use serde_json::Value;

/// One validated inline file entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InlineFile {
    pub id: String,
    pub category: Category,
    /// Package-relative, `/`-separated, a markdown file of the package.
    pub path: String,
    pub title: Option<String>,
    pub description: Option<String>,
}

/// The categories an inline entry may declare: seed 001's markdown categories.
const CATEGORIES: [Category; 5] = [
    Category::Skill,
    Category::Instruction,
    Category::Rule,
    Category::Agent,
    Category::Docs,
];

pub(crate) fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<InlineFile> {
    let map = cx.object(value, at)?;
    let id = cx.required_text(map, at, "id").map(str::to_owned);
    let category_text = required(cx, map, at, "category");
    let category = category(cx, category_text, &at.key("category"));
    let path = required(cx, map, at, "path").and_then(|p| path(cx, &p, &at.key("path")));
    let title = cx.optional_text(map, at, "title").map(str::to_owned);
    let description = cx.optional_text(map, at, "description").map(str::to_owned);
    Some(InlineFile {
        id: id?,
        category: category?,
        path: path?,
        title,
        description,
    })
}

fn required(
    cx: &mut Cx<'_>,
    map: &serde_json::Map<String, Value>,
    at: &Pointer,
    key: &str,
) -> Option<String> {
    cx.required_text(map, at, key).map(str::to_owned)
}

fn category(cx: &mut Cx<'_>, text: Option<String>, at: &Pointer) -> Option<Category> {
    let text = text?;
    match text.parse::<Category>() {
        Ok(category) if CATEGORIES.contains(&category) => Some(category),
        _ => {
            cx.error(
                at,
                format!("{text:?} is not one of skill, instruction, rule, agent, docs"),
            );
            None
        }
    }
}

fn path(cx: &mut Cx<'_>, path: &str, at: &Pointer) -> Option<String> {
    let path = match inside_package(path) {
        Ok(path) => path,
        Err(problem) => {
            cx.error(at, problem.to_string());
            return None;
        }
    };
    if !path.ends_with(".md") {
        cx.error(at, "must name a markdown (.md) file");
        return None;
    }
    if cx.files.is_some_and(|files| !files.contains(&path)) {
        cx.error(at, format!("{path:?} is not a file of the package"));
        return None;
    }
    Some(path)
}
