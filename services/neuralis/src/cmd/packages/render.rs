//! How discovery answers print: as JSON documents and as text.

use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as pb;
use serde_json::{Value, json};

use crate::cmd::client;

pub(super) fn category(value: i32) -> String {
    let name = common::Category::try_from(value).unwrap_or_default();
    client::word(name.as_str_name(), "CATEGORY_")
}

pub(super) fn state(file: &pb::PackageFile) -> String {
    client::word(file.state().as_str_name(), "FILE_STATE_")
}

/// The key policy stores package states and overrides under (`policy package` and
/// `policy override` take it), as the server names it: the package id, or
/// `<source_id>/<packageKey>` (a source id is never reused).
pub(super) fn policy_key(package: &pb::Package) -> String {
    package.policy_key.clone()
}

pub(super) fn package_json(package: &pb::Package) -> Value {
    let files: Vec<Value> = package
        .files
        .iter()
        .map(|file| {
            json!({
                "path": file.path, "category": category(file.category), "id": file.id,
                "title": file.title, "description": file.description, "state": state(file),
                "identity": file.identity, "default_enabled": file.default_enabled,
                "files": file.files, "activation_id": file.activation_id,
            })
        })
        .collect();
    json!({
        "name": package.name,
        "key": package.key,
        "policy_key": policy_key(package),
        "origin": client::word(package.origin().as_str_name(), "PACKAGE_ORIGIN_"),
        "source_slug": package.source_slug,
        "root": package.root,
        "rule": client::word(package.rule().as_str_name(), "ROOT_RULE_"),
        "package_id": package.package_id,
        "enabled": package.enabled,
        "files": files,
    })
}

pub(super) fn tree(packages: &[pb::Package]) -> String {
    if packages.is_empty() {
        return "no packages".into();
    }
    let mut lines = Vec::new();
    for package in packages {
        let origin = match package.origin() {
            common::PackageOrigin::Installed => "installed".to_owned(),
            _ => format!("source {}, root {:?}", package.source_slug, package.root),
        };
        let off = if package.enabled { "" } else { ", disabled" };
        lines.push(format!(
            "{} [{}] ({origin}{off})",
            package.name,
            policy_key(package)
        ));
        for file in &package.files {
            let id = if file.activation_id.is_empty() {
                &file.id
            } else {
                &file.activation_id
            };
            lines.push(format!(
                "  {:<40} {:<12} {:<20} {}",
                file.path,
                category(file.category),
                id,
                state(file)
            ));
        }
    }
    lines.join("\n")
}

pub(super) fn hydrate_json(hydrated: &pb::HydrateResponse) -> Value {
    let files: Vec<Value> = hydrated
        .files
        .iter()
        .map(|file| {
            json!({
                "package_name": file.package_name, "path": file.path,
                "category": category(file.category), "id": file.id, "title": file.title,
                "content": file.content,
            })
        })
        .collect();
    let omitted: Vec<Value> = hydrated
        .omitted
        .iter()
        .map(|file| json!({"package_name": file.package_name, "path": file.path, "size_bytes": file.size_bytes}))
        .collect();
    json!({"files": files, "omitted": omitted, "used_bytes": hydrated.used_bytes})
}

pub(super) fn hydrate_text(hydrated: &pb::HydrateResponse) -> String {
    let mut lines = vec![format!(
        "injected {} file(s), {} bytes:",
        hydrated.files.len(),
        hydrated.used_bytes
    )];
    for file in &hydrated.files {
        lines.push(format!(
            "  {:<12} {:<40} {} ({} bytes, {})",
            category(file.category),
            file.path,
            file.id,
            file.content.len(),
            file.package_name
        ));
    }
    if !hydrated.omitted.is_empty() {
        lines.push(format!(
            "left out for the budget, {} file(s):",
            hydrated.omitted.len()
        ));
        for file in &hydrated.omitted {
            lines.push(format!(
                "  {:<53} ({} bytes, {})",
                file.path, file.size_bytes, file.package_name
            ));
        }
    }
    lines.join("\n")
}

pub(super) fn tools_json(tools: &pb::ListToolsResponse) -> Value {
    let listed: Vec<Value> = tools
        .tools
        .iter()
        .map(|tool| {
            let schema = serde_json::from_str::<Value>(&tool.input_schema_json)
                .unwrap_or_else(|_| Value::String(tool.input_schema_json.clone()));
            json!({"name": tool.name, "package_id": tool.package_id,
                   "description": tool.description, "input_schema": schema})
        })
        .collect();
    let contested: Vec<Value> = tools
        .contested
        .iter()
        .map(|c| json!({"name": c.name, "owner": c.owner, "claimants": c.claimants}))
        .collect();
    json!({"tools": listed, "contested": contested})
}

pub(super) fn tools_text(tools: &pb::ListToolsResponse) -> String {
    if tools.tools.is_empty() && tools.contested.is_empty() {
        return "no tools".into();
    }
    let mut lines: Vec<String> = tools
        .tools
        .iter()
        .map(|tool| {
            format!(
                "{:<32} {:<24} {}",
                tool.name, tool.package_id, tool.description
            )
        })
        .collect();
    if !tools.contested.is_empty() {
        lines.push("contested names:".into());
        for name in &tools.contested {
            lines.push(format!(
                "  {} -> {} (claimants: {})",
                name.name,
                name.owner,
                name.claimants.join(", ")
            ));
        }
    }
    lines.join("\n")
}

pub(super) fn search_json(response: &pb::SearchResponse) -> Value {
    let hits: Vec<Value> = response
        .hits
        .iter()
        .map(|hit| {
            json!({
                "source_slug": hit.source_slug, "package_id": hit.package_id,
                "path": hit.path, "ordinal": hit.ordinal, "text": hit.text,
            })
        })
        .collect();
    json!({ "hits": hits })
}

pub(super) fn search_text(response: &pb::SearchResponse) -> String {
    if response.hits.is_empty() {
        return "no hits".into();
    }
    let mut out = String::new();
    for hit in &response.hits {
        // Where `packages read` takes it: `--source SLUG` or `--package ID`.
        let holder = match hit.package_id.as_str() {
            "" => format!("source {}", hit.source_slug),
            id => format!("package {id}"),
        };
        out.push_str(&format!("{holder}:{} #{}\n", hit.path, hit.ordinal));
        for line in hit.text.lines() {
            out.push_str(&format!("    {line}\n"));
        }
    }
    out
}
