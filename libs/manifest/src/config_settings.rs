//! `configSettings` (seed 002 "configSettings — declared platform config keys"):
//! first-party only; the shape `{key, label, description?, type, default,
//! envFallback?, editable?, category, min?, max?}`; four types; flat camelCase keys;
//! inclusive number bounds; json keys ignore envFallback; secrets warned about.

use crate::issue::Pointer;
use crate::secret_names::looks_secret;
use crate::shape::{Cx, json_type};
use serde::Serialize;
use serde_json::{Map, Value};

/// The four config value types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ConfigType {
    Number,
    String,
    Boolean,
    Json,
}

/// One declared platform config key.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigSetting {
    pub key: String,
    pub label: String,
    #[serde(rename = "type")]
    pub kind: ConfigType,
    pub default: Value,
    /// Dropped for `json` keys, which ignore it.
    #[serde(rename = "envFallback")]
    pub env_fallback: Option<String>,
    pub editable: bool,
    pub category: String,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

const KEYS: &[&str] = &[
    "key",
    "label",
    "description",
    "type",
    "default",
    "envFallback",
    "editable",
    "category",
    "min",
    "max",
];

/// `^[a-z][a-zA-Z0-9]{0,63}$`: flat camelCase in one shared namespace.
pub fn is_config_key(key: &str) -> bool {
    key.len() <= 64
        && key.starts_with(|c: char| c.is_ascii_lowercase())
        && key.chars().all(|c| c.is_ascii_alphanumeric())
}

fn is_env_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

pub(crate) fn check_all(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<ConfigSetting> {
    let Some(items) = cx.array(value, at) else {
        return Vec::new();
    };
    let mut settings: Vec<ConfigSetting> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = at.index(i);
        let Some(setting) = check(cx, item, &item_at) else {
            continue;
        };
        if settings.iter().any(|s| s.key == setting.key) {
            cx.error(
                &item_at.key("key"),
                format!("duplicate config key {:?}", setting.key),
            );
            continue;
        }
        settings.push(setting);
    }
    settings
}

fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<ConfigSetting> {
    let map = cx.object(value, at)?;
    cx.closed(map, at, KEYS);
    let key = key(cx, map, at);
    let label = cx.required_text(map, at, "label");
    cx.optional_text(map, at, "description");
    let category = cx.required_text(map, at, "category");
    let editable = match map.get("editable") {
        Some(v) => cx.boolean(v, &at.key("editable")).unwrap_or(true),
        None => true,
    };
    let kind = config_type(cx, map, at)?;
    let env_fallback = env_fallback(cx, map, at, kind);
    let (min, max) = bounds(cx, map, at, kind);
    let default = default(cx, map, at, kind, min, max);
    Some(ConfigSetting {
        key: key?,
        label: label?.to_owned(),
        kind,
        default: default?,
        env_fallback,
        editable,
        category: category?.to_owned(),
        min,
        max,
    })
}

fn key(cx: &mut Cx<'_>, map: &Map<String, Value>, at: &Pointer) -> Option<String> {
    let key = cx.required_text(map, at, "key")?;
    let key_at = at.key("key");
    if !is_config_key(key) {
        cx.error(
            &key_at,
            format!("{key:?} is not a config key: flat camelCase, ^[a-z][a-zA-Z0-9]{{0,63}}$"),
        );
        return None;
    }
    if looks_secret(key) {
        cx.warn(&key_at, "looks like a secret; config values are admin-visible plaintext, declare it in credentials[] instead");
    }
    Some(key.to_owned())
}

fn config_type(cx: &mut Cx<'_>, map: &Map<String, Value>, at: &Pointer) -> Option<ConfigType> {
    let (v, p) = cx.required(map, at, "type")?;
    Some(match cx.string(v, &p)? {
        "number" => ConfigType::Number,
        "string" => ConfigType::String,
        "boolean" => ConfigType::Boolean,
        "json" => ConfigType::Json,
        other => {
            cx.error(
                &p,
                format!("{other:?} is not a config type; allowed: number, string, boolean, json"),
            );
            return None;
        }
    })
}

fn env_fallback(
    cx: &mut Cx<'_>,
    map: &Map<String, Value>,
    at: &Pointer,
    kind: ConfigType,
) -> Option<String> {
    let v = map.get("envFallback")?;
    let p = at.key("envFallback");
    let name = cx.text(v, &p)?;
    if !is_env_name(name) {
        cx.error(
            &p,
            format!(
                "{name:?} is not an environment variable name: uppercase letters, digits and _"
            ),
        );
        return None;
    }
    if looks_secret(name) {
        cx.warn(&p, "looks like a secret; config values are admin-visible plaintext, declare it in credentials[] instead");
    }
    if kind == ConfigType::Json {
        cx.warn(&p, "type json ignores envFallback; dropped");
        return None;
    }
    Some(name.to_owned())
}

fn bounds(
    cx: &mut Cx<'_>,
    map: &Map<String, Value>,
    at: &Pointer,
    kind: ConfigType,
) -> (Option<f64>, Option<f64>) {
    let mut read = |key: &str| -> Option<f64> {
        let v = map.get(key)?;
        if kind != ConfigType::Number {
            cx.error(&at.key(key), "only number keys may carry min/max bounds");
            return None;
        }
        cx.number(v, &at.key(key))
    };
    let (min, max) = (read("min"), read("max"));
    if let (Some(lo), Some(hi)) = (min, max)
        && lo > hi
    {
        cx.error(&at.key("min"), format!("min {lo} is greater than max {hi}"));
    }
    (min, max)
}

fn default(
    cx: &mut Cx<'_>,
    map: &Map<String, Value>,
    at: &Pointer,
    kind: ConfigType,
    min: Option<f64>,
    max: Option<f64>,
) -> Option<Value> {
    let (v, p) = cx.required(map, at, "default")?;
    let fits = match kind {
        ConfigType::Number => v.is_number(),
        ConfigType::String => v.is_string(),
        ConfigType::Boolean => v.is_boolean(),
        ConfigType::Json => true,
    };
    if !fits {
        cx.error(
            &p,
            format!("must match type {}, got {}", type_name(kind), json_type(v)),
        );
        return None;
    }
    if let Some(n) = v.as_f64()
        && (min.is_some_and(|lo| n < lo) || max.is_some_and(|hi| n > hi))
    {
        cx.error(
            &p,
            format!("default {n} lies outside the inclusive bounds min..max"),
        );
        return None;
    }
    Some(v.clone())
}

fn type_name(kind: ConfigType) -> &'static str {
    match kind {
        ConfigType::Number => "number",
        ConfigType::String => "string",
        ConfigType::Boolean => "boolean",
        ConfigType::Json => "json",
    }
}
