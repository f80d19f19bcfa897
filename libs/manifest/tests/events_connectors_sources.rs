//! `events`, `connectors` and `sources` (seed 002).
mod support;

use neuralis_manifest::{Status, validate_package};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use support::*;

fn event(id: &str, subject: &str) -> Value {
    json!({"id": id, "title": "Report failed", "subject": subject,
           "dataSchema": {"type": "object", "additionalProperties": false, "properties": {"reportId": {"type": "string", "maxLength": 128}}},
           "requires": {"features": ["acme.reports.read"]}, "notify": {"default": "on", "tone": "error"}, "dock": "acme-reports"})
}

#[test]
fn events_are_honored_for_first_party_only() {
    let m = accepts(json!({"events": [event("report.failed", "report")]}), FIRST)
        .manifest
        .expect("manifest");
    assert_eq!(m.events[0].subject, "report");
    let v = warns_at(
        json!({"events": [event("report.failed", "report")]}),
        TRUSTED,
        "/neuralis/events",
    );
    assert!(v.manifest.expect("manifest").events.is_empty());
}

#[test]
fn at_most_64_events_per_package() {
    let ok: Vec<Value> = (0..64).map(|i| event(&format!("e{i}"), "report")).collect();
    accepts(json!({"events": ok}), FIRST);
    let too_many: Vec<Value> = (0..65).map(|i| event(&format!("e{i}"), "report")).collect();
    rejects_at(json!({"events": too_many}), FIRST, "/neuralis/events");
}

#[test]
fn an_event_data_schema_must_be_a_valid_json_schema() {
    let mut bad = event("report.failed", "report");
    bad["dataSchema"] = json!({"type": "objekt"});
    rejects_at(
        json!({"events": [bad]}),
        FIRST,
        "/neuralis/events/0/dataSchema",
    );
    let mut missing = event("report.failed", "report");
    missing.as_object_mut().map(|m| m.remove("dataSchema"));
    rejects_at(
        json!({"events": [missing]}),
        FIRST,
        "/neuralis/events/0/dataSchema",
    );
}

#[test]
fn the_title_and_nav_data_keys_have_their_row_shapes() {
    let mut ok = event("report.failed", "report");
    ok["dataSchema"]["properties"]["title"] = json!({"type": "string"});
    ok["dataSchema"]["properties"]["nav"] =
        json!({"type": "object", "properties": {"widgetType": {"type": "string"}}});
    accepts(json!({"events": [ok]}), FIRST);
    for (key, schema) in [
        ("title", json!({"type": "number"})),
        ("nav", json!({"type": "string"})),
    ] {
        let mut bad = event("report.failed", "report");
        bad["dataSchema"]["properties"][key] = schema;
        rejects_at(
            json!({"events": [bad]}),
            FIRST,
            &format!("/neuralis/events/0/dataSchema/properties/{key}"),
        );
    }
}

#[test]
fn event_fields_have_their_shape() {
    let cases = [
        (
            "subject",
            json!("Report/../x"),
            "/neuralis/events/0/subject",
        ),
        (
            "notify",
            json!({"default": "loud"}),
            "/neuralis/events/0/notify/default",
        ),
        (
            "notify",
            json!({"tone": "purple"}),
            "/neuralis/events/0/notify/tone",
        ),
        ("payload", json!({}), "/neuralis/events/0/payload"),
    ];
    for (key, value, pointer) in cases {
        let mut e = event("report.failed", "report");
        e[key] = value;
        rejects_at(json!({"events": [e]}), FIRST, pointer);
    }
    rejects_at(
        json!({"events": [event("a", "report"), event("a", "report")]}),
        FIRST,
        "/neuralis/events/1/id",
    );
}

#[test]
fn each_event_subject_needs_a_source_file() {
    // "Each subject needs a source file, src/events/<subject>.ts (compiled to dist/src/events/)."
    let doc = json!({"name": "@acme/reports", "neuralis": {"events": [event("report.failed", "report")]}});
    let with_source: BTreeSet<String> = ["package.json", "src/events/report.ts"]
        .map(String::from)
        .into();
    assert_eq!(
        validate_package(&doc, FIRST, Some(&with_source)).status,
        Status::Loads
    );
    let compiled: BTreeSet<String> = ["dist/src/events/report.js"].map(String::from).into();
    assert_eq!(
        validate_package(&doc, FIRST, Some(&compiled)).status,
        Status::Loads
    );
    let without: BTreeSet<String> = ["package.json", "src/events/other.ts"]
        .map(String::from)
        .into();
    let v = validate_package(&doc, FIRST, Some(&without));
    assert_eq!(v.status, Status::Rejected);
    assert_eq!(v.errors[0].pointer, "/neuralis/events/0/subject");
}

