//! A prompt/slash command definition (`commands/*.json` or inline).

use crate::issue::Pointer;
use crate::shape::Cx;
use serde::Serialize;
use serde_json::Value;

/// One validated command; `id` is the declared id, else the name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandDef {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub prompt: String,
}

pub(crate) fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<CommandDef> {
    let map = cx.object(value, at)?;
    cx.closed(
        map,
        at,
        &["id", "name", "description", "prompt", "arguments"],
    );
    let name = cx.required_text(map, at, "name");
    let id = cx.optional_text(map, at, "id");
    let description = cx.optional_text(map, at, "description").map(str::to_owned);
    let prompt = cx.required_text(map, at, "prompt");
    if let Some(args) = map.get("arguments") {
        cx.array(args, &at.key("arguments"));
    }
    let name = name?.to_owned();
    Some(CommandDef {
        id: id.map(str::to_owned).unwrap_or_else(|| name.clone()),
        name,
        description,
        prompt: prompt?.to_owned(),
    })
}
