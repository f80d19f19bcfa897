//! `connectors` (seed 002 "connectors — sources and external services"): a source
//! kind with a closed config schema and a factory module inside the package, or an
//! MCP/OpenAPI/HTTP connector. Every connector needs a description.

use crate::issue::Pointer;
use crate::package_path::inside_package;
use crate::schema::schema_problem;
use crate::secret_names::looks_secret;
use crate::shape::Cx;
use serde::Serialize;
use serde_json::{Map, Value};

/// One validated connector declaration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Connector {
    pub id: String,
    /// `source`, `mcp`, `openapi` or `http`.
    #[serde(rename = "type")]
    pub kind: String,
    pub description: String,
}

pub(crate) fn check_all(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<Connector> {
    let Some(items) = cx.array(value, at) else {
        return Vec::new();
    };
    let mut connectors: Vec<Connector> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = at.index(i);
        let Some(connector) = check(cx, item, &item_at) else {
            continue;
        };
        if connectors.iter().any(|c| c.id == connector.id) {
            cx.error(
                &item_at.key("id"),
                format!("duplicate connector id {:?}", connector.id),
            );
            continue;
        }
        connectors.push(connector);
    }
    connectors
}

fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<Connector> {
    let map = cx.object(value, at)?;
    let id = cx.required_text(map, at, "id");
    let description = cx.required_text(map, at, "description");
    let (kind_value, kind_at) = cx.required(map, at, "type")?;
    let kind = cx.string(kind_value, &kind_at)?;
    match kind {
        "source" => check_source_kind(cx, map, at),
        "mcp" | "openapi" | "http" => check_service(cx, map, at),
        other => cx.error(
            &kind_at,
            format!("{other:?} is not a connector type; allowed: source, mcp, openapi, http"),
        ),
    }
    Some(Connector {
        id: id?.to_owned(),
        kind: kind.to_owned(),
        description: description?.to_owned(),
    })
}

/// A source kind: closed `configSchema`, `capabilities`, `connectorFactory` path.
fn check_source_kind(cx: &mut Cx<'_>, map: &Map<String, Value>, at: &Pointer) {
    if let Some((schema, schema_at)) = cx.required(map, at, "configSchema") {
        check_config_schema(cx, schema, &schema_at);
    }
    if let Some(caps) = map.get("capabilities") {
        let caps_at = at.key("capabilities");
        if let Some(items) = cx.array(caps, &caps_at) {
            for (i, cap) in items.iter().enumerate() {
                cx.text(cap, &caps_at.index(i));
            }
        }
    }
    if let Some(factory) = cx.required_text(map, at, "connectorFactory")
        && let Err(problem) = inside_package(factory)
    {
        cx.error(
            &at.key("connectorFactory"),
            format!("{problem}; the factory module is a path inside the package"),
        );
    }
}

fn check_config_schema(cx: &mut Cx<'_>, schema: &Value, at: &Pointer) {
    if let Some(problem) = schema_problem(schema) {
        cx.error(at, problem);
        return;
    }
    if schema.get("additionalProperties") != Some(&Value::Bool(false)) {
        cx.error(
            &at.key("additionalProperties"),
            "must be false: a source kind's config schema is closed",
        );
    }
    let Some(Value::Object(props)) = schema.get("properties") else {
        return;
    };
    for name in props.keys().filter(|n| looks_secret(n)) {
        cx.warn(
            &at.key("properties").key(name),
            "looks like a secret; declare it in credentials[] and read it through the credential resolver",
        );
    }
}

/// MCP/OpenAPI/HTTP: `transports` and an optional `auth` block.
fn check_service(cx: &mut Cx<'_>, map: &Map<String, Value>, at: &Pointer) {
    if let Some(t) = map.get("transports") {
        cx.array(t, &at.key("transports"));
    }
    if let Some(auth) = map.get("auth") {
        let auth_at = at.key("auth");
        if let Some(auth) = cx.object(auth, &auth_at)
            && let Some(fields) = auth.get("setupFields")
        {
            cx.array(fields, &auth_at.key("setupFields"));
        }
    }
}
