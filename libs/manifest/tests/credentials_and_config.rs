//! `credentials` and `configSettings` (seed 002).
mod support;

use neuralis_manifest::config_settings::ConfigType;
use serde_json::{Value, json};
use support::*;

#[test]
fn credentials_have_exactly_id_label_category_oauth() {
    let creds = json!([
        {"id": "llm.anthropic", "label": "Anthropic API Key", "category": "llm"},
        {"id": "acme.apiKey", "label": "Acme API Key", "category": "search", "oauth": true}
    ]);
    let m = accepts(json!({"credentials": creds}), UNTRUSTED)
        .manifest
        .expect("manifest");
    assert!(m.credentials[1].oauth);
    let cases = [
        (
            json!({"id": "a", "label": "A", "value": "sk-123"}),
            "/neuralis/credentials/0/value",
        ),
        (json!({"id": "a"}), "/neuralis/credentials/0/label"),
        (json!({"label": "A"}), "/neuralis/credentials/0/id"),
        (
            json!({"id": "a", "label": "A", "oauth": "yes"}),
            "/neuralis/credentials/0/oauth",
        ),
        (json!("a"), "/neuralis/credentials/0"),
    ];
    for (cred, pointer) in cases {
        rejects_at(json!({"credentials": [cred]}), UNTRUSTED, pointer);
    }
    rejects_at(
        json!({"credentials": [{"id": "a", "label": "A"}, {"id": "a", "label": "B"}]}),
        UNTRUSTED,
        "/neuralis/credentials/1/id",
    );
}

#[test]
fn credential_ids_pass_the_charset_and_length() {
    // "^[A-Za-z_][A-Za-z0-9_.-]*$, ≤ 128 chars, no slashes or leading dot"
    for ok in ["a", "_x", "llm.anthropic", "Acme-key_2", &"a".repeat(128)] {
        accepts(
            json!({"credentials": [{"id": ok, "label": "L"}]}),
            UNTRUSTED,
        );
    }
    for bad in [
        "",
        ".hidden",
        "a/b",
        "1abc",
        "-x",
        "a b",
        "ключ",
        &"a".repeat(129),
    ] {
        rejects_at(
            json!({"credentials": [{"id": bad, "label": "L"}]}),
            UNTRUSTED,
            "/neuralis/credentials/0/id",
        );
    }
}

#[test]
fn reserved_credential_namespaces_are_first_party_only() {
    for reserved in [
        "git.github.com.pat",
        "git.gitlab.com.oauth.token",
        "channel.slack",
        "mcp.github.token",
    ] {
        accepts(
            json!({"credentials": [{"id": reserved, "label": "L"}]}),
            FIRST,
        );
        for trust in [TRUSTED, UNTRUSTED] {
            rejects_at(
                json!({"credentials": [{"id": reserved, "label": "L"}]}),
                trust,
                "/neuralis/credentials/0/id",
            );
        }
    }
    // "Your own namespace is unrestricted at any trust tier." (`github.x` is not `git.`)
    accepts(
        json!({"credentials": [{"id": "github.token", "label": "L"}, {"id": "mcpx.key", "label": "L"}]}),
        UNTRUSTED,
    );
}

fn setting(key: &str, kind: &str, default: Value) -> Value {
    json!({"key": key, "label": "Label", "type": kind, "default": default, "category": "runtime"})
}

#[test]
fn config_settings_declare_the_four_types_with_a_matching_default() {
    let settings = json!([
        {"key": "maxAgentSteps", "label": "Max Agent Steps", "description": "d", "type": "number", "default": 300, "min": 1, "max": 10000, "envFallback": "MAX_AGENT_STEPS", "category": "runtime"},
        {"key": "searchDebug", "label": "Search Debug", "type": "boolean", "default": false, "category": "debug", "editable": false},
        setting("greeting", "string", json!("hi")),
        setting("layoutRules", "json", json!({"a": [1]}))
    ]);
    let m = accepts(json!({"configSettings": settings}), FIRST)
        .manifest
        .expect("manifest");
    assert_eq!(m.config_settings[0].kind, ConfigType::Number);
    assert!(!m.config_settings[1].editable && m.config_settings[2].editable);
    rejects_at(
        json!({"configSettings": [setting("a", "integer", json!(1))]}),
        FIRST,
        "/neuralis/configSettings/0/type",
    );
    for (kind, default) in [
        ("number", json!("3")),
        ("string", json!(3)),
        ("boolean", json!("true")),
    ] {
        rejects_at(
            json!({"configSettings": [setting("a", kind, default)]}),
            FIRST,
            "/neuralis/configSettings/0/default",
        );
    }
}

