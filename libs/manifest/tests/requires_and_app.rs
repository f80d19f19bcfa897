//! `requires`, `app.surfaces` and `app.module` (seed 002).
mod support;

use neuralis_manifest::app::{AssetMode, Renderer};
use serde_json::json;
use support::*;

#[test]
fn requires_declares_packages_features_role_grants_and_an_access_feature() {
    let requires = json!({
        "packages": ["@neuralis/brain-core"],
        "providesFeatures": ["my-pkg.read", {"id": "my-pkg.write", "title": "Write access", "description": "Create and modify items"}],
        "defaultRoleGrants": {"owner": ["my-pkg.read", "my-pkg.write"], "member": ["my-pkg.read"]},
        "accessFeature": "my-pkg.access"
    });
    let m = accepts(json!({"requires": requires}), UNTRUSTED)
        .manifest
        .expect("manifest");
    assert_eq!(
        m.requires.provides_features[1].title.as_deref(),
        Some("Write access")
    );
    assert_eq!(
        m.requires.default_role_grants["member"],
        vec!["my-pkg.read"]
    );
    assert_eq!(m.requires.access_feature.as_deref(), Some("my-pkg.access"));
}

#[test]
fn provides_features_rejects_duplicate_ids() {
    // "Duplicate ids are rejected." — in either form.
    rejects_at(
        json!({"requires": {"providesFeatures": ["a.read", {"id": "a.read"}]}}),
        UNTRUSTED,
        "/neuralis/requires/providesFeatures/1",
    );
}

#[test]
fn provides_features_entries_are_strings_or_id_title_description_objects() {
    let cases = [
        (json!([1]), "/neuralis/requires/providesFeatures/0"),
        (
            json!([{"title": "no id"}]),
            "/neuralis/requires/providesFeatures/0/id",
        ),
        (
            json!([{"id": "a", "label": "x"}]),
            "/neuralis/requires/providesFeatures/0/label",
        ),
        (
            json!(["has space"]),
            "/neuralis/requires/providesFeatures/0",
        ),
    ];
    for (features, pointer) in cases {
        rejects_at(
            json!({"requires": {"providesFeatures": features}}),
            UNTRUSTED,
            pointer,
        );
    }
}

#[test]
fn requires_fields_have_their_types() {
    let cases = [
        (
            json!({"packages": ["Not A Package"]}),
            "/neuralis/requires/packages/0",
        ),
        (
            json!({"packages": ["a", "a"]}),
            "/neuralis/requires/packages/1",
        ),
        (
            json!({"defaultRoleGrants": {"owner": "a.read"}}),
            "/neuralis/requires/defaultRoleGrants/owner",
        ),
        (
            json!({"accessFeature": ["a"]}),
            "/neuralis/requires/accessFeature",
        ),
        (json!({"gates": {}}), "/neuralis/requires/gates"),
    ];
    for (requires, pointer) in cases {
        rejects_at(json!({"requires": requires}), UNTRUSTED, pointer);
    }
}

fn widget(renderer: &str, url: &str) -> serde_json::Value {
    json!({"kind": "widget", "id": "my-pkg.widget", "type": "my_workspace", "title": "My Package",
           "component": {"renderer": renderer, "url": url}, "requires": {"features": ["my-pkg.read"]}})
}

#[test]
fn surfaces_are_widgets_cards_or_docks() {
    let surfaces = json!([
        widget("iframe", "./app/surfaces/widget/my_workspace/index.html"),
        {"kind": "card", "id": "summary", "render": {"renderer": "iframe", "url": "app/surfaces/card/summary/card.html", "assetMode": "bundle"}},
        {"kind": "dock", "id": "my-pkg.open", "label": "My Package", "action": {"type": "open-widget", "widget": "my_workspace"}}
    ]);
    let m = accepts(json!({"app": {"surfaces": surfaces}}), UNTRUSTED)
        .manifest
        .expect("manifest");
    assert_eq!(
        m.app.surfaces[0].url.as_deref(),
        Some("app/surfaces/widget/my_workspace/index.html")
    );
    assert_eq!(m.app.surfaces[0].features, vec!["my-pkg.read"]);
    assert_eq!(m.app.surfaces[1].asset_mode, Some(AssetMode::Bundle));
    rejects_at(
        json!({"app": {"surfaces": [{"kind": "panel", "id": "x"}]}}),
        UNTRUSTED,
        "/neuralis/app/surfaces/0/kind",
    );
    rejects_at(
        json!({"app": {"surfaces": [widget("iframe", "app/surfaces/widget/my_workspace/a.html"), widget("iframe", "app/surfaces/widget/my_workspace/b.html")]}}),
        UNTRUSTED,
        "/neuralis/app/surfaces/1/id",
    );
}

