//! A declarative workflow template (`workflows/*.json`, file-only). Templates reach
//! the platform only through package discovery and this strict check.

use crate::issue::Pointer;
use crate::shape::Cx;
use serde::Serialize;
use serde_json::Value;

/// One validated workflow template.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkflowDef {
    /// The declared id, else the file stem.
    pub id: String,
    pub title: Option<String>,
    pub steps: usize,
}

pub(crate) fn check(
    cx: &mut Cx<'_>,
    stem: &str,
    value: &Value,
    at: &Pointer,
) -> Option<WorkflowDef> {
    let map = cx.object(value, at)?;
    cx.closed(map, at, &["id", "title", "description", "inputs", "steps"]);
    let id = cx.optional_text(map, at, "id").unwrap_or(stem).to_owned();
    let title = cx.optional_text(map, at, "title").map(str::to_owned);
    cx.optional_text(map, at, "description");
    let (steps, steps_at) = cx.required(map, at, "steps")?;
    let steps = cx.array(steps, &steps_at)?;
    if steps.is_empty() {
        cx.error(&steps_at, "must list at least one step");
        return None;
    }
    for (i, step) in steps.iter().enumerate() {
        cx.object(step, &steps_at.index(i));
    }
    Some(WorkflowDef {
        id,
        title,
        steps: steps.len(),
    })
}
