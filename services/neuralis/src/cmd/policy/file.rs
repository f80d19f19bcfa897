//! A URI policy file (JSON or YAML, in the design's shape) to the wire `UriPolicy` and
//! back: `{default: {read, write, exec}, paths: [{pattern, read?, write?, exec?,
//! roles?, agents?, override?, floor?}], hideFlaggedFiles?}`. Every error names the
//! field at fault.

use std::path::Path;

use anyhow::{Context as _, Result, anyhow, bail};
use neuralis_proto::policy::v1 as pb;
use serde_json::{Map, Value, json};

/// Reads and converts a policy file: `.json` is JSON, anything else YAML.
pub fn read(path: &Path) -> Result<pb::UriPolicy> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read policy file {}", path.display()))?;
    let is_json = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("json"));
    let value: Value = if is_json {
        serde_json::from_str(&text).map_err(|e| anyhow!("{}: not JSON: {e}", path.display()))?
    } else {
        serde_saphyr::from_str(&text).map_err(|e| anyhow!("{}: not YAML: {e}", path.display()))?
    };
    convert(&value).with_context(|| format!("policy file {}", path.display()))
}

/// The policy document as the wire message.
pub fn convert(value: &Value) -> Result<pb::UriPolicy> {
    let top = object(value, "policy")?;
    known(top, "", &["default", "paths", "hideFlaggedFiles"])?;
    let default_capabilities = match top.get("default") {
        None | Some(Value::Null) => bail!("default: is required ({{read, write, exec}})"),
        Some(value) => {
            let default = object(value, "default")?;
            known(default, "default.", &["read", "write", "exec"])?;
            pb::Capabilities {
                read: flag(default, "default.", "read")?.unwrap_or(false),
                write: flag(default, "default.", "write")?.unwrap_or(false),
                exec: flag(default, "default.", "exec")?.unwrap_or(false),
            }
        }
    };
    let paths = match top.get("paths") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(rules)) => rules
            .iter()
            .enumerate()
            .map(|(index, rule)| path_rule(rule, &format!("paths[{index}]")))
            .collect::<Result<_>>()?,
        Some(_) => bail!("paths: must be a list of rules"),
    };
    Ok(pb::UriPolicy {
        hide_flagged_files: flag(top, "", "hideFlaggedFiles")?.unwrap_or(false),
        default_capabilities: Some(default_capabilities),
        paths,
    })
}

fn path_rule(value: &Value, field: &str) -> Result<pb::PathRule> {
    let rule = object(value, field)?;
    let prefix = format!("{field}.");
    known(
        rule,
        &prefix,
        &[
            "pattern", "read", "write", "exec", "roles", "agents", "override", "floor",
        ],
    )?;
    let pattern = match rule.get("pattern") {
        Some(Value::String(pattern)) => pattern.clone(),
        None | Some(Value::Null) => bail!("{prefix}pattern: is required"),
        Some(_) => bail!("{prefix}pattern: must be a string"),
    };
    Ok(pb::PathRule {
        pattern,
        read: flag(rule, &prefix, "read")?,
        write: flag(rule, &prefix, "write")?,
        exec: flag(rule, &prefix, "exec")?,
        roles: names(rule, &prefix, "roles")?,
        agents: names(rule, &prefix, "agents")?,
        r#override: flag(rule, &prefix, "override")?.unwrap_or(false),
        floor: flag(rule, &prefix, "floor")?.unwrap_or(false),
    })
}

fn object<'a>(value: &'a Value, field: &str) -> Result<&'a Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| anyhow!("{field}: must be a mapping"))
}

fn known(map: &Map<String, Value>, prefix: &str, allowed: &[&str]) -> Result<()> {
    match map.keys().find(|key| !allowed.contains(&key.as_str())) {
        Some(key) => bail!(
            "{prefix}{key}: unknown field (expected one of {})",
            allowed.join(", ")
        ),
        None => Ok(()),
    }
}

fn flag(map: &Map<String, Value>, prefix: &str, key: &str) -> Result<Option<bool>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(value)) => Ok(Some(*value)),
        Some(_) => bail!("{prefix}{key}: must be true or false"),
    }
}

