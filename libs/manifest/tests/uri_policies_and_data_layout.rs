//! `uriPolicies` and `dataLayout` with `machineWritten` (seed 002).
mod support;

use neuralis_manifest::data_layout::{WrittenClass, zone_root, zone_slug};
use serde_json::{Value, json};
use support::*;

fn policy(pattern: &str, rule: Value) -> Value {
    json!({"uriPolicies": {pattern: {"default": {"read": true, "write": true, "exec": false}, "paths": [rule]}}})
}

#[test]
fn uri_policies_stay_inside_the_package_namespace() {
    let m = accepts(
        policy(
            "data://<self>/**",
            json!({"pattern": "cache/**", "write": false, "roles": ["admin"]}),
        ),
        UNTRUSTED,
    )
    .manifest
    .expect("manifest");
    let baseline = &m.uri_policies[0];
    assert!(baseline.policy.default.read && !baseline.policy.default.exec);
    assert_eq!(
        baseline.pattern_for("acme-reports"),
        "data://acme-reports/**"
    );
    accepts(
        policy(
            "packages://<self>/docs/**",
            json!({"pattern": "x", "read": true}),
        ),
        UNTRUSTED,
    );
    for foreign in [
        "data://other/**",
        "data://<self>",
        "packages://<self>/../other/**",
        "file:///etc/**",
        "data://**",
    ] {
        rejects_at(
            policy(foreign, json!({"pattern": "x"})),
            FIRST,
            &format!("/neuralis/uriPolicies/{}", foreign.replace('/', "~1")),
        );
    }
}

#[test]
fn a_path_rule_keeps_exactly_the_capabilities_it_sets() {
    let cases = [
        // (the rule's capabilities, (read, write, exec) as parsed)
        (json!({"read": false}), (Some(false), None, None)),
        (json!({"write": true}), (None, Some(true), None)),
        (json!({"exec": true}), (None, None, Some(true))),
        (
            json!({"read": true, "write": false, "exec": false}),
            (Some(true), Some(false), Some(false)),
        ),
    ];
    for (capabilities, expected) in cases {
        let mut rule = capabilities.clone();
        rule["pattern"] = json!("cache/**");
        let m = accepts(policy("data://<self>/**", rule), TRUSTED)
            .manifest
            .expect("manifest");
        let parsed = &m.uri_policies[0].policy.paths[0];
        assert_eq!(
            (parsed.read, parsed.write, parsed.exec),
            expected,
            "{capabilities}"
        );
    }
}

#[test]
fn uri_policy_rules_have_the_policy_language_shape() {
    let at = "/neuralis/uriPolicies/data:~1~1<self>~1**/paths/0";
    rejects_at(
        policy("data://<self>/**", json!({"read": true})),
        UNTRUSTED,
        &format!("{at}/pattern"),
    );
    rejects_at(
        policy("data://<self>/**", json!({"pattern": "/abs"})),
        UNTRUSTED,
        &format!("{at}/pattern"),
    );
    rejects_at(
        policy("data://<self>/**", json!({"pattern": "x", "read": "yes"})),
        UNTRUSTED,
        &format!("{at}/read"),
    );
    rejects_at(
        policy("data://<self>/**", json!({"pattern": "x", "delete": true})),
        UNTRUSTED,
        &format!("{at}/delete"),
    );
}

#[test]
fn a_floor_carries_only_false_capabilities() {
    // "a floor rule may carry only false capabilities and is rejected if it is combined
    // with override, roles, agents, or any granting/true capability"
    let at = "/neuralis/uriPolicies/data:~1~1<self>~1**/paths/0";
    let m = accepts(
        policy(
            "data://<self>/**",
            json!({"pattern": "audit/**", "write": false, "exec": false, "floor": true}),
        ),
        TRUSTED,
    )
    .manifest
    .expect("manifest");
    assert_eq!(m.uri_policies[0].floors().count(), 1);
    let cases = [
        (
            json!({"pattern": "a", "read": true, "floor": true}),
            "floor",
        ),
        (json!({"pattern": "a", "floor": true}), "floor"),
        (
            json!({"pattern": "a", "write": false, "override": true, "floor": true}),
            "override",
        ),
        (
            json!({"pattern": "a", "write": false, "roles": ["admin"], "floor": true}),
            "roles",
        ),
        (
            json!({"pattern": "a", "write": false, "agents": ["a1"], "floor": true}),
            "agents",
        ),
    ];
    for (rule, key) in cases {
        rejects_at(
            policy("data://<self>/**", rule),
            FIRST,
            &format!("{at}/{key}"),
        );
    }
}

#[test]
fn floors_come_from_trusted_manifests_only() {
    let floor = policy(
        "data://<self>/**",
        json!({"pattern": "audit/**", "write": false, "floor": true}),
    );
    accepts(floor.clone(), FIRST);
    rejects_at(
        floor,
        UNTRUSTED,
        "/neuralis/uriPolicies/data:~1~1<self>~1**/paths/0/floor",
    );
}

#[test]
fn data_layout_declares_plain_directory_names() {
    let m = accepts(
        json!({"dataLayout": {"directories": ["cache", "state"], "agentDirectories": ["memory"]}}),
        UNTRUSTED,
    )
    .manifest
    .expect("manifest");
    assert_eq!(m.data_layout.directories, vec!["cache", "state"]);
    assert_eq!(m.data_layout.agent_directories, vec!["memory"]);
    accepts(json!({"dataLayout": {}}), UNTRUSTED);
}

