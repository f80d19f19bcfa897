//! Identity fields, referenceOnly, provides, runtime and access.trust (seed 002).
mod support;

use neuralis_manifest::provides::Service;
use neuralis_manifest::{Status, validate};
use serde_json::json;
use support::*;

#[test]
fn minimal_manifest_is_enough_for_a_declarative_package() {
    // "This is enough for a declarative-only package."
    let v = accepts(
        json!({"id": "my-package", "name": "My Package", "description": "d", "descriptionForModel": "m"}),
        UNTRUSTED,
    );
    let m = v.manifest.expect("manifest");
    assert_eq!(m.id(), "my-package");
    assert_eq!(m.identity.description_for_model.as_deref(), Some("m"));
    // "The minimal opt-in is { "neuralis": {} }": the id falls back to the npm name.
    let v = accepts(json!({}), UNTRUSTED);
    assert_eq!(v.manifest.expect("manifest").id(), "@acme/reports");
}

#[test]
fn package_id_must_be_an_npm_name() {
    for bad in [
        "My Package",
        "../x",
        "",
        "@acme",
        "@/x",
        "_private",
        "a".repeat(215).as_str(),
    ] {
        rejects_at(json!({"id": bad}), UNTRUSTED, "/neuralis/id");
    }
    rejects_at(json!({"id": 7}), UNTRUSTED, "/neuralis/id");
    let v = validate(&json!({"neuralis": {}}), UNTRUSTED);
    assert_eq!(v.errors[0].pointer, "/neuralis/id");
}

#[test]
fn identity_texts_must_be_non_empty_strings() {
    rejects_at(json!({"name": ""}), UNTRUSTED, "/neuralis/name");
    rejects_at(
        json!({"descriptionForModel": ["x"]}),
        UNTRUSTED,
        "/neuralis/descriptionForModel",
    );
}

#[test]
fn a_package_json_without_a_neuralis_block_anchors_nothing() {
    let v = validate(&json!({"name": "plain-app"}), UNTRUSTED);
    assert_eq!(v.status, Status::Rejected);
    assert_eq!(v.errors[0].pointer, "/neuralis");
    assert!(!neuralis_manifest::has_neuralis_block(
        &json!({"name": "plain-app"})
    ));
    assert!(neuralis_manifest::has_neuralis_block(
        &json!({"neuralis": {}})
    ));
}

#[test]
fn reference_only_opts_out_of_loading() {
    // "a reference or documentation-only package opts out with referenceOnly: true"
    let v = run(
        json!({"referenceOnly": true, "credentials": "not checked"}),
        UNTRUSTED,
    );
    assert_eq!(v.status, Status::ReferenceOnly);
    assert!(v.manifest.is_none());
    accepts(json!({"referenceOnly": false}), UNTRUSTED);
    rejects_at(
        json!({"referenceOnly": "yes"}),
        UNTRUSTED,
        "/neuralis/referenceOnly",
    );
}

#[test]
fn unknown_top_level_keys_are_warned_about_and_ignored() {
    warns_at(
        json!({"credentails": []}),
        UNTRUSTED,
        "/neuralis/credentails",
    );
}

#[test]
fn provides_uses_the_closed_service_vocabulary() {
    let all = json!([
        "runtime",
        "session-ticket-verifier",
        "agent-directory",
        "channel-gateway",
        "package-source-roots",
        "mcp-server",
        "oauth-callback:codex_"
    ]);
    let m = accepts(
        json!({"provides": all, "runtimeProvider": "dist/runtime.js"}),
        FIRST,
    )
    .manifest
    .expect("manifest");
    assert_eq!(m.provides.len(), 7);
    assert_eq!(m.provides[6], Service::OauthCallback("codex_".into()));
    assert!(m.provides[0].is_required_singleton() && m.provides[1].is_required_singleton());
    rejects_at(
        json!({"provides": ["database"]}),
        FIRST,
        "/neuralis/provides/0",
    );
    rejects_at(
        json!({"provides": ["runtime", "runtime"]}),
        FIRST,
        "/neuralis/provides/1",
    );
    rejects_at(json!({"provides": "runtime"}), FIRST, "/neuralis/provides");
}

