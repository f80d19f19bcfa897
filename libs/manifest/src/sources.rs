//! `sources` (seed 002 "sources — declared source instances"): concrete sources the
//! platform seeds into projects, trust-gated at load: `seed: "auto"` needs trusted or
//! higher, a `${appRoot}` root needs first-party, and an untrusted package may only
//! declare project-relative discoverable sources.

use crate::issue::Pointer;
use crate::package_path::inside_package;
use crate::shape::Cx;
use neuralis_layout::Trust;
use serde::Serialize;
use serde_json::{Map, Value};

/// One validated source declaration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceDecl {
    pub source: String,
    pub kind: String,
    pub root: String,
    pub scope: String,
    pub description: String,
    pub seed: String,
}

const KEYS: &[&str] = &["source", "kind", "root", "scope", "description", "seed"];
const APP_ROOT: &str = "${appRoot}";

pub(crate) fn check_all(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<SourceDecl> {
    let Some(items) = cx.array(value, at) else {
        return Vec::new();
    };
    let mut sources: Vec<SourceDecl> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = at.index(i);
        let Some(source) = check(cx, item, &item_at) else {
            continue;
        };
        if sources.iter().any(|s| s.source == source.source) {
            cx.error(
                &item_at.key("source"),
                format!("duplicate source slug {:?}", source.source),
            );
            continue;
        }
        sources.push(source);
    }
    sources
}

/// A source slug: lowercase letters, digits, `_`, `-`, at most 64.
pub fn is_source_slug(slug: &str) -> bool {
    slug.len() <= 64
        && slug.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && slug
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<SourceDecl> {
    let map = cx.object(value, at)?;
    cx.closed(map, at, KEYS);
    let slug = slug(cx, map, at);
    let kind = cx.required_text(map, at, "kind");
    let description = cx.required_text(map, at, "description");
    let scope = one_of(cx, map, at, "scope", &["project", "user", "agent"]);
    let seed = one_of(cx, map, at, "seed", &["auto", "discoverable"]);
    let root = cx.required_text(map, at, "root");
    let decl = SourceDecl {
        source: slug?,
        kind: kind?.to_owned(),
        root: root?.to_owned(),
        scope: scope?.to_owned(),
        description: description?.to_owned(),
        seed: seed?.to_owned(),
    };
    gate(cx, &decl, at).then_some(decl)
}

fn slug(cx: &mut Cx<'_>, map: &Map<String, Value>, at: &Pointer) -> Option<String> {
    let slug = cx.required_text(map, at, "source")?;
    if !is_source_slug(slug) {
        cx.error(
            &at.key("source"),
            format!(
                "{slug:?} is not a source slug: lowercase letters, digits, _ and -, at most 64"
            ),
        );
        return None;
    }
    Some(slug.to_owned())
}

fn one_of<'v>(
    cx: &mut Cx<'_>,
    map: &'v Map<String, Value>,
    at: &Pointer,
    key: &str,
    allowed: &[&str],
) -> Option<&'v str> {
    let value = cx.required_text(map, at, key)?;
    if !allowed.contains(&value) {
        cx.error(
            &at.key(key),
            format!("{value:?} is not allowed; allowed: {}", allowed.join(", ")),
        );
        return None;
    }
    Some(value)
}

/// The seed's trust gates; every violation is an error (the package is rejected).
fn gate(cx: &mut Cx<'_>, decl: &SourceDecl, at: &Pointer) -> bool {
    let before = cx.issues.errors.len();
    if decl.seed == "auto" && cx.trust < Trust::Trusted {
        cx.error(
            &at.key("seed"),
            "seed \"auto\" needs a trusted or first-party package; use \"discoverable\"",
        );
    }
    if decl.root.contains(APP_ROOT) && cx.trust < Trust::FirstParty {
        cx.error(
            &at.key("root"),
            "a ${appRoot} platform root needs a first-party package",
        );
    } else if decl.root.contains("${") && !decl.root.contains(APP_ROOT) {
        cx.error(
            &at.key("root"),
            "the only placeholder a root may use is ${appRoot}",
        );
    }
    if cx.trust == Trust::Untrusted {
        if let Err(problem) = inside_package(&decl.root) {
            cx.error(
                &at.key("root"),
                format!("{problem}; an untrusted package may only declare project-relative roots"),
            );
        }
        if decl.scope != "project" {
            cx.error(
                &at.key("scope"),
                "an untrusted package may only declare project-scoped sources",
            );
        }
    }
    cx.issues.errors.len() == before
}