#[test]
fn config_settings_shape_is_closed_and_complete() {
    let mut extra = setting("a", "number", json!(1));
    extra["secret"] = json!(true);
    rejects_at(
        json!({"configSettings": [extra]}),
        FIRST,
        "/neuralis/configSettings/0/secret",
    );
    for required in ["label", "category", "default", "type"] {
        let mut s = setting("a", "number", json!(1));
        s.as_object_mut().map(|m| m.remove(required));
        rejects_at(
            json!({"configSettings": [s]}),
            FIRST,
            &format!("/neuralis/configSettings/0/{required}"),
        );
    }
    rejects_at(
        json!({"configSettings": [setting("a", "string", json!("x")), setting("a", "string", json!("y"))]}),
        FIRST,
        "/neuralis/configSettings/1/key",
    );
}

#[test]
fn config_keys_are_flat_camel_case() {
    for ok in ["a", "maxAgentSteps", "x2", &format!("a{}", "b".repeat(63))] {
        accepts(
            json!({"configSettings": [setting(ok, "boolean", json!(true))]}),
            FIRST,
        );
    }
    for bad in [
        "MaxSteps",
        "max_steps",
        "max.steps",
        "1x",
        "",
        &format!("a{}", "b".repeat(64)),
    ] {
        rejects_at(
            json!({"configSettings": [setting(bad, "boolean", json!(true))]}),
            FIRST,
            "/neuralis/configSettings/0/key",
        );
    }
}

#[test]
fn number_bounds_are_inclusive_and_only_on_numbers() {
    let bounded = |default: f64, min: f64, max: f64| json!([{"key": "n", "label": "N", "type": "number", "default": default, "min": min, "max": max, "category": "c"}]);
    accepts(json!({"configSettings": bounded(1.0, 1.0, 10.0)}), FIRST);
    accepts(json!({"configSettings": bounded(10.0, 1.0, 10.0)}), FIRST);
    rejects_at(
        json!({"configSettings": bounded(11.0, 1.0, 10.0)}),
        FIRST,
        "/neuralis/configSettings/0/default",
    );
    rejects_at(
        json!({"configSettings": bounded(5.0, 10.0, 1.0)}),
        FIRST,
        "/neuralis/configSettings/0/min",
    );
    let mut s = setting("s", "string", json!("x"));
    s["max"] = json!(3);
    rejects_at(
        json!({"configSettings": [s]}),
        FIRST,
        "/neuralis/configSettings/0/max",
    );
}

#[test]
fn json_settings_ignore_env_fallback() {
    let mut s = setting("layoutRules", "json", json!([]));
    s["envFallback"] = json!("LAYOUT_RULES");
    let v = warns_at(
        json!({"configSettings": [s]}),
        FIRST,
        "/neuralis/configSettings/0/envFallback",
    );
    assert_eq!(
        v.manifest.expect("manifest").config_settings[0].env_fallback,
        None
    );
    let mut bad = setting("n", "number", json!(1));
    bad["envFallback"] = json!("lower-case");
    rejects_at(
        json!({"configSettings": [bad]}),
        FIRST,
        "/neuralis/configSettings/0/envFallback",
    );
}

#[test]
fn secret_looking_keys_and_env_names_are_warned_about() {
    warns_at(
        json!({"configSettings": [setting("openaiApiKey", "string", json!(""))]}),
        FIRST,
        "/neuralis/configSettings/0/key",
    );
    let mut s = setting("endpoint", "string", json!(""));
    s["envFallback"] = json!("SERVICE_TOKEN");
    warns_at(
        json!({"configSettings": [s]}),
        FIRST,
        "/neuralis/configSettings/0/envFallback",
    );
    let v = accepts(
        json!({"configSettings": [setting("maxAgentSteps", "number", json!(1))]}),
        FIRST,
    );
    assert!(v.warnings.is_empty(), "{:?}", v.warnings);
}

#[test]
fn config_settings_are_honored_for_first_party_only() {
    let v = warns_at(
        json!({"configSettings": [setting("a", "number", json!(1))]}),
        TRUSTED,
        "/neuralis/configSettings",
    );
    assert!(v.manifest.expect("manifest").config_settings.is_empty());
}