fn source_connector() -> Value {
    json!({"id": "acme-drive", "type": "source", "description": "Acme Drive folders",
           "configSchema": {"type": "object", "additionalProperties": false, "properties": {"folder": {"type": "string"}}},
           "capabilities": ["list", "read"], "connectorFactory": "dist/connectors/drive.js"})
}

#[test]
fn connectors_need_a_description_and_a_known_type() {
    let mcp = json!({"id": "acme-mcp", "type": "mcp", "description": "Acme MCP", "transports": [{"type": "stdio"}], "auth": {"setupFields": []}});
    let m = accepts(json!({"connectors": [source_connector(), mcp]}), UNTRUSTED)
        .manifest
        .expect("manifest");
    assert_eq!(m.connectors.len(), 2);
    let mut no_description = source_connector();
    no_description
        .as_object_mut()
        .map(|m| m.remove("description"));
    rejects_at(
        json!({"connectors": [no_description]}),
        UNTRUSTED,
        "/neuralis/connectors/0/description",
    );
    let mut unknown = source_connector();
    unknown["type"] = json!("ftp");
    rejects_at(
        json!({"connectors": [unknown]}),
        UNTRUSTED,
        "/neuralis/connectors/0/type",
    );
}

#[test]
fn a_source_connector_has_a_closed_config_schema_and_a_factory_inside_the_package() {
    let mut open = source_connector();
    open["configSchema"]["additionalProperties"] = json!(true);
    rejects_at(
        json!({"connectors": [open]}),
        UNTRUSTED,
        "/neuralis/connectors/0/configSchema/additionalProperties",
    );
    let mut outside = source_connector();
    outside["connectorFactory"] = json!("../evil.js");
    rejects_at(
        json!({"connectors": [outside]}),
        UNTRUSTED,
        "/neuralis/connectors/0/connectorFactory",
    );
    // "A source connector's secrets are declared in neuralis.credentials[] ... never as config-schema properties"
    let mut secret = source_connector();
    secret["configSchema"]["properties"]["apiToken"] = json!({"type": "string"});
    warns_at(
        json!({"connectors": [secret]}),
        UNTRUSTED,
        "/neuralis/connectors/0/configSchema/properties/apiToken",
    );
}

fn source(seed: &str, root: &str, scope: &str) -> Value {
    json!([{"source": "data", "kind": "local", "root": root, "scope": scope, "description": "The project's shared working directory.", "seed": seed}])
}

#[test]
fn sources_need_a_description_and_their_closed_shape() {
    let mut s = source("discoverable", "data", "project");
    s[0].as_object_mut().map(|m| m.remove("description"));
    rejects_at(
        json!({"sources": s}),
        UNTRUSTED,
        "/neuralis/sources/0/description",
    );
    let cases = [
        ("seed", json!("sometimes"), "/neuralis/sources/0/seed"),
        ("scope", json!("world"), "/neuralis/sources/0/scope"),
        ("source", json!("Data Dir"), "/neuralis/sources/0/source"),
        ("extra", json!(1), "/neuralis/sources/0/extra"),
    ];
    for (key, value, pointer) in cases {
        let mut s = source("discoverable", "data", "project");
        s[0][key] = value;
        rejects_at(json!({"sources": s}), TRUSTED, pointer);
    }
}

#[test]
fn seed_auto_needs_trusted_or_higher() {
    accepts(
        json!({"sources": source("auto", "data", "project")}),
        TRUSTED,
    );
    rejects_at(
        json!({"sources": source("auto", "data", "project")}),
        UNTRUSTED,
        "/neuralis/sources/0/seed",
    );
}

#[test]
fn an_app_root_platform_root_needs_first_party() {
    accepts(
        json!({"sources": source("auto", "${appRoot}/data", "project")}),
        FIRST,
    );
    rejects_at(
        json!({"sources": source("auto", "${appRoot}/data", "project")}),
        TRUSTED,
        "/neuralis/sources/0/root",
    );
    rejects_at(
        json!({"sources": source("auto", "${home}/data", "project")}),
        FIRST,
        "/neuralis/sources/0/root",
    );
}

#[test]
fn untrusted_packages_declare_only_project_relative_discoverable_sources() {
    accepts(
        json!({"sources": source("discoverable", "notes/inbox", "project")}),
        UNTRUSTED,
    );
    rejects_at(
        json!({"sources": source("discoverable", "/etc", "project")}),
        UNTRUSTED,
        "/neuralis/sources/0/root",
    );
    rejects_at(
        json!({"sources": source("discoverable", "../x", "project")}),
        UNTRUSTED,
        "/neuralis/sources/0/root",
    );
    rejects_at(
        json!({"sources": source("discoverable", "notes", "user")}),
        UNTRUSTED,
        "/neuralis/sources/0/scope",
    );
    accepts(
        json!({"sources": source("discoverable", "/srv/shared", "user")}),
        TRUSTED,
    );
}
