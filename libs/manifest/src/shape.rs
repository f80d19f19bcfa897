//! The shape checks every section shares: types, required and closed keys. Each check
//! records an error naming the pointer and what is allowed, and returns `None` so the
//! caller keeps going and collects every other error too.

use crate::issue::{Issues, Pointer};
use neuralis_layout::Trust;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// The state of one validation run: findings, the host-assigned trust, and what the
/// rules need to know about the package beyond its manifest.
pub(crate) struct Cx<'a> {
    pub(crate) issues: Issues,
    pub(crate) trust: Trust,
    /// The npm `name` of the package (app.module ids must be subpaths of it).
    pub(crate) package_name: Option<&'a str>,
    /// The package's files, relative with `/`, when known (events need subject files).
    pub(crate) files: Option<&'a BTreeSet<String>>,
}

/// The JSON type of a value, for messages ("got a number").
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Cx<'_> {
    pub(crate) fn error(&mut self, at: &Pointer, message: impl Into<String>) {
        self.issues.error(at, message);
    }

    pub(crate) fn warn(&mut self, at: &Pointer, message: impl Into<String>) {
        self.issues.warn(at, message);
    }

    pub(crate) fn object<'v>(
        &mut self,
        v: &'v Value,
        at: &Pointer,
    ) -> Option<&'v Map<String, Value>> {
        match v {
            Value::Object(map) => Some(map),
            other => {
                self.error(at, format!("must be an object, got {}", json_type(other)));
                None
            }
        }
    }

    pub(crate) fn array<'v>(&mut self, v: &'v Value, at: &Pointer) -> Option<&'v [Value]> {
        match v {
            Value::Array(items) => Some(items),
            other => {
                self.error(at, format!("must be an array, got {}", json_type(other)));
                None
            }
        }
    }

    pub(crate) fn string<'v>(&mut self, v: &'v Value, at: &Pointer) -> Option<&'v str> {
        match v {
            Value::String(s) => Some(s),
            other => {
                self.error(at, format!("must be a string, got {}", json_type(other)));
                None
            }
        }
    }

    /// A string with at least one non-whitespace character.
    pub(crate) fn text<'v>(&mut self, v: &'v Value, at: &Pointer) -> Option<&'v str> {
        let s = self.string(v, at)?;
        if s.trim().is_empty() {
            self.error(at, "must be a non-empty string");
            return None;
        }
        Some(s)
    }

    pub(crate) fn boolean(&mut self, v: &Value, at: &Pointer) -> Option<bool> {
        match v {
            Value::Bool(b) => Some(*b),
            other => {
                self.error(at, format!("must be a boolean, got {}", json_type(other)));
                None
            }
        }
    }

    pub(crate) fn number(&mut self, v: &Value, at: &Pointer) -> Option<f64> {
        match v.as_f64() {
            Some(n) => Some(n),
            None => {
                self.error(at, format!("must be a number, got {}", json_type(v)));
                None
            }
        }
    }

    /// Rejects every key outside `allowed` (a closed shape).
    pub(crate) fn closed(&mut self, map: &Map<String, Value>, at: &Pointer, allowed: &[&str]) {
        for key in map.keys().filter(|k| !allowed.contains(&k.as_str())) {
            self.error(
                &at.key(key),
                format!("unknown key; allowed keys are {}", allowed.join(", ")),
            );
        }
    }

    /// A required member; records "required" when it is absent.
    pub(crate) fn required<'v>(
        &mut self,
        map: &'v Map<String, Value>,
        at: &Pointer,
        key: &str,
    ) -> Option<(&'v Value, Pointer)> {
        match map.get(key) {
            Some(v) => Some((v, at.key(key))),
            None => {
                self.error(&at.key(key), "is required");
                None
            }
        }
    }

    /// A required string member that is not blank.
    pub(crate) fn required_text<'v>(
        &mut self,
        map: &'v Map<String, Value>,
        at: &Pointer,
        key: &str,
    ) -> Option<&'v str> {
        let (v, p) = self.required(map, at, key)?;
        self.text(v, &p)
    }

    /// An optional string member; absent is `None` without an error.
    pub(crate) fn optional_text<'v>(
        &mut self,
        map: &'v Map<String, Value>,
        at: &Pointer,
        key: &str,
    ) -> Option<&'v str> {
        let v = map.get(key)?;
        self.text(v, &at.key(key))
    }

    /// Validates a declaration that trust drops: seed 002, "every declaration the
    /// manifest carries is validated before the package registers anything", so its
    /// errors reject the package like any other. What only a loaded declaration needs
    /// (its files, such as an event subject's source) is not asked of it.
    pub(crate) fn check_dropped(&mut self, check: impl FnOnce(&mut Self)) {
        let files = self.files.take();
        check(self);
        self.files = files;
    }

    /// Warns and reports `false` when a field below `needed` trust is dropped at load.
    pub(crate) fn honored(&mut self, at: &Pointer, needed: Trust, what: &str) -> bool {
        if self.trust >= needed {
            return true;
        }
        self.warn(
            at,
            format!(
                "{what} is honored for {} packages only; dropped at load",
                tier_phrase(needed)
            ),
        );
        false
    }
}

/// `first-party` / `trusted or first-party` for messages.
pub(crate) fn tier_phrase(needed: Trust) -> &'static str {
    match needed {
        Trust::FirstParty => "first-party",
        Trust::Trusted => "trusted and first-party",
        Trust::Untrusted => "all",
    }
}

/// The host-assigned tier as text.
pub(crate) fn tier_name(trust: Trust) -> &'static str {
    match trust {
        Trust::FirstParty => "first-party",
        Trust::Trusted => "trusted",
        Trust::Untrusted => "untrusted",
    }
}
