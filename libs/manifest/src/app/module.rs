//! `app.module`: ONE prebuilt browser module of a first-party package. The entry
//! (`.js`/`.mjs`) and the optional css are under `dist/app/`; `provides` lists at most
//! 16 unique ids, each a subpath of the package's own name.

use crate::issue::Pointer;
use crate::package_path::inside_package;
use crate::shape::Cx;
use serde::Serialize;
use serde_json::{Map, Value};

/// The validated UI module declaration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppModule {
    pub entry: String,
    pub css: Option<String>,
    pub provides: Vec<String>,
}

const SERVED_TREE: &str = "dist/app/";
const MAX_PROVIDES: usize = 16;

pub(crate) fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<AppModule> {
    let map = cx.object(value, at)?;
    cx.closed(map, at, &["entry", "css", "provides"]);
    let entry = served_file(cx, map, at, "entry", &[".js", ".mjs"]);
    let css = match map.get("css") {
        Some(_) => Some(served_file(cx, map, at, "css", &[".css"])?),
        None => None,
    };
    let provides = match map.get("provides") {
        Some(v) => provides(cx, v, &at.key("provides"))?,
        None => Vec::new(),
    };
    Some(AppModule {
        entry: entry?,
        css,
        provides,
    })
}

/// A package-relative file under `dist/app/` with one of `extensions`.
fn served_file(
    cx: &mut Cx<'_>,
    map: &Map<String, Value>,
    at: &Pointer,
    key: &str,
    extensions: &[&str],
) -> Option<String> {
    let text = cx.required_text(map, at, key)?;
    let file_at = at.key(key);
    let path = match inside_package(text) {
        Ok(path) => path,
        Err(problem) => {
            cx.error(
                &file_at,
                format!("{problem}; the host serves only {SERVED_TREE}"),
            );
            return None;
        }
    };
    if !path.starts_with(SERVED_TREE) {
        cx.error(
            &file_at,
            format!("{text:?} is outside {SERVED_TREE}, the only tree the host serves"),
        );
        return None;
    }
    if !extensions.iter().any(|ext| path.ends_with(ext)) {
        cx.error(
            &file_at,
            format!("{text:?} must end in {}", extensions.join(" or ")),
        );
        return None;
    }
    Some(path)
}

fn provides(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<Vec<String>> {
    let items = cx.array(value, at)?;
    if items.len() > MAX_PROVIDES {
        cx.error(
            at,
            format!(
                "lists {} ids; at most {MAX_PROVIDES} are allowed",
                items.len()
            ),
        );
    }
    let own = cx.package_name.map(|name| format!("{name}/"));
    let mut ids: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = at.index(i);
        let Some(id) = cx.string(item, &item_at) else {
            continue;
        };
        let is_subpath = own
            .as_deref()
            .and_then(|prefix| id.strip_prefix(prefix))
            .is_some_and(|sub| inside_package(sub).is_ok_and(|normal| normal == sub));
        if !is_subpath {
            let name = cx.package_name.unwrap_or("<package name>");
            cx.error(
                &item_at,
                format!(
                    "{id:?} is not a subpath of the package's own name; expected {name}/<subpath>"
                ),
            );
        } else if ids.iter().any(|seen| seen == id) {
            cx.error(&item_at, format!("{id:?} is listed twice"));
        } else {
            ids.push(id.to_owned());
        }
    }
    Some(ids)
}
