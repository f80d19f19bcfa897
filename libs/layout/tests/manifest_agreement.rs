//! Manifests that disagree (issue 30 item 4): one case per kind of disagreement, and
//! none for manifests that agree or for a single manifest.

use neuralis_layout::agreement::{Field, disagreements};
use serde_json::{Value, json};

fn check(manifests: &[(&str, Value)]) -> Found {
    let given: Vec<(&str, &Value)> = manifests.iter().map(|(f, v)| (*f, v)).collect();
    disagreements(&given)
        .into_iter()
        .map(|d| (d.field, d.values))
        .collect()
}

/// A case: its name, the manifests, the disagreements expected.
type Case<'a> = (&'a str, Vec<(&'a str, Value)>, Found);
type Found = Vec<(Field, Vec<(String, String)>)>;

fn said(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(f, v)| (f.to_string(), v.to_string()))
        .collect()
}

#[test]
fn manifests_that_disagree_on_an_identity_field_are_reported_naming_each_file_and_value() {
    let plugin = ".claude-plugin/plugin.json";
    let cases: Vec<Case> = vec![
        (
            "name",
            vec![
                (plugin, json!({"name": "review-kit"})),
                ("package.json", json!({"name": "review-tools"})),
            ],
            vec![(
                Field::Name,
                said(&[(plugin, "review-kit"), ("package.json", "review-tools")]),
            )],
        ),
        (
            "version",
            vec![
                ("gemini-extension.json", json!({"version": "1.0.0"})),
                ("package.json", json!({"version": "1.1.0"})),
            ],
            vec![(
                Field::Version,
                said(&[
                    ("gemini-extension.json", "1.0.0"),
                    ("package.json", "1.1.0"),
                ]),
            )],
        ),
        (
            "description",
            vec![
                (plugin, json!({"description": "Reviews code"})),
                (
                    ".cursor-plugin/plugin.json",
                    json!({"description": "Reviews PRs"}),
                ),
            ],
            vec![(
                Field::Description,
                said(&[
                    (plugin, "Reviews code"),
                    (".cursor-plugin/plugin.json", "Reviews PRs"),
                ]),
            )],
        ),
        (
            "author, object against string",
            vec![
                (plugin, json!({"author": {"name": "Ada"}})),
                (
                    "package.json",
                    json!({"author": "Grace <grace@example.org>"}),
                ),
            ],
            vec![(
                Field::Author,
                said(&[
                    (plugin, "Ada"),
                    ("package.json", "Grace <grace@example.org>"),
                ]),
            )],
        ),
        (
            "the project's own manifest against the others, two fields",
            vec![
                ("package.json", json!({"name": "kit", "version": "2.0.0"})),
                (
                    "neuralis.package.json",
                    json!({"name": "other", "version": "2.0.1"}),
                ),
            ],
            vec![
                (
                    Field::Name,
                    said(&[("package.json", "kit"), ("neuralis.package.json", "other")]),
                ),
                (
                    Field::Version,
                    said(&[
                        ("package.json", "2.0.0"),
                        ("neuralis.package.json", "2.0.1"),
                    ]),
                ),
            ],
        ),
        (
            "three manifests, one differs",
            vec![
                (plugin, json!({"version": "1.0.0"})),
                ("gemini-extension.json", json!({"version": "1.0.0"})),
                ("package.json", json!({"version": "0.9.0"})),
            ],
            vec![(
                Field::Version,
                said(&[
                    (plugin, "1.0.0"),
                    ("gemini-extension.json", "1.0.0"),
                    ("package.json", "0.9.0"),
                ]),
            )],
        ),
        (
            "a single manifest",
            vec![("package.json", json!({"name": "kit", "version": "1"}))],
            vec![],
        ),
        (
            "agreeing manifests, as an author writes them",
            vec![
                (
                    plugin,
                    json!({"name": "kit", "version": "1.2.0", "description": "A kit",
                           "author": {"name": "Ada", "email": "ada@example.org"}}),
                ),
                (
                    "package.json",
                    json!({"name": "@acme/kit", "version": "1.2.0", "description": " A kit ",
                           "author": "Ada <ada@example.org> (https://ada.example.org)"}),
                ),
                (
                    "gemini-extension.json",
                    json!({"name": "kit", "version": "1.2.0"}),
                ),
            ],
            vec![],
        ),
        (
            "a field one manifest leaves out, or leaves empty, agrees",
            vec![
                (plugin, json!({"name": "kit", "description": ""})),
                (
                    "package.json",
                    json!({"name": "kit", "version": "1.0.0", "description": "A kit"}),
                ),
            ],
            vec![],
        ),
        (
            "an object declares an author's name, and no other field",
            vec![
                (
                    plugin,
                    json!({"name": {"name": "other"}, "version": {"name": "2"}}),
                ),
                ("package.json", json!({"name": "kit", "version": "1.0.0"})),
            ],
            vec![],
        ),
        (
            "a scope is dropped from an npm name only",
            vec![
                (plugin, json!({"name": "@acme/kit"})),
                ("gemini-extension.json", json!({"name": "kit"})),
            ],
            vec![(
                Field::Name,
                said(&[(plugin, "@acme/kit"), ("gemini-extension.json", "kit")]),
            )],
        ),
        (
            "a manifest that is not an object declares nothing",
            vec![
                (plugin, json!(["kit"])),
                ("package.json", json!({"name": "kit"})),
            ],
            vec![],
        ),
    ];
    for (case, manifests, expected) in cases {
        assert_eq!(check(&manifests), expected, "{case}");
    }
}

#[test]
fn the_warning_names_each_file_and_its_value() {
    let a = json!({"version": "1.0.0"});
    let b = json!({"version": "1.1.0"});
    let found = disagreements(&[("gemini-extension.json", &a), ("package.json", &b)]);
    assert_eq!(
        found[0].message(),
        r#"manifests disagree on version: gemini-extension.json says "1.0.0", package.json says "1.1.0""#
    );
}
