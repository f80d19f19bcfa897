//! `dataLayout` (seed 002 "dataLayout", "machineWritten"): the first-level directory
//! names a package uses in its data zone, and the files it writes on its own. The
//! names land in every agent's cached prompt prefix, so the check is fail-closed.

use crate::issue::Pointer;
use crate::shape::Cx;
use neuralis_layout::Trust;
use serde::Serialize;
use serde_json::{Map, Value};

/// What a machine-written file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WrittenClass {
    /// Numbers only: left out of the index.
    Metrics,
    /// Keeps the default log exclude.
    Log,
    /// Runtime state a person may search for.
    RuntimeText,
}

/// One machine-written glob, relative to the package's zone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MachineWritten {
    pub path: String,
    pub class: WrittenClass,
}

/// The validated `dataLayout` block.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DataLayout {
    pub directories: Vec<String>,
    #[serde(rename = "agentDirectories")]
    pub agent_directories: Vec<String>,
    /// Empty unless the package is trusted or first-party.
    #[serde(rename = "machineWritten")]
    pub machine_written: Vec<MachineWritten>,
}

/// The zone root is the platform's provisioning mapping: `data://<slug>/` for a
/// first-party package, `data://_installed/<slug>/` for every other install class.
pub fn zone_root(slug: &str, trust: Trust) -> String {
    match trust {
        Trust::FirstParty => format!("data://{slug}/"),
        _ => format!("data://_installed/{slug}/"),
    }
}

/// The zone slug of a package id: the id without its `@`, the scope joined by `-`
/// (`@acme/reports` is `acme-reports`), so it is always one path segment.
pub fn zone_slug(package_id: &str) -> String {
    neuralis_access::data_zone::zone_slug(package_id)
}

/// The exclude globs a new data source starts with for one package (seed 002,
/// "machineWritten"): its `metrics` globs anchored to its zone folder in the data tree
/// (`<slug>/…` first-party, `_installed/<slug>/…` otherwise). Logs keep the exclude they
/// already have and runtime text stays searchable, so neither is listed; only trusted
/// and first-party packages' declarations are used.
pub fn metrics_excludes(package_id: &str, trust: Trust, layout: &DataLayout) -> Vec<String> {
    if !matches!(trust, Trust::FirstParty | Trust::Trusted) {
        return Vec::new();
    }
    let slug = zone_slug(package_id);
    let zone = match trust {
        Trust::FirstParty => slug,
        _ => format!("_installed/{slug}"),
    };
    layout
        .machine_written
        .iter()
        .filter(|written| written.class == WrittenClass::Metrics)
        .map(|written| format!("{zone}/{}", written.path))
        .collect()
}

/// A test on one character of a name.
type CharTest = fn(char) -> bool;

/// Why a directory name is refused, or `None` when it is a plain name.
pub fn directory_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("must not be empty");
    }
    if name == "." || name.split(['/', '\\']).any(|segment| segment == "..") {
        return Some("must not be a traversal (. or ..)");
    }
    let checks: [(CharTest, &'static str); 5] = [
        (|c| c == '/' || c == '\\', "must not contain a separator"),
        (
            |c| c == '<' || c == '>',
            "must not contain a placeholder such as <self>",
        ),
        (|c| c == '{' || c == '}', "must not contain a brace"),
        (|c| c == ',', "must not contain a comma"),
        (char::is_whitespace, "must not contain whitespace"),
    ];
    if let Some((_, problem)) = checks.iter().find(|(bad, _)| name.chars().any(bad)) {
        return Some(problem);
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        return Some("may contain only letters, digits, '.', '_' and '-'");
    }
    None
}

/// Why a machine-written glob is refused: a leading `/`, an empty or `..` segment, or
/// a character other than letters, digits, `.`, `_`, `-`, `*` (and `/` between).
pub fn glob_problem(glob: &str) -> Option<&'static str> {
    if glob.starts_with('/') {
        return Some("must not start with / (it is relative to the package's zone)");
    }
    if glob.split('/').any(|s| s.is_empty() || s == "..") {
        return Some("must not contain an empty or .. segment");
    }
    if !glob
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '*' | '/'))
    {
        return Some("may contain only letters, digits, '.', '_', '-', '*' and '/'");
    }
    None
}

pub(crate) fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> DataLayout {
    let mut layout = DataLayout::default();
    let Some(map) = cx.object(value, at) else {
        return layout;
    };
    cx.closed(
        map,
        at,
        &["directories", "agentDirectories", "machineWritten"],
    );
    layout.directories = names(cx, map, at, "directories");
    layout.agent_directories = names(cx, map, at, "agentDirectories");
    if let Some(v) = map.get("machineWritten") {
        let mw_at = at.key("machineWritten");
        if cx.honored(&mw_at, Trust::Trusted, "machineWritten") {
            layout.machine_written = machine_written(cx, v, &mw_at);
        } else {
            cx.check_dropped(|cx| {
                machine_written(cx, v, &mw_at);
            });
        }
    }
    layout
}

fn names(cx: &mut Cx<'_>, map: &Map<String, Value>, at: &Pointer, key: &str) -> Vec<String> {
    let Some(v) = map.get(key) else {
        return Vec::new();
    };
    let list_at = at.key(key);
    let Some(items) = cx.array(v, &list_at) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = list_at.index(i);
        let Some(name) = cx.string(item, &item_at) else {
            continue;
        };
        if let Some(problem) = directory_name_problem(name) {
            cx.error(
                &item_at,
                format!("{name:?} {problem}; a directory is one plain name"),
            );
        } else if out.iter().any(|seen| seen == name) {
            cx.error(&item_at, format!("{name:?} is listed twice"));
        } else {
            out.push(name.to_owned());
        }
    }
    out
}

fn machine_written(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<MachineWritten> {
    let Some(items) = cx.array(value, at) else {
        return Vec::new();
    };
    let mut out: Vec<MachineWritten> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = at.index(i);
        let Some(entry) = written(cx, item, &item_at) else {
            continue;
        };
        if out.iter().any(|e| e.path == entry.path) {
            cx.error(
                &item_at.key("path"),
                format!("{:?} is listed twice", entry.path),
            );
            continue;
        }
        out.push(entry);
    }
    out
}

fn written(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<MachineWritten> {
    let map = cx.object(value, at)?;
    cx.closed(map, at, &["path", "class"]);
    let path = cx
        .required_text(map, at, "path")
        .and_then(|path| match glob_problem(path) {
            Some(problem) => {
                cx.error(&at.key("path"), format!("{path:?} {problem}"));
                None
            }
            None => Some(path.to_owned()),
        });
    let (v, class_at) = cx.required(map, at, "class")?;
    let class = match cx.string(v, &class_at)? {
        "metrics" => WrittenClass::Metrics,
        "log" => WrittenClass::Log,
        "runtime-text" => WrittenClass::RuntimeText,
        other => {
            cx.error(
                &class_at,
                format!("{other:?} is not a class; allowed: metrics, log, runtime-text"),
            );
            return None;
        }
    };
    Some(MachineWritten { path: path?, class })
}