#[test]
fn oauth_prefixes_are_lowercase_end_in_underscore_3_to_32_and_never_overlap() {
    for ok in ["ab_", "codex_", &format!("{}_", "a".repeat(31))] {
        accepts(json!({"provides": [format!("oauth-callback:{ok}")]}), FIRST);
    }
    for bad in [
        "a_",
        "Codex_",
        "codex",
        "co-dex_",
        "1ab_",
        &format!("{}_", "a".repeat(32)),
    ] {
        rejects_at(
            json!({"provides": [format!("oauth-callback:{bad}")]}),
            FIRST,
            "/neuralis/provides/0",
        );
    }
    rejects_at(
        json!({"provides": ["oauth-callback:git_", "oauth-callback:git_hub_"]}),
        FIRST,
        "/neuralis/provides/1",
    );
}

#[test]
fn provides_below_first_party_is_dropped_with_a_warning() {
    // "Host-assigned trust is authoritative: declarations from other tiers are dropped."
    for trust in [TRUSTED, UNTRUSTED] {
        let v = warns_at(
            json!({"provides": ["channel-gateway", "oauth-callback:acme_"]}),
            trust,
            "/neuralis/provides",
        );
        assert!(v.manifest.expect("manifest").provides.is_empty());
    }
}

#[test]
fn runtime_has_a_closed_shape() {
    let runtime = json!({"type": "wasm", "binding": "none", "permissions": {"fs": "data-only", "net": "none", "exec": false}, "hosted": {"tools": "all"}, "skillScripts": "none"});
    accepts(json!({"runtime": runtime}), UNTRUSTED);
    accepts(
        json!({"runtime": {"type": "node", "hosted": {"tools": ["a", "b"]}}}),
        FIRST,
    );
    rejects_at(
        json!({"runtime": {"type": "python"}}),
        UNTRUSTED,
        "/neuralis/runtime/type",
    );
    rejects_at(json!({"runtime": {}}), UNTRUSTED, "/neuralis/runtime/type");
    rejects_at(
        json!({"runtime": {"type": "wasm", "permissions": {"exec": "yes"}}}),
        UNTRUSTED,
        "/neuralis/runtime/permissions/exec",
    );
    rejects_at(
        json!({"runtime": {"type": "wasm", "hosted": {"tools": "some"}}}),
        UNTRUSTED,
        "/neuralis/runtime/hosted/tools",
    );
    rejects_at(
        json!({"runtime": {"type": "wasm", "gpu": true}}),
        UNTRUSTED,
        "/neuralis/runtime/gpu",
    );
}

#[test]
fn a_self_declared_trust_never_raises_trust() {
    // "Do not self-declare first-party expecting it to matter: the host assigns trust by source."
    let v = warns_at(
        json!({"access": {"trust": "first-party"}, "provides": ["runtime"]}),
        UNTRUSTED,
        "/neuralis/access/trust",
    );
    let m = v.manifest.expect("manifest");
    assert_eq!(m.trust, UNTRUSTED);
    assert!(m.provides.is_empty());
    let v = accepts(json!({"access": {"trust": "untrusted"}}), FIRST);
    assert_eq!(v.manifest.expect("manifest").trust, FIRST);
    rejects_at(
        json!({"access": {"trust": "root"}}),
        UNTRUSTED,
        "/neuralis/access/trust",
    );
}

#[test]
fn runtime_provider_stays_inside_the_package() {
    accepts(json!({"runtimeProvider": "dist/runtime.js"}), FIRST);
    // "runtime instead names the native runtimeProvider module"
    accepts(
        json!({"provides": ["runtime"], "runtimeProvider": "dist/runtime.js"}),
        FIRST,
    );
    rejects_at(
        json!({"provides": ["runtime"]}),
        FIRST,
        "/neuralis/runtimeProvider",
    );
    rejects_at(
        json!({"runtimeProvider": "../other/runtime.js"}),
        FIRST,
        "/neuralis/runtimeProvider",
    );
}
