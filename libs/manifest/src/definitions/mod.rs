//! File-first declarations that may also appear inline in the manifest (seed 001
//! "File-based entries override inline entries"): tools, commands, hooks, team
//! members, and workflow templates (file-only). One validator per kind serves both
//! the inline form (pointer under `/neuralis/...`) and the file form (pointer into the
//! file), so the two never disagree.

mod command;
mod file;
mod hook;
mod team;
mod tool;
mod workflow;

pub use command::CommandDef;
pub use file::InlineFile;
pub use hook::HookDef;
pub use team::TeamMember;
pub use tool::{ToolDef, is_tool_name};
pub use workflow::WorkflowDef;

use crate::issue::{Issue, Issues, Pointer};
use crate::shape::Cx;
use neuralis_layout::Trust;
use serde_json::Value;

/// Runs one definition check on a standalone document (a file), returning the
/// definition or every error found in it.
fn standalone<T>(
    value: &Value,
    check: impl FnOnce(&mut Cx<'_>, &Value, &Pointer) -> Option<T>,
) -> Result<T, Vec<Issue>> {
    let mut cx = Cx {
        issues: Issues::default(),
        trust: Trust::Untrusted,
        package_name: None,
        files: None,
    };
    let out = check(&mut cx, value, &Pointer::root());
    match out {
        Some(def) if cx.issues.errors.is_empty() => Ok(def),
        _ => Err(cx.issues.errors),
    }
}

/// Validates a `tools/*.json` document: a strict JSON-Schema tool definition.
pub fn tool_file(value: &Value) -> Result<ToolDef, Vec<Issue>> {
    standalone(value, tool::check)
}

/// Validates a `commands/*.json` document.
pub fn command_file(value: &Value) -> Result<CommandDef, Vec<Issue>> {
    standalone(value, command::check)
}

/// Validates a `hooks.json` document (an array of hooks, or `{"hooks": [...]}`).
pub fn hooks_file(value: &Value) -> Result<Vec<HookDef>, Vec<Issue>> {
    standalone(value, |cx, v, at| {
        let (list, list_at) = match v.get("hooks") {
            Some(list) if v.is_object() => (list, at.key("hooks")),
            _ => (v, at.clone()),
        };
        Some(hook::check_all(cx, list, &list_at))
    })
}

/// Validates a `team/<slug>/member.json` document; `slug` comes from the folder.
pub fn member_file(slug: &str, value: &Value) -> Result<TeamMember, Vec<Issue>> {
    standalone(value, |cx, v, at| team::check_file(cx, slug, v, at))
}

/// Validates a `workflows/*.json` template; `stem` is the file name without `.json`.
pub fn workflow_file(stem: &str, value: &Value) -> Result<WorkflowDef, Vec<Issue>> {
    standalone(value, |cx, v, at| workflow::check(cx, stem, v, at))
}

/// The inline declarations of a manifest.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Inline {
    pub tools: Vec<ToolDef>,
    pub commands: Vec<CommandDef>,
    pub hooks: Vec<HookDef>,
    pub team: Vec<TeamMember>,
    /// Inline markdown contributions (`files`), loaded where no file-based one has
    /// their id.
    pub files: Vec<InlineFile>,
}

pub(crate) fn check_inline(
    cx: &mut Cx<'_>,
    block: &serde_json::Map<String, Value>,
    at: &Pointer,
) -> Inline {
    let mut inline = Inline::default();
    if let Some(v) = block.get("tools") {
        inline.tools = list(
            cx,
            v,
            &at.key("tools"),
            tool::check,
            |t| t.name.clone(),
            "tool name",
        );
    }
    if let Some(v) = block.get("commands") {
        inline.commands = list(
            cx,
            v,
            &at.key("commands"),
            command::check,
            |c| c.id.clone(),
            "command id",
        );
    }
    if let Some(v) = block.get("hooks") {
        inline.hooks = hook::check_all(cx, v, &at.key("hooks"));
    }
    if let Some(v) = block.get("files") {
        inline.files = list(
            cx,
            v,
            &at.key("files"),
            file::check,
            |f| f.id.clone(),
            "file id",
        );
    }
    if let Some(v) = block.get("team") {
        inline.team = list(
            cx,
            v,
            &at.key("team"),
            team::check_inline,
            |m| m.slug.clone(),
            "team member slug",
        );
    }
    inline
}

/// An array of definitions with a unique key each.
pub(crate) fn list<T>(
    cx: &mut Cx<'_>,
    value: &Value,
    at: &Pointer,
    check: fn(&mut Cx<'_>, &Value, &Pointer) -> Option<T>,
    key: fn(&T) -> String,
    what: &str,
) -> Vec<T> {
    let Some(items) = cx.array(value, at) else {
        return Vec::new();
    };
    let mut out: Vec<T> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = at.index(i);
        let Some(def) = check(cx, item, &item_at) else {
            continue;
        };
        if out.iter().any(|d| key(d) == key(&def)) {
            cx.error(&item_at, format!("duplicate {what} {:?}", key(&def)));
            continue;
        }
        out.push(def);
    }
    out
}
