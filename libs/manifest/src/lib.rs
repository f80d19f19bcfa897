//! The installed-package manifest validator (seed 002 "Manifest and distribution").
//!
//! "Every declaration the manifest carries is validated before the package registers
//! anything, and a single error rejects the whole package rather than loading it
//! partially." [`validate`] checks a parsed `package.json` (or
//! `neuralis.package.json`, same shape) against the host-assigned [`Trust`] and
//! returns every error and warning with a JSON pointer, plus the typed,
//! trust-sanitized [`Manifest`] when there is no error.
//!
//! ```
//! use neuralis_manifest::{validate, Status, Trust};
//! let doc = serde_json::json!({"name": "my-package", "neuralis": {"credentials": [{"id": "git.x", "label": "X"}]}});
//! let report = validate(&doc, Trust::Untrusted);
//! assert_eq!(report.status, Status::Rejected);
//! assert_eq!(report.errors[0].pointer, "/neuralis/credentials/0/id");
//! ```
//!
//! Pure: no I/O, no async. The same functions run in the host at load and in
//! `neuralis validate` on an author's laptop. The file-first definitions (tools,
//! commands, hooks, team members, workflows) are validated by [`definitions`] so the
//! inline and file forms share one rule.
#![forbid(unsafe_code)]

pub mod app;
pub mod attach;
pub mod config_settings;
pub mod connectors;
pub mod credentials;
pub mod data_layout;
pub mod definitions;
pub mod distribution;
pub mod events;
pub mod identity;
mod issue;
mod manifest;
pub mod package_path;
pub mod provides;
pub mod requires;
mod runtime;
pub mod schema;
pub mod secret_names;
mod shape;
pub mod sources;
pub mod uri_policies;

pub use issue::{Issue, Pointer};
pub use manifest::Manifest;
pub use neuralis_layout::Trust;

use issue::Issues;
use serde::Serialize;
use serde_json::Value;
use shape::Cx;
use std::collections::BTreeSet;

/// What a validation concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// No error: the package loads.
    Loads,
    /// At least one error: the whole package is rejected.
    Rejected,
    /// `referenceOnly: true`: the package sits in the tree and never loads.
    ReferenceOnly,
}

/// The outcome of validating one manifest.
#[derive(Debug, Clone, Serialize)]
pub struct Validation {
    pub status: Status,
    pub errors: Vec<Issue>,
    pub warnings: Vec<Issue>,
    /// The typed, trust-sanitized view; present exactly when `status` is `Loads`.
    pub manifest: Option<Manifest>,
}

/// Whether a parsed package.json declares a Neuralis package: the host loads a
/// dependency if and only if its package.json carries a `neuralis` block.
pub fn has_neuralis_block(document: &Value) -> bool {
    document.get("neuralis").is_some()
}

/// Validates a manifest document for a package of the given host-assigned trust.
pub fn validate(document: &Value, trust: Trust) -> Validation {
    validate_package(document, trust, None)
}

/// Validates a manifest with the package's file list (relative paths with `/`), which
/// the checks that reach beyond the manifest need (event subject source files).
pub fn validate_package(
    document: &Value,
    trust: Trust,
    files: Option<&BTreeSet<String>>,
) -> Validation {
    let mut cx = Cx {
        issues: Issues::default(),
        trust,
        package_name: None,
        files,
    };
    let root = Pointer::root();
    let Some(doc) = cx.object(document, &root) else {
        return finish(cx, None, false);
    };
    cx.package_name = doc.get("name").and_then(Value::as_str);
    let block_at = root.key("neuralis");
    let Some(block_value) = doc.get("neuralis") else {
        cx.error(&block_at, "is required: a package.json without a neuralis block anchors nothing (minimal opt-in: {})");
        return finish(cx, None, false);
    };
    let Some(block) = cx.object(block_value, &block_at) else {
        return finish(cx, None, false);
    };
    if cx.package_name.is_none() {
        cx.package_name = block.get("id").and_then(Value::as_str);
    }
    if reference_only(&mut cx, block, &block_at) {
        return finish(cx, None, true);
    }
    let manifest = manifest::check(&mut cx, doc, block, &block_at);
    finish(cx, manifest, false)
}

/// `referenceOnly: true` opts the package out of loading; nothing else is checked.
fn reference_only(cx: &mut Cx<'_>, block: &serde_json::Map<String, Value>, at: &Pointer) -> bool {
    let Some(v) = block.get("referenceOnly") else {
        return false;
    };
    cx.boolean(v, &at.key("referenceOnly")).unwrap_or(false)
}

fn finish(cx: Cx<'_>, manifest: Option<Manifest>, reference_only: bool) -> Validation {
    let Issues { errors, warnings } = cx.issues;
    let status = match (errors.is_empty(), reference_only) {
        (false, _) => Status::Rejected,
        (true, true) => Status::ReferenceOnly,
        (true, false) => Status::Loads,
    };
    let manifest = if status == Status::Loads {
        manifest
    } else {
        None
    };
    Validation {
        status,
        errors,
        warnings,
        manifest,
    }
}
