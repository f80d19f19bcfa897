//! `runtime` (seed 002 "runtime — how the package executes"). The seed shows the shape
//! by example only; the validator checks that shape closed (see
//! docs/decisions/manifest.md): `type` is `node` or `wasm`, `permissions.exec` is a
//! boolean, `hosted.tools` is `all`, `none` or a list of tool names, the rest are words.

use crate::issue::Pointer;
use crate::shape::Cx;
use serde_json::Value;

const KEYS: &[&str] = &["type", "binding", "permissions", "hosted", "skillScripts"];

pub(crate) fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<Value> {
    let map = cx.object(value, at)?;
    cx.closed(map, at, KEYS);
    if let Some((v, p)) = cx.required(map, at, "type")
        && let Some(t) = cx.string(v, &p)
        && !matches!(t, "node" | "wasm")
    {
        cx.error(
            &p,
            format!("{t:?} is not a runtime type; allowed: node, wasm"),
        );
    }
    for key in ["binding", "skillScripts"] {
        cx.optional_text(map, at, key);
    }
    if let Some(p) = map.get("permissions") {
        check_permissions(cx, p, &at.key("permissions"));
    }
    if let Some(h) = map.get("hosted") {
        check_hosted(cx, h, &at.key("hosted"));
    }
    Some(value.clone())
}

fn check_permissions(cx: &mut Cx<'_>, value: &Value, at: &Pointer) {
    let Some(map) = cx.object(value, at) else {
        return;
    };
    cx.closed(map, at, &["fs", "net", "exec"]);
    cx.optional_text(map, at, "fs");
    cx.optional_text(map, at, "net");
    if let Some(exec) = map.get("exec") {
        cx.boolean(exec, &at.key("exec"));
    }
}

fn check_hosted(cx: &mut Cx<'_>, value: &Value, at: &Pointer) {
    let Some(map) = cx.object(value, at) else {
        return;
    };
    cx.closed(map, at, &["tools"]);
    let Some(tools) = map.get("tools") else {
        return;
    };
    let tools_at = at.key("tools");
    match tools {
        Value::String(s) if s == "all" || s == "none" => {}
        Value::Array(names) => check_names(cx, names, &tools_at),
        _ => cx.error(
            &tools_at,
            "must be \"all\", \"none\" or an array of tool names",
        ),
    }
}

fn check_names(cx: &mut Cx<'_>, names: &[Value], at: &Pointer) {
    for (i, name) in names.iter().enumerate() {
        cx.text(name, &at.index(i));
    }
}
