//! The two renderings of an inspection: the JSON shape of DESIGN.md section 7 (plus
//! `diagnostics`, and the walk's skipped files under `unloaded`), and a tree for people.

use std::fmt::Write as _;

use neuralis_connector::SkipReason;
use neuralis_layout::{Contribution, Layout, Package};
use serde::Serialize;

use super::Report;

#[derive(Serialize)]
struct JsonReport<'a> {
    packages: Vec<JsonPackage<'a>>,
    unloaded: Vec<JsonUnloaded>,
    diagnostics: Vec<JsonDiagnostic<'a>>,
    /// Files with content flags (issue 10 item 6), by path; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    flags: Vec<JsonFlags<'a>>,
    /// Paths reaching a loaded file through a link (issue 27); absent when none.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    aliases: &'a [neuralis_layout::Alias],
}

#[derive(Serialize)]
struct JsonFlags<'a> {
    path: &'a str,
    flags: Vec<&'static str>,
}

#[derive(Serialize)]
struct JsonPackage<'a> {
    name: &'a str,
    rule: &'static str,
    root: &'a str,
    files: Vec<JsonFile<'a>>,
}

#[derive(Serialize)]
struct JsonFile<'a> {
    path: &'a str,
    category: &'static str,
    id: &'a str,
    title: &'a str,
    identity: bool,
    default_enabled: bool,
    invocation: neuralis_layout::Invocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<&'a [String]>,
}

#[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
struct JsonUnloaded {
    path: String,
    reason: String,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    severity: neuralis_layout::Severity,
    message: &'a str,
}

/// The machine-readable report.
pub fn json(report: &Report) -> String {
    let layout = &report.layout;
    let mut unloaded: Vec<JsonUnloaded> = layout
        .unloaded
        .iter()
        .map(|u| JsonUnloaded {
            path: u.path.clone(),
            reason: code_of(&u.reason),
        })
        .chain(report.skipped.iter().map(|s| JsonUnloaded {
            path: s.path.clone(),
            reason: skip_code(&s.reason).to_owned(),
        }))
        .collect();
    unloaded.sort();
    let document = JsonReport {
        packages: layout.packages.iter().map(json_package).collect(),
        unloaded,
        diagnostics: layout
            .diagnostics
            .iter()
            .map(|d| JsonDiagnostic {
                path: &d.path,
                line: d.line,
                severity: d.severity,
                message: &d.message,
            })
            .collect(),
        flags: report
            .flags
            .iter()
            .map(|(path, flags)| JsonFlags {
                path,
                flags: flags.iter().map(|flag| flag.name()).collect(),
            })
            .collect(),
        aliases: &layout.aliases,
    };
    serde_json::to_string_pretty(&document)
        .unwrap_or_else(|error| format!("{{\"error\": \"{error}\"}}"))
}

fn json_package(package: &Package) -> JsonPackage<'_> {
    JsonPackage {
        name: &package.name,
        rule: package.rule.as_str(),
        root: &package.root,
        files: package
            .files
            .iter()
            .map(|f| JsonFile {
                path: &f.path,
                category: f.category.as_str(),
                id: &f.id,
                title: &f.title,
                identity: f.identity,
                default_enabled: f.default_enabled,
                invocation: f.invocation,
                files: (f.category == neuralis_layout::Category::Skill)
                    .then_some(f.bundle.as_slice()),
            })
            .collect(),
    }
}

/// The kebab-case code of a layout reason (`no-id-or-name`, ...).
fn code_of(reason: &neuralis_layout::UnloadedReason) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The code of a walk skip, prefixed so it never collides with a layout reason.
fn skip_code(reason: &SkipReason) -> &'static str {
    match reason {
        SkipReason::TooLarge { .. } => "skipped-too-large",
        SkipReason::SymlinkOutsideRoot => "skipped-symlink-outside-root",
        SkipReason::SymlinkLoop => "skipped-symlink-loop",
        SkipReason::BrokenSymlink => "skipped-broken-symlink",
        SkipReason::NonUtf8Name => "skipped-non-utf8-name",
        SkipReason::NotRegular => "skipped-not-regular",
        SkipReason::TooDeep => "skipped-too-deep",
        SkipReason::Excluded => "skipped-excluded",
        SkipReason::FileLimitReached => "skipped-file-limit",
        SkipReason::EntryLimitReached => "skipped-entry-limit",
        SkipReason::Unreadable { .. } => "skipped-unreadable",
    }
}