fn names(map: &Map<String, Value>, prefix: &str, key: &str) -> Result<Vec<String>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                item.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| anyhow!("{prefix}{key}[{index}]: must be a string"))
            })
            .collect(),
        Some(_) => bail!("{prefix}{key}: must be a list of names"),
    }
}

/// The wire policy in the file's shape (so `policy get --json` output can be edited
/// and put back).
pub fn to_json(policy: &pb::UriPolicy) -> Value {
    let default = policy.default_capabilities.unwrap_or_default();
    let paths: Vec<Value> = policy
        .paths
        .iter()
        .map(|rule| {
            let mut map = Map::new();
            map.insert("pattern".into(), json!(rule.pattern));
            for (key, value) in [
                ("read", rule.read),
                ("write", rule.write),
                ("exec", rule.exec),
            ] {
                if let Some(value) = value {
                    map.insert(key.into(), json!(value));
                }
            }
            if !rule.roles.is_empty() {
                map.insert("roles".into(), json!(rule.roles));
            }
            if !rule.agents.is_empty() {
                map.insert("agents".into(), json!(rule.agents));
            }
            if rule.r#override {
                map.insert("override".into(), json!(true));
            }
            if rule.floor {
                map.insert("floor".into(), json!(true));
            }
            Value::Object(map)
        })
        .collect();
    let mut document = json!({
        "default": {"read": default.read, "write": default.write, "exec": default.exec},
        "paths": paths,
    });
    if policy.hide_flagged_files {
        document["hideFlaggedFiles"] = json!(true);
    }
    document
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(value: Value) -> String {
        format!("{:#}", convert(&value).expect_err("rejected"))
    }

    #[test]
    fn the_design_shape_converts_and_round_trips() {
        let document = json!({
            "default": {"read": true, "write": false, "exec": false},
            "paths": [
                {"pattern": "secret/**", "read": false, "floor": true},
                {"pattern": "agents/*/**", "write": true, "roles": ["owner"], "agents": ["a1"], "override": true},
            ],
        });
        let policy = convert(&document).expect("converts");
        assert_eq!(policy.paths.len(), 2);
        assert_eq!(policy.paths[0].read, Some(false));
        assert_eq!(policy.paths[0].write, None);
        assert!(policy.paths[1].r#override);
        assert_eq!(to_json(&policy), document);
    }

    #[test]
    fn hide_flagged_files_is_read_and_written_only_when_on() {
        let document = json!({
            "default": {"read": true, "write": false, "exec": false},
            "paths": [],
            "hideFlaggedFiles": true,
        });
        let policy = convert(&document).expect("converts");
        assert!(policy.hide_flagged_files);
        assert_eq!(to_json(&policy), document);
        let off = json!({"default": {"read": true, "write": false, "exec": false}, "paths": []});
        assert!(!convert(&off).expect("converts").hide_flagged_files);
        assert!(
            error(json!({"default": {}, "hideFlaggedFiles": "yes"}))
                .starts_with("hideFlaggedFiles: must be")
        );
    }

    #[test]
    fn errors_name_the_field() {
        assert!(error(json!({"paths": []})).starts_with("default: is required"));
        assert!(error(json!({"default": {"read": "yes"}})).starts_with("default.read: must be"));
        let bad = json!({"default": {}, "paths": [{"pattern": "a"}, {"read": true}]});
        assert!(error(bad).starts_with("paths[1].pattern: is required"));
        let bad = json!({"default": {}, "paths": [{"pattern": "a", "roles": [1]}]});
        assert!(error(bad).starts_with("paths[0].roles[0]: must be a string"));
        let bad = json!({"default": {}, "paths": [{"pattern": "a", "raed": true}]});
        assert!(error(bad).starts_with("paths[0].raed: unknown field"));
    }

    #[test]
    fn yaml_files_read_like_json() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("policy.yaml");
        let yaml = "default: {read: true, write: false, exec: false}\npaths:\n  - pattern: docs/**\n    read: false\n";
        std::fs::write(&path, yaml).expect("write");
        let policy = read(&path).expect("reads");
        assert_eq!(policy.paths[0].pattern, "docs/**");
        assert_eq!(policy.paths[0].read, Some(false));
    }
}