#[test]
fn data_layout_is_fail_closed() {
    // "a traversal (..), a separator, a placeholder such as <self>, a brace, a comma,
    // whitespace, an unknown key or a duplicate rejects the whole manifest"
    for bad in [
        "..", ".", "a/b", "a\\b", "<self>", "{a}", "a,b", "a b", "tab\t", "", "naïve",
    ] {
        for key in ["directories", "agentDirectories"] {
            rejects_at(
                json!({"dataLayout": {key: [bad]}}),
                FIRST,
                &format!("/neuralis/dataLayout/{key}/0"),
            );
        }
    }
    rejects_at(
        json!({"dataLayout": {"directories": ["a", "a"]}}),
        FIRST,
        "/neuralis/dataLayout/directories/1",
    );
    rejects_at(
        json!({"dataLayout": {"folders": ["a"]}}),
        FIRST,
        "/neuralis/dataLayout/folders",
    );
    rejects_at(
        json!({"dataLayout": {"directories": "cache"}}),
        FIRST,
        "/neuralis/dataLayout/directories",
    );
}

#[test]
fn the_zone_root_is_the_provisioning_mapping_not_the_package_id() {
    assert_eq!(zone_root("reports", FIRST), "data://reports/");
    assert_eq!(zone_root("reports", TRUSTED), "data://_installed/reports/");
    assert_eq!(
        zone_root("reports", UNTRUSTED),
        "data://_installed/reports/"
    );
    assert_eq!(zone_slug("@acme/reports"), "acme-reports");
}

#[test]
fn machine_written_globs_use_the_three_classes() {
    let mw = json!([
        {"path": "*/usage/events.jsonl", "class": "metrics"},
        {"path": "audit/**", "class": "log"},
        {"path": "*/runs/**", "class": "runtime-text"}
    ]);
    let m = accepts(json!({"dataLayout": {"machineWritten": mw}}), TRUSTED)
        .manifest
        .expect("manifest");
    assert_eq!(
        m.data_layout.machine_written[2].class,
        WrittenClass::RuntimeText
    );
    rejects_at(
        json!({"dataLayout": {"machineWritten": [{"path": "a", "class": "cache"}]}}),
        TRUSTED,
        "/neuralis/dataLayout/machineWritten/0/class",
    );
    rejects_at(
        json!({"dataLayout": {"machineWritten": [{"path": "a", "class": "log", "x": 1}]}}),
        TRUSTED,
        "/neuralis/dataLayout/machineWritten/0/x",
    );
}

#[test]
fn machine_written_globs_stay_in_the_zone() {
    // "the validator refuses a leading /, an empty or .. segment and any character
    // other than letters, digits, ., _, - and *"
    for bad in [
        "/abs/**", "a//b", "../x", "a/../b", "a/", "a b", "a?b", "[ab]", "{a,b}",
    ] {
        rejects_at(
            json!({"dataLayout": {"machineWritten": [{"path": bad, "class": "log"}]}}),
            FIRST,
            "/neuralis/dataLayout/machineWritten/0/path",
        );
    }
}

#[test]
fn machine_written_is_used_only_from_trusted_and_first_party() {
    let v = warns_at(
        json!({"dataLayout": {"machineWritten": [{"path": "a/**", "class": "log"}]}}),
        UNTRUSTED,
        "/neuralis/dataLayout/machineWritten",
    );
    assert!(
        v.manifest
            .expect("manifest")
            .data_layout
            .machine_written
            .is_empty()
    );
}

mod properties {
    use neuralis_manifest::data_layout::{directory_name_problem, glob_problem};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn an_accepted_directory_name_is_one_plain_segment(name in "[a-zA-Z0-9._ ,/{}<>\\\\-]{0,12}") {
            if directory_name_problem(&name).is_none() {
                prop_assert!(!name.is_empty() && name != "." && name != "..");
                prop_assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')));
            }
        }

        #[test]
        fn an_accepted_glob_never_leaves_the_zone(glob in "[a-z.*/_ -]{0,16}") {
            if glob_problem(&glob).is_none() {
                prop_assert!(!glob.starts_with('/'));
                prop_assert!(glob.split('/').all(|s| !s.is_empty() && s != ".."));
            }
        }
    }
}

/// Seed 002, "machineWritten": "a new project's data source leaves the metrics files out
/// of its index from the start, while logs keep the default exclude they already have and
/// runtime text stays searchable"; "The globs are anchored to your own zone"; "Only
/// trusted and first-party packages' declarations are used".
#[test]
fn machine_written_metrics_globs_seed_a_new_data_source_anchored_to_the_zone() {
    use neuralis_manifest::Trust;
    use neuralis_manifest::data_layout::metrics_excludes;
    let layout = serde_json::json!({"dataLayout": {"machineWritten": [
        {"path": "*/usage/events.jsonl", "class": "metrics"},
        {"path": "audit/**", "class": "log"},
        {"path": "*/runs/**", "class": "runtime-text"}
    ]}});
    let doc = |id: &str| serde_json::json!({"name": id, "neuralis": layout.clone()});
    let seeded = |id: &str, trust: Trust| {
        let manifest = neuralis_manifest::validate(&doc(id), trust)
            .manifest
            .unwrap();
        metrics_excludes(manifest.id(), trust, &manifest.data_layout)
    };
    assert_eq!(
        seeded("acme", Trust::FirstParty),
        ["acme/*/usage/events.jsonl"]
    );
    assert_eq!(
        seeded("@acme/notes", Trust::Trusted),
        ["_installed/acme-notes/*/usage/events.jsonl"]
    );
    assert!(seeded("acme", Trust::Untrusted).is_empty());
}
