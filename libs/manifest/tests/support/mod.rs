//! Shared helpers: wrap a `neuralis` block in a package.json and assert on findings.
#![allow(dead_code)]

use neuralis_manifest::{Status, Trust, Validation, validate};
use serde_json::{Value, json};

pub const FIRST: Trust = Trust::FirstParty;
pub const TRUSTED: Trust = Trust::Trusted;
pub const UNTRUSTED: Trust = Trust::Untrusted;

/// Validates `{"name": "@acme/reports", "neuralis": block}`.
pub fn run(block: Value, trust: Trust) -> Validation {
    validate(
        &json!({"name": "@acme/reports", "version": "1.0.0", "neuralis": block}),
        trust,
    )
}

/// The block with one more field.
pub fn with(key: &str, value: Value) -> Value {
    json!({ "id": "@acme/reports", key: value })
}

#[track_caller]
pub fn accepts(block: Value, trust: Trust) -> Validation {
    let v = run(block.clone(), trust);
    assert_eq!(
        v.status,
        Status::Loads,
        "expected {block} to load at {trust:?}, errors: {:#?}",
        v.errors
    );
    v
}

#[track_caller]
pub fn rejects_at(block: Value, trust: Trust, pointer: &str) -> Validation {
    let v = run(block.clone(), trust);
    assert_eq!(
        v.status,
        Status::Rejected,
        "expected {block} to be rejected at {trust:?}"
    );
    assert!(
        v.errors.iter().any(|e| e.pointer == pointer),
        "expected an error at {pointer} for {block}, got {:#?}",
        v.errors
    );
    v
}

#[track_caller]
pub fn warns_at(block: Value, trust: Trust, pointer: &str) -> Validation {
    let v = accepts(block.clone(), trust);
    assert!(
        v.warnings.iter().any(|w| w.pointer == pointer),
        "expected a warning at {pointer} for {block}, got {:#?}",
        v.warnings
    );
    v
}
