//! Validation of arbitrary JSON never panics, and its verdict is consistent.
use neuralis_manifest::{Status, Trust, validate};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

const KEYS: &[&str] = &[
    "id",
    "name",
    "neuralis",
    "provides",
    "runtime",
    "access",
    "trust",
    "requires",
    "packages",
    "providesFeatures",
    "defaultRoleGrants",
    "accessFeature",
    "app",
    "surfaces",
    "module",
    "entry",
    "kind",
    "component",
    "renderer",
    "url",
    "events",
    "dataSchema",
    "subject",
    "connectors",
    "type",
    "configSchema",
    "sources",
    "seed",
    "root",
    "scope",
    "credentials",
    "label",
    "configSettings",
    "key",
    "default",
    "min",
    "max",
    "envFallback",
    "uriPolicies",
    "data://<self>/**",
    "paths",
    "pattern",
    "floor",
    "dataLayout",
    "directories",
    "machineWritten",
    "path",
    "class",
    "tools",
    "inputSchema",
    "team",
    "slug",
    "identity",
    "referenceOnly",
    "description",
];

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|n| json!(n)),
        "[a-z<>@/.*_{}${} -]{0,12}".prop_map(Value::String),
        proptest::sample::select(KEYS).prop_map(|k| Value::String(k.to_string())),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((proptest::sample::select(KEYS), inner), 0..6).prop_map(|kv| {
                Value::Object(
                    kv.into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

fn arb_trust() -> impl Strategy<Value = Trust> {
    prop_oneof![
        Just(Trust::Untrusted),
        Just(Trust::Trusted),
        Just(Trust::FirstParty)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn validating_arbitrary_json_never_panics(doc in arb_json(), trust in arb_trust()) {
        let v = validate(&doc, trust);
        // The verdict follows the errors: rejected exactly when there is an error,
        // and a manifest is returned exactly when the package loads.
        prop_assert_eq!(v.status == Status::Rejected, !v.errors.is_empty());
        prop_assert_eq!(v.manifest.is_some(), v.status == Status::Loads);
        for issue in v.errors.iter().chain(&v.warnings) {
            prop_assert!(issue.pointer.is_empty() || issue.pointer.starts_with('/'));
            prop_assert!(!issue.message.is_empty());
        }
    }

    #[test]
    fn arbitrary_neuralis_blocks_never_panic(block in arb_json(), trust in arb_trust()) {
        let v = validate(&json!({"name": "pkg", "neuralis": block}), trust);
        prop_assert_eq!(v.manifest.is_some(), v.status == Status::Loads);
    }

    #[test]
    fn trust_never_loosens_below_what_a_higher_tier_accepts(block in arb_json()) {
        // Anything an untrusted package may load, a trusted one may load too: gates only
        // ever add restrictions going down the tiers.
        let doc = json!({"name": "pkg", "neuralis": block});
        if validate(&doc, Trust::Untrusted).status == Status::Loads {
            prop_assert_eq!(validate(&doc, Trust::Trusted).status, Status::Loads);
        }
    }
}