#[test]
fn the_renderer_depends_on_trust_direct_react_is_first_party_only() {
    let react = json!({"app": {"surfaces": [widget("react", "")]}});
    let m = accepts(react.clone(), FIRST).manifest.expect("manifest");
    assert_eq!(m.app.surfaces[0].renderer, Some(Renderer::React));
    rejects_at(
        react.clone(),
        TRUSTED,
        "/neuralis/app/surfaces/0/component/renderer",
    );
    rejects_at(
        react,
        UNTRUSTED,
        "/neuralis/app/surfaces/0/component/renderer",
    );
    rejects_at(
        json!({"app": {"surfaces": [widget("svelte", "")]}}),
        FIRST,
        "/neuralis/app/surfaces/0/component/renderer",
    );
}

#[test]
fn an_iframe_url_lies_in_its_surface_root() {
    // "app/surfaces/{kind}/{surfaceId}/, where {surfaceId} is the widget's type or the card's id"
    let at = "/neuralis/app/surfaces/0/component/url";
    for bad in [
        "app/surfaces/widget/other/index.html",
        "app/surfaces/card/my_workspace/index.html",
        "app/surfaces/widget/my_workspace/",
        "app/surfaces/widget/my_workspace/../../x.html",
        "/app/surfaces/widget/my_workspace/index.html",
        "https://evil.example/index.html",
        "index.html",
    ] {
        rejects_at(
            json!({"app": {"surfaces": [widget("iframe", bad)]}}),
            UNTRUSTED,
            at,
        );
    }
    let card = json!({"kind": "card", "id": "summary", "render": {"renderer": "iframe", "url": "app/surfaces/card/other/x.html"}});
    rejects_at(
        json!({"app": {"surfaces": [card]}}),
        UNTRUSTED,
        "/neuralis/app/surfaces/0/render/url",
    );
}

#[test]
fn asset_mode_is_self_contained_or_bundle() {
    let mut w = widget("iframe", "app/surfaces/widget/my_workspace/index.html");
    w["component"]["assetMode"] = json!("self-contained");
    accepts(json!({"app": {"surfaces": [w.clone()]}}), UNTRUSTED);
    w["component"]["assetMode"] = json!("cdn");
    rejects_at(
        json!({"app": {"surfaces": [w]}}),
        UNTRUSTED,
        "/neuralis/app/surfaces/0/component/assetMode",
    );
}

#[test]
fn app_module_entry_and_css_lie_under_dist_app() {
    let module = json!({"entry": "dist/app/host.js", "css": "dist/app/host.css", "provides": ["@acme/reports/app/charts"]});
    let m = accepts(json!({"app": {"module": module}}), FIRST)
        .manifest
        .expect("manifest");
    assert_eq!(
        m.app.module.expect("module").provides,
        vec!["@acme/reports/app/charts"]
    );
    accepts(
        json!({"app": {"module": {"entry": "./dist/app/host.mjs"}}}),
        FIRST,
    );
    let cases = [
        (
            json!({"entry": "dist/host.js"}),
            "/neuralis/app/module/entry",
        ),
        (
            json!({"entry": "dist/app/host.ts"}),
            "/neuralis/app/module/entry",
        ),
        (
            json!({"entry": "/dist/app/host.js"}),
            "/neuralis/app/module/entry",
        ),
        (
            json!({"entry": "dist/app/../../x.js"}),
            "/neuralis/app/module/entry",
        ),
        (
            json!({"entry": "dist/app/host.js", "css": "dist/app/host.scss"}),
            "/neuralis/app/module/css",
        ),
        (
            json!({"entry": "dist/app/host.js", "url": "/x"}),
            "/neuralis/app/module/url",
        ),
        (json!({}), "/neuralis/app/module/entry"),
    ];
    for (module, pointer) in cases {
        rejects_at(json!({"app": {"module": module}}), FIRST, pointer);
    }
}

#[test]
fn app_module_provides_at_most_16_unique_subpaths_of_the_own_name() {
    let at = "/neuralis/app/module/provides";
    let module = |provides: serde_json::Value| json!({"app": {"module": {"entry": "dist/app/host.js", "provides": provides}}});
    let sixteen: Vec<String> = (0..16).map(|i| format!("@acme/reports/m{i}")).collect();
    accepts(module(json!(sixteen)), FIRST);
    let seventeen: Vec<String> = (0..17).map(|i| format!("@acme/reports/m{i}")).collect();
    rejects_at(module(json!(seventeen)), FIRST, at);
    rejects_at(module(json!(["react"])), FIRST, &format!("{at}/0"));
    rejects_at(
        module(json!(["@acme/reportsx/y"])),
        FIRST,
        &format!("{at}/0"),
    );
    rejects_at(module(json!(["@acme/reports/"])), FIRST, &format!("{at}/0"));
    rejects_at(
        module(json!(["@acme/reports/../react"])),
        FIRST,
        &format!("{at}/0"),
    );
    rejects_at(
        module(json!(["@acme/reports/a", "@acme/reports/a"])),
        FIRST,
        &format!("{at}/1"),
    );
}

#[test]
fn app_module_below_first_party_is_a_warning_and_dropped() {
    let v = warns_at(
        json!({"app": {"module": {"entry": "dist/app/host.js"}}}),
        TRUSTED,
        "/neuralis/app/module",
    );
    assert!(v.manifest.expect("manifest").app.module.is_none());
}