/// The readable tree; a skill's bundle is counted unless `list_files`.
pub fn tree(report: &Report, source_name: &str, list_files: bool) -> String {
    let layout = &report.layout;
    let mut out = String::new();
    let contributions: usize = layout.packages.iter().map(|p| p.files.len()).sum();
    let _ = writeln!(
        out,
        "source {source_name}: {} package(s), {contributions} contribution(s), {} unloaded, {} skipped, {} diagnostic(s)",
        layout.packages.len(),
        layout.unloaded.len(),
        report.skipped.len(),
        layout.diagnostics.len()
    );
    for package in &layout.packages {
        write_package(&mut out, package, list_files);
    }
    write_aliases(&mut out, layout);
    write_unloaded(&mut out, report);
    write_diagnostics(&mut out, layout);
    write_flags(&mut out, report);
    out.trim_end().to_owned()
}

fn write_package(out: &mut String, package: &Package, list_files: bool) {
    let root = if package.root.is_empty() {
        "(source root)"
    } else {
        &package.root
    };
    let _ = writeln!(
        out,
        "\npackage {} [{}] at {root} (key {})",
        package.name,
        package.rule.as_str(),
        package.key
    );
    for (i, file) in package.files.iter().enumerate() {
        let branch = if i + 1 == package.files.len() {
            "└──"
        } else {
            "├──"
        };
        let _ = writeln!(
            out,
            "{branch} {}  {}",
            file.path,
            describe(file, list_files)
        );
    }
}

fn describe(file: &Contribution, list_files: bool) -> String {
    let mut parts = vec![file.category.as_str().to_owned()];
    if file.identity {
        parts.push("identity".into());
    }
    parts.push(if file.default_enabled {
        "on".into()
    } else {
        "off".into()
    });
    if file.invocation == neuralis_layout::Invocation::Manual {
        parts.push("manual".into());
    }
    if let Some(from) = file.downgraded_from {
        parts.push(format!("downgraded from {from}"));
    }
    let mut text = format!("{} — {}", parts.join(", "), file.id);
    if file.title != file.id {
        let _ = write!(text, " \"{}\"", file.title);
    }
    match file.bundle.len() {
        0 => {}
        _ if list_files => {
            let _ = write!(text, "  [files: {}]", file.bundle.join(", "));
        }
        1 => text.push_str("  [1 file]"),
        count => {
            let _ = write!(text, "  [{count} files]");
        }
    }
    text
}

/// The paths that reach a loaded file through a link, and where that file loads
/// (issue 27: each real file loads once).
fn write_aliases(out: &mut String, layout: &Layout) {
    if layout.aliases.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "
aliases (each loads once, elsewhere)"
    );
    for (i, alias) in layout.aliases.iter().enumerate() {
        let branch = if i + 1 == layout.aliases.len() {
            "└──"
        } else {
            "├──"
        };
        let _ = writeln!(
            out,
            "{branch} {}  -> loads at {}",
            alias.path, alias.loads_at
        );
    }
}

fn write_unloaded(out: &mut String, report: &Report) {
    let mut lines: Vec<(String, String)> = report
        .layout
        .unloaded
        .iter()
        .map(|u| (u.path.clone(), u.reason.describe().to_owned()))
        .chain(
            report
                .skipped
                .iter()
                .map(|s| (s.path.clone(), format!("skipped: {}", s.reason))),
        )
        .collect();
    if lines.is_empty() {
        return;
    }
    lines.sort();
    let _ = writeln!(out, "\nunloaded");
    for (i, (path, reason)) in lines.iter().enumerate() {
        let branch = if i + 1 == lines.len() {
            "└──"
        } else {
            "├──"
        };
        let _ = writeln!(out, "{branch} {path}  {reason}");
    }
}

fn write_diagnostics(out: &mut String, layout: &Layout) {
    if layout.diagnostics.is_empty() {
        return;
    }
    let _ = writeln!(out, "\ndiagnostics");
    for (i, d) in layout.diagnostics.iter().enumerate() {
        let branch = if i + 1 == layout.diagnostics.len() {
            "└──"
        } else {
            "├──"
        };
        let at = d.line.map(|line| format!(":{line}")).unwrap_or_default();
        let severity = match d.severity {
            neuralis_layout::Severity::Warning => "warning",
            neuralis_layout::Severity::Error => "error",
        };
        let _ = writeln!(out, "{branch} {}{at}  {severity}: {}", d.path, d.message);
    }
}

fn write_flags(out: &mut String, report: &Report) {
    if report.flags.is_empty() {
        return;
    }
    let _ = writeln!(out, "\ncontent flags");
    for (i, (path, flags)) in report.flags.iter().enumerate() {
        let branch = if i + 1 == report.flags.len() {
            "└──"
        } else {
            "├──"
        };
        let names: Vec<&str> = flags.iter().map(|flag| flag.name()).collect();
        let _ = writeln!(out, "{branch} {path}  {}", names.join(", "));
    }
}
