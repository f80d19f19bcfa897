//! `events` (seed 002 "events — what a person should hear about"): first-party only,
//! at most 64, each with a valid `dataSchema` and a subject that has a source file
//! (`src/events/<subject>.ts`, compiled to `dist/src/events/`).

use crate::issue::Pointer;
use crate::requires::gate;
use crate::schema::schema_problem;
use crate::shape::Cx;
use serde::Serialize;
use serde_json::{Map, Value};

/// One validated event declaration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventDecl {
    pub id: String,
    pub title: String,
    pub subject: String,
    /// Features a person needs to hear about the event.
    pub features: Vec<String>,
}

const MAX_EVENTS: usize = 64;
const KEYS: &[&str] = &[
    "id",
    "title",
    "subject",
    "dataSchema",
    "requires",
    "notify",
    "dock",
];

pub(crate) fn check_all(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<EventDecl> {
    let Some(items) = cx.array(value, at) else {
        return Vec::new();
    };
    if items.len() > MAX_EVENTS {
        cx.error(
            at,
            format!(
                "declares {} events; at most {MAX_EVENTS} per package",
                items.len()
            ),
        );
    }
    let mut events: Vec<EventDecl> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = at.index(i);
        let Some(event) = check(cx, item, &item_at) else {
            continue;
        };
        if events.iter().any(|e| e.id == event.id) {
            cx.error(
                &item_at.key("id"),
                format!("duplicate event id {:?}", event.id),
            );
            continue;
        }
        events.push(event);
    }
    events
}

/// A subject names a source file: lowercase letters, digits, `_`, `-`, at most 64.
pub fn is_subject(subject: &str) -> bool {
    subject.len() <= 64
        && subject.starts_with(|c: char| c.is_ascii_lowercase())
        && subject
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<EventDecl> {
    let map = cx.object(value, at)?;
    cx.closed(map, at, KEYS);
    let id = cx.required_text(map, at, "id");
    let title = cx.required_text(map, at, "title");
    let subject = subject(cx, map, at);
    if let Some((schema, schema_at)) = cx.required(map, at, "dataSchema") {
        check_data_schema(cx, schema, &schema_at);
    }
    let features = map
        .get("requires")
        .map(|r| gate(cx, r, &at.key("requires")))
        .unwrap_or_default();
    if let Some(notify) = map.get("notify") {
        check_notify(cx, notify, &at.key("notify"));
    }
    cx.optional_text(map, at, "dock");
    Some(EventDecl {
        id: id?.to_owned(),
        title: title?.to_owned(),
        subject: subject?,
        features,
    })
}

/// A valid schema; when it declares the two row-shaping keys, `title` is a string and
/// `nav` an object (`{widgetType, initialState?}`).
fn check_data_schema(cx: &mut Cx<'_>, schema: &Value, at: &Pointer) {
    if let Some(problem) = schema_problem(schema) {
        cx.error(at, problem);
        return;
    }
    for (key, expected) in [("title", "string"), ("nav", "object")] {
        let Some(declared) = schema.pointer(&format!("/properties/{key}")) else {
            continue;
        };
        if declared.get("type").and_then(Value::as_str) != Some(expected) {
            let key_at = at.key("properties").key(key);
            cx.error(&key_at, format!("the notification row reads data.{key} as {expected}; declare \"type\": \"{expected}\""));
        }
    }
}

fn subject(cx: &mut Cx<'_>, map: &Map<String, Value>, at: &Pointer) -> Option<String> {
    let subject = cx.required_text(map, at, "subject")?;
    let subject_at = at.key("subject");
    if !is_subject(subject) {
        cx.error(
            &subject_at,
            format!("{subject:?} is not a subject: lowercase letters, digits, _ and -, at most 64"),
        );
        return None;
    }
    let Some(files) = cx.files else {
        return Some(subject.to_owned());
    };
    let source = format!("src/events/{subject}.ts");
    let compiled = format!("dist/src/events/{subject}.js");
    if !files.contains(&source) && !files.contains(&compiled) {
        cx.error(
            &subject_at,
            format!(
                "subject {subject:?} has no source file; expected {source} (compiled to {compiled})"
            ),
        );
    }
    Some(subject.to_owned())
}

fn check_notify(cx: &mut Cx<'_>, value: &Value, at: &Pointer) {
    let Some(map) = cx.object(value, at) else {
        return;
    };
    cx.closed(map, at, &["default", "tone"]);
    if let Some(v) = map.get("default") {
        let p = at.key("default");
        if let Some(d) = cx.string(v, &p)
            && !matches!(d, "on" | "off")
        {
            cx.error(
                &p,
                format!("{d:?} is not a notify default; allowed: on, off"),
            );
        }
    }
    if let Some(v) = map.get("tone") {
        let p = at.key("tone");
        if let Some(t) = cx.string(v, &p)
            && !matches!(t, "info" | "success" | "warning" | "error")
        {
            cx.error(
                &p,
                format!("{t:?} is not a tone; allowed: info, success, warning, error"),
            );
        }
    }
}
