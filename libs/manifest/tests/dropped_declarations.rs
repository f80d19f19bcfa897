//! Seed 002: "every declaration the manifest carries is validated before the package
//! registers anything, and a single error rejects the whole package". A declaration a
//! low trust tier drops (provides, app.module, events, configSettings below
//! first-party; machineWritten below trusted) is validated all the same: its errors are
//! reported, at the same pointers a first-party package gets them, and reject it.

mod support;

use neuralis_manifest::{Status, Trust};
use serde_json::{Value, json};
use support::{FIRST, TRUSTED, UNTRUSTED, run, warns_at};

/// (field, an invalid declaration of it, the tier that drops it)
fn invalid_dropped() -> Vec<(&'static str, Value, Trust)> {
    vec![
        ("provides", json!({"provides": ["nonsense"]}), UNTRUSTED),
        (
            "app.module",
            json!({"app": {"module": {"entry": "/abs/host.js"}}}),
            TRUSTED,
        ),
        (
            "events",
            json!({"events": [{"id": "x", "title": "X", "subject": "Not A Subject", "dataSchema": {"type": "object"}}]}),
            UNTRUSTED,
        ),
        (
            "configSettings",
            json!({"configSettings": [{"key": "Bad-Key", "label": "L", "type": "number", "default": 1, "category": "runtime"}]}),
            TRUSTED,
        ),
        (
            "machineWritten",
            json!({"dataLayout": {"machineWritten": [{"path": "../escape", "class": "log"}]}}),
            UNTRUSTED,
        ),
    ]
}

fn error_pointers(block: &Value, trust: Trust) -> Vec<String> {
    let mut pointers: Vec<String> = run(block.clone(), trust)
        .errors
        .iter()
        .map(|e| e.pointer.clone())
        .collect();
    pointers.sort();
    pointers
}

#[test]
fn a_declaration_dropped_for_trust_is_validated_and_its_error_rejects_the_package() {
    for (field, block, low) in invalid_dropped() {
        let honored = error_pointers(&block, FIRST);
        assert!(!honored.is_empty(), "{field}: the case is invalid");
        let v = run(block.clone(), low);
        assert_eq!(v.status, Status::Rejected, "{field} at {low:?}");
        assert_eq!(
            error_pointers(&block, low),
            honored,
            "{field}: the same errors as when it is honored"
        );
        assert!(
            v.warnings
                .iter()
                .any(|w| w.message.contains("dropped at load")),
            "{field}: still dropped with a warning: {:#?}",
            v.warnings
        );
    }
}

#[test]
fn a_valid_declaration_dropped_for_trust_still_only_warns() {
    warns_at(
        json!({"events": [{"id": "x", "title": "X", "subject": "report", "dataSchema": {"type": "object"}}]}),
        UNTRUSTED,
        "/neuralis/events",
    );
    warns_at(
        json!({"dataLayout": {"machineWritten": [{"path": "audit/**", "class": "log"}]}}),
        UNTRUSTED,
        "/neuralis/dataLayout/machineWritten",
    );
}
