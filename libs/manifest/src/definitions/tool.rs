//! A tool definition (`tools/*.json` or inline): strict JSON Schema. The shape is
//! closed, the name is one global key (seed 002 "Tool names are global"), and
//! `inputSchema` is an object schema that compiles.

use crate::issue::Pointer;
use crate::requires::gate;
use crate::schema::schema_problem;
use crate::shape::Cx;
use serde::Serialize;
use serde_json::Value;

/// One validated tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
    /// Features a caller needs to use the tool.
    pub features: Vec<String>,
}

const KEYS: &[&str] = &[
    "name",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "requires",
];

/// `^[A-Za-z0-9_-]{1,64}$`: the name models call the tool by.
pub fn is_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

pub(crate) fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<ToolDef> {
    let map = cx.object(value, at)?;
    cx.closed(map, at, KEYS);
    let name = cx.required_text(map, at, "name").and_then(|name| {
        if is_tool_name(name) {
            return Some(name.to_owned());
        }
        cx.error(
            &at.key("name"),
            format!("{name:?} is not a tool name: letters, digits, _ and -, 1 to 64 characters"),
        );
        None
    });
    let description = cx.required_text(map, at, "description");
    let input_schema = input_schema(cx, map.get("inputSchema"), &at.key("inputSchema"));
    if let Some(out) = map.get("outputSchema")
        && let Some(problem) = schema_problem(out)
    {
        cx.error(&at.key("outputSchema"), problem);
    }
    if let Some(a) = map.get("annotations") {
        cx.object(a, &at.key("annotations"));
    }
    let features = map
        .get("requires")
        .map(|r| gate(cx, r, &at.key("requires")))
        .unwrap_or_default();
    Some(ToolDef {
        name: name?,
        description: description?.to_owned(),
        input_schema: input_schema?,
        features,
    })
}

fn input_schema(cx: &mut Cx<'_>, value: Option<&Value>, at: &Pointer) -> Option<Value> {
    let Some(schema) = value else {
        cx.error(at, "is required");
        return None;
    };
    if let Some(problem) = schema_problem(schema) {
        cx.error(at, problem);
        return None;
    }
    if schema.get("type") != Some(&Value::String("object".into())) {
        cx.error(
            &at.key("type"),
            "must be \"object\": a tool takes named arguments",
        );
        return None;
    }
    Some(schema.clone())
}
