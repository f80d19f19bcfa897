//! The whole `neuralis` block: runs every section check and assembles the typed,
//! trust-sanitized view. Sections a tier may not use are already dropped (with a
//! warning) by the time they reach this view.

use crate::app::{self, App};
use crate::config_settings::{self, ConfigSetting};
use crate::connectors::{self, Connector};
use crate::credentials::{self, Credential};
use crate::data_layout::{self, DataLayout};
use crate::definitions::{self, Inline};
use crate::events::{self, EventDecl};
use crate::identity::{self, Identity};
use crate::issue::Pointer;
use crate::package_path::inside_package;
use crate::provides::{self, Service};
use crate::requires::{self, Requires};
use crate::runtime;
use crate::shape::Cx;
use crate::sources::{self, SourceDecl};
use crate::uri_policies::{self, UriPolicyBaseline};
use neuralis_layout::Trust;
use serde::Serialize;
use serde_json::{Map, Value};

/// A validated manifest, sanitized for the host-assigned trust.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Manifest {
    #[serde(flatten)]
    pub identity: Identity,
    /// The host-assigned trust (a self-declaration never raises it).
    pub trust: Trust,
    pub provides: Vec<Service>,
    pub runtime: Option<Value>,
    pub requires: Requires,
    pub app: App,
    pub events: Vec<EventDecl>,
    pub connectors: Vec<Connector>,
    pub sources: Vec<SourceDecl>,
    pub credentials: Vec<Credential>,
    #[serde(rename = "configSettings")]
    pub config_settings: Vec<ConfigSetting>,
    #[serde(rename = "uriPolicies")]
    pub uri_policies: Vec<UriPolicyBaseline>,
    #[serde(rename = "dataLayout")]
    pub data_layout: DataLayout,
    /// Inline tools, files, commands, hooks and team members (legacy fallback).
    pub inline: Inline,
}

impl Manifest {
    /// The package id.
    pub fn id(&self) -> &str {
        &self.identity.id
    }
}

const KNOWN_KEYS: &[&str] = &[
    "id",
    "name",
    "description",
    "descriptionForModel",
    "icon",
    "referenceOnly",
    "provides",
    "runtime",
    "runtimeProvider",
    "access",
    "requires",
    "app",
    "events",
    "connectors",
    "sources",
    "credentials",
    "configSettings",
    "uriPolicies",
    "dataLayout",
    "tools",
    "files",
    "commands",
    "hooks",
    "team",
];

pub(crate) fn check(
    cx: &mut Cx<'_>,
    doc: &Map<String, Value>,
    block: &Map<String, Value>,
    at: &Pointer,
) -> Option<Manifest> {
    for key in block.keys().filter(|k| !KNOWN_KEYS.contains(&k.as_str())) {
        cx.warn(&at.key(key), "unknown key; ignored");
    }
    // Every section is checked even when the identity is bad, so all errors show.
    let identity = identity::check(cx, doc, block, at);
    let has_identity = identity.is_some();
    let manifest = Manifest {
        identity: identity.unwrap_or_default(),
        trust: cx.trust,
        provides: section(cx, block, at, "provides", provides::check).unwrap_or_default(),
        runtime: section(cx, block, at, "runtime", runtime::check).flatten(),
        requires: section(cx, block, at, "requires", requires::check).unwrap_or_default(),
        app: section(cx, block, at, "app", app::check).unwrap_or_default(),
        events: first_party(cx, block, at, "events", events::check_all),
        connectors: section(cx, block, at, "connectors", connectors::check_all).unwrap_or_default(),
        sources: section(cx, block, at, "sources", sources::check_all).unwrap_or_default(),
        credentials: section(cx, block, at, "credentials", credentials::check_all)
            .unwrap_or_default(),
        config_settings: first_party(cx, block, at, "configSettings", config_settings::check_all),
        uri_policies: section(cx, block, at, "uriPolicies", uri_policies::check)
            .unwrap_or_default(),
        data_layout: section(cx, block, at, "dataLayout", data_layout::check).unwrap_or_default(),
        inline: definitions::check_inline(cx, block, at),
    };
    check_runtime_provider(cx, block, at, &manifest.provides);
    has_identity.then_some(manifest)
}

/// Runs the check of an optional section when it is present.
fn section<T>(
    cx: &mut Cx<'_>,
    block: &Map<String, Value>,
    at: &Pointer,
    key: &str,
    check: fn(&mut Cx<'_>, &Value, &Pointer) -> T,
) -> Option<T> {
    block.get(key).map(|v| check(cx, v, &at.key(key)))
}

/// A section honored for first-party packages only: a warning and dropped otherwise
/// (validated all the same).
fn first_party<T>(
    cx: &mut Cx<'_>,
    block: &Map<String, Value>,
    at: &Pointer,
    key: &str,
    check: fn(&mut Cx<'_>, &Value, &Pointer) -> Vec<T>,
) -> Vec<T> {
    let Some(v) = block.get(key) else {
        return Vec::new();
    };
    let key_at = at.key(key);
    if !cx.honored(&key_at, Trust::FirstParty, key) {
        cx.check_dropped(|cx| {
            check(cx, v, &key_at);
        });
        return Vec::new();
    }
    check(cx, v, &key_at)
}

/// `runtimeProvider` names the native runtime module: a path inside the package.
/// A package that provides `runtime` must name it: "runtime instead names the native
/// runtimeProvider module" (the other contracts come from the lifecycle state).
fn check_runtime_provider(
    cx: &mut Cx<'_>,
    block: &Map<String, Value>,
    at: &Pointer,
    provides: &[Service],
) {
    let Some(path) = cx.optional_text(block, at, "runtimeProvider") else {
        if provides.contains(&Service::Runtime) && !block.contains_key("runtimeProvider") {
            cx.error(
                &at.key("runtimeProvider"),
                "is required when the package provides runtime",
            );
        }
        return;
    };
    if let Err(problem) = inside_package(path) {
        cx.error(&at.key("runtimeProvider"), problem.to_string());
    }
}
