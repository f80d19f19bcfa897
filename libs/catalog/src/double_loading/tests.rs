use std::collections::{HashMap, HashSet};

use neuralis_layout::{FilePayload, capture};

use super::{LogicalIdentity, lies_in_installed, of_source_dir};

/// A synced source's rows as the index holds them: each file captured from its bytes.
fn rows(files: &[(&str, &str)]) -> HashMap<String, FilePayload> {
    files
        .iter()
        .map(|(path, content)| ((*path).to_owned(), capture(path, Some(content.as_bytes()))))
        .collect()
}

fn identity(id: &str, version: Option<&str>) -> LogicalIdentity {
    LogicalIdentity {
        id: id.to_owned(),
        version: version.map(str::to_owned),
    }
}

const HELPER: &str = r#"{"name": "helper", "version": "0.1.0", "neuralis": {"id": "helper"}}"#;
const SKILL: &str = "---\nname: review\n---\n";

#[test]
fn a_directory_is_known_by_the_id_and_version_the_installer_would_give_it() {
    let source = rows(&[
        ("zone/helper/package.json", HELPER),
        (
            "zone/npm/package.json",
            r#"{"name": "@acme/npm", "version": "2.0.0", "neuralis": {}}"#,
        ),
        (
            "zone/app/package.json",
            r#"{"name": "app", "version": "1.0.0"}"#,
        ),
        ("zone/app/SKILL.md", SKILL),
        ("zone/review/SKILL.md", SKILL),
        (
            "zone/plain/neuralis.package.json",
            r#"{"name": "plain", "neuralis": {}}"#,
        ),
        (
            "zone/off/package.json",
            r#"{"name": "off", "neuralis": {"referenceOnly": true}}"#,
        ),
        ("SKILL.md", SKILL),
    ]);
    let lookup = |path: &str| source.get(path);
    let cases = [
        (
            "zone/helper",
            "helper",
            Some(identity("helper", Some("0.1.0"))),
        ),
        (
            "zone/npm",
            "npm",
            Some(identity("@acme/npm", Some("2.0.0"))),
        ),
        // A plain application package.json installs nothing, and stops a bare skill.
        ("zone/app", "app", None),
        ("zone/review", "review", Some(identity("review", None))),
        ("zone/plain", "plain", Some(identity("plain", None))),
        ("zone/off", "off", None),
        ("zone", "zone", None),
        ("", "mounted-skill", Some(identity("mounted-skill", None))),
    ];
    for (dir, name, expected) in cases {
        assert_eq!(of_source_dir(dir, name, lookup), expected, "{dir}");
    }
}

#[test]
fn every_package_rooted_in_an_installed_directory_lies_in_it_and_no_other_does() {
    let source = rows(&[
        ("zone/helper/package.json", HELPER),
        ("zone/helper/.claude/rules/x.md", "---\nname: x\n---\n"),
        ("zone/review/SKILL.md", SKILL),
        ("zone/review/.claude/skills/a/SKILL.md", SKILL),
        (
            "zone/newer/package.json",
            r#"{"name": "helper", "version": "0.2.0", "neuralis": {}}"#,
        ),
        ("work/review/SKILL.md", SKILL),
    ]);
    let lookup = |path: &str| source.get(path);
    let installed: HashSet<LogicalIdentity> =
        [identity("helper", Some("0.1.0")), identity("review", None)].into();
    let cases = [
        ("zone/helper", true),
        ("zone/helper/.claude", true),
        ("zone/review", true),
        ("zone/review/.claude", true),
        // Another version of an installed id is another package.
        ("zone/newer", false),
        ("zone", false),
        ("", false),
    ];
    for (root, expected) in cases {
        assert_eq!(
            lies_in_installed(root, "repo", lookup, &installed),
            expected,
            "{root}"
        );
    }
    // The same skill folder name elsewhere is judged by its own folder: `work/review`
    // is named `review` too, so it is the installed bare skill's logical identity.
    assert!(lies_in_installed("work/review", "repo", lookup, &installed));
    assert!(!lies_in_installed(
        "zone/helper",
        "repo",
        lookup,
        &HashSet::new()
    ));
}
