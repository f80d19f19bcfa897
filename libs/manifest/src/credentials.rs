//! `credentials` (seed 002 "credentials — declared credential ids"): the shape is
//! exactly `{id, label, category?, oauth?}`; the id passes the credential-id charset
//! because it becomes an `<id>.enc.json` path segment; the reserved self-scope
//! namespaces (git, channel, mcp) are first-party only.

use crate::issue::Pointer;
use crate::shape::Cx;
use neuralis_layout::Trust;
use serde::Serialize;
use serde_json::Value;

/// One declared credential id (catalog metadata, never a grant).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Credential {
    pub id: String,
    pub label: String,
    pub category: Option<String>,
    /// Display hint: the catalog renders Connect/Disconnect instead of a value field.
    pub oauth: bool,
}

const MAX_ID_LEN: usize = 128;
const RESERVED: &[&str] = &["git", "channel", "mcp"];

/// `^[A-Za-z_][A-Za-z0-9_.-]*$`, at most 128 characters (so no slash, no leading dot).
pub fn is_credential_id(id: &str) -> bool {
    id.len() <= MAX_ID_LEN
        && id.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// The reserved namespace an id falls in (`git.github.com.pat` is in `git`).
pub fn reserved_namespace(id: &str) -> Option<&'static str> {
    let first = id.split('.').next().unwrap_or(id);
    RESERVED.iter().copied().find(|ns| *ns == first)
}

pub(crate) fn check_all(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<Credential> {
    let Some(items) = cx.array(value, at) else {
        return Vec::new();
    };
    let mut credentials: Vec<Credential> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = at.index(i);
        let Some(credential) = check(cx, item, &item_at) else {
            continue;
        };
        if credentials.iter().any(|c| c.id == credential.id) {
            cx.error(
                &item_at.key("id"),
                format!("duplicate credential id {:?}", credential.id),
            );
            continue;
        }
        credentials.push(credential);
    }
    credentials
}

fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<Credential> {
    let map = cx.object(value, at)?;
    cx.closed(map, at, &["id", "label", "category", "oauth"]);
    let id = id(cx, map.get("id"), &at.key("id"));
    let label = cx.required_text(map, at, "label");
    let category = cx.optional_text(map, at, "category").map(str::to_owned);
    let oauth = match map.get("oauth") {
        Some(v) => cx.boolean(v, &at.key("oauth"))?,
        None => false,
    };
    Some(Credential {
        id: id?,
        label: label?.to_owned(),
        category,
        oauth,
    })
}

fn id(cx: &mut Cx<'_>, value: Option<&Value>, at: &Pointer) -> Option<String> {
    let Some(value) = value else {
        cx.error(at, "is required");
        return None;
    };
    let id = cx.string(value, at)?;
    if !is_credential_id(id) {
        cx.error(
            at,
            format!("{id:?} is not a credential id: ^[A-Za-z_][A-Za-z0-9_.-]*$, at most {MAX_ID_LEN} characters (it becomes a file name)"),
        );
        return None;
    }
    if let Some(ns) = reserved_namespace(id)
        && cx.trust < Trust::FirstParty
    {
        cx.error(at, format!("{id:?} is in the reserved {ns}. namespace, which only first-party packages may declare"));
        return None;
    }
    Some(id.to_owned())
}
