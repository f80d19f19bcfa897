//! Declarative lifecycle hooks (`hooks.json` or inline): each names its id and the
//! lifecycle event it reacts to.

use crate::definitions::list;
use crate::issue::Pointer;
use crate::shape::Cx;
use serde::Serialize;
use serde_json::Value;

/// One validated hook; the rest of the declaration is kept as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookDef {
    pub id: String,
    pub event: String,
    pub declaration: Value,
}

pub(crate) fn check_all(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<HookDef> {
    list(cx, value, at, check, |h| h.id.clone(), "hook id")
}

fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<HookDef> {
    let map = cx.object(value, at)?;
    let id = cx.required_text(map, at, "id");
    let event = cx.required_text(map, at, "event");
    Some(HookDef {
        id: id?.to_owned(),
        event: event?.to_owned(),
        declaration: value.clone(),
    })
}
