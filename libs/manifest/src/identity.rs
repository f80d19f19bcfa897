//! Identity fields (seed 002 "Minimal manifest", "access.trust"): the package id and
//! its human- and model-facing texts, and the self-declared trust that never counts.

use crate::issue::Pointer;
use crate::shape::{Cx, tier_name};
use neuralis_layout::Trust;
use serde::Serialize;
use serde_json::{Map, Value};

/// Who the package is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Identity {
    /// `neuralis.id`, else the npm `name`.
    pub id: String,
    /// Display name.
    pub name: Option<String>,
    /// Human-facing description.
    pub description: Option<String>,
    /// LLM-facing description (use cases, not implementation).
    #[serde(rename = "descriptionForModel")]
    pub description_for_model: Option<String>,
    /// The npm version, when present.
    pub version: Option<String>,
}

/// The longest npm package name.
const MAX_ID_LEN: usize = 214;

/// Whether `id` is a package id: an npm name, optionally scoped (`@acme/reports`),
/// lowercase letters, digits, `.`, `_`, `-`, not starting with `.` or `_`.
pub fn is_package_id(id: &str) -> bool {
    if id.is_empty() || id.len() > MAX_ID_LEN {
        return false;
    }
    let bare = match id.strip_prefix('@') {
        Some(scoped) => match scoped.split_once('/') {
            Some((scope, name)) => {
                if !is_name_part(scope) {
                    return false;
                }
                name
            }
            None => return false,
        },
        None => id,
    };
    is_name_part(bare)
}

fn is_name_part(part: &str) -> bool {
    let first_ok = part
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    first_ok
        && part
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
}

pub(crate) fn check(
    cx: &mut Cx<'_>,
    doc: &Map<String, Value>,
    block: &Map<String, Value>,
    at: &Pointer,
) -> Option<Identity> {
    let id = package_id(cx, doc, block, at);
    let mut texts = [None, None, None];
    for (slot, key) in texts
        .iter_mut()
        .zip(["name", "description", "descriptionForModel"])
    {
        *slot = cx.optional_text(block, at, key).map(str::to_owned);
    }
    let version = match doc.get("version") {
        Some(v) => cx
            .string(v, &Pointer::root().key("version"))
            .map(str::to_owned),
        None => None,
    };
    check_self_declared_trust(cx, block, at);
    let [name, description, description_for_model] = texts;
    Some(Identity {
        id: id?,
        name,
        description,
        description_for_model,
        version,
    })
}

fn package_id(
    cx: &mut Cx<'_>,
    doc: &Map<String, Value>,
    block: &Map<String, Value>,
    at: &Pointer,
) -> Option<String> {
    let (value, pointer) = match (block.get("id"), doc.get("name")) {
        (Some(v), _) => (v, at.key("id")),
        (None, Some(v)) => (v, Pointer::root().key("name")),
        (None, None) => {
            cx.error(&at.key("id"), "is required when package.json has no name");
            return None;
        }
    };
    let id = cx.string(value, &pointer)?;
    if !is_package_id(id) {
        cx.error(
            &pointer,
            format!("{id:?} is not a package id: an npm name (optionally @scope/name) of lowercase letters, digits, '.', '_', '-', at most {MAX_ID_LEN} characters"),
        );
        return None;
    }
    Some(id.to_owned())
}

/// `access.trust` is read only to tell the author it does not count: the host assigns
/// trust by source, and a self-declaration never raises it.
fn check_self_declared_trust(cx: &mut Cx<'_>, block: &Map<String, Value>, at: &Pointer) {
    let Some(access) = block.get("access") else {
        return;
    };
    let access_at = at.key("access");
    let Some(access) = cx.object(access, &access_at) else {
        return;
    };
    cx.closed(access, &access_at, &["trust"]);
    let Some(value) = access.get("trust") else {
        return;
    };
    let trust_at = access_at.key("trust");
    let Some(text) = cx.string(value, &trust_at) else {
        return;
    };
    match text.parse::<Trust>() {
        Err(_) => cx.error(&trust_at, "must be one of first-party, trusted, untrusted"),
        Ok(declared) if declared > cx.trust => cx.warn(
            &trust_at,
            format!("self-declared {text} is ignored: the host assigns trust by source and this package is {}", tier_name(cx.trust)),
        ),
        Ok(_) => {}
    }
}
