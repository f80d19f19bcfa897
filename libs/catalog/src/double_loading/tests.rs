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

/// The fingerprints of the same rows, as the index stores them.
fn fingerprints(files: &[(&str, &str)]) -> HashMap<String, u64> {
    files
        .iter()
        .map(|(path, content)| {
            let print = neuralis_connector::fingerprint(content.as_bytes());
            ((*path).to_owned(), print)
        })
        .collect()
}

fn identity(id: &str, version: Option<&str>) -> LogicalIdentity {
    LogicalIdentity {
        id: id.to_owned(),
        version: version.map(str::to_owned),
        content: None,
    }
}

/// A bare skill folder's identity: its name and its SKILL.md.
fn bare(id: &str, skill: &str) -> LogicalIdentity {
    LogicalIdentity {
        id: id.to_owned(),
        version: None,
        content: Some(neuralis_connector::fingerprint(skill.as_bytes())),
    }
}

const HELPER: &str = r#"{"name": "helper", "version": "0.1.0", "neuralis": {"id": "helper"}}"#;
const SKILL: &str = "---\nname: review\n---\n";

#[test]
fn a_directory_is_known_by_the_id_and_version_the_installer_would_give_it() {
    let files = [
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
    ];
    let (source, prints) = (rows(&files), fingerprints(&files));
    let lookup = |path: &str| source.get(path);
    let print = |path: &str| prints.get(path).copied();
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
        ("zone/review", "review", Some(bare("review", SKILL))),
        ("zone/plain", "plain", Some(identity("plain", None))),
        ("zone/off", "off", None),
        ("zone", "zone", None),
        ("", "mounted-skill", Some(bare("mounted-skill", SKILL))),
    ];
    for (dir, name, expected) in cases {
        assert_eq!(of_source_dir(dir, name, lookup, print), expected, "{dir}");
    }
}

#[test]
fn every_package_rooted_in_an_installed_directory_lies_in_it_and_no_other_does() {
    let files = [
        ("zone/helper/package.json", HELPER),
        ("zone/helper/.claude/rules/x.md", "---\nname: x\n---\n"),
        ("zone/review/SKILL.md", SKILL),
        ("zone/review/.claude/skills/a/SKILL.md", SKILL),
        (
            "zone/newer/package.json",
            r#"{"name": "helper", "version": "0.2.0", "neuralis": {}}"#,
        ),
        ("work/review/SKILL.md", SKILL),
        (
            "other/review/SKILL.md",
            "---\nname: review\n---\nAnother skill.\n",
        ),
    ];
    let (source, prints) = (rows(&files), fingerprints(&files));
    let lookup = (
        |path: &str| source.get(path),
        |path: &str| prints.get(path).copied(),
    );
    let installed: HashSet<LogicalIdentity> =
        [identity("helper", Some("0.1.0")), bare("review", SKILL)].into();
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
    // A byte-identical copy of the installed bare skill is that skill loaded twice.
    assert!(lies_in_installed("work/review", "repo", lookup, &installed));
    assert!(!lies_in_installed(
        "zone/helper",
        "repo",
        lookup,
        &HashSet::new()
    ));
}

/// Issue 27: a folder named like an installed bare skill is not that skill.
#[test]
fn an_unrelated_skill_folder_named_like_an_installed_bare_skill_is_not_a_double_load() {
    let files = [
        ("zone/review/SKILL.md", SKILL),
        (
            "other/review/SKILL.md",
            "---\nname: review\n---\nAnother skill.\n",
        ),
    ];
    let (source, prints) = (rows(&files), fingerprints(&files));
    let lookup = (
        |path: &str| source.get(path),
        |path: &str| prints.get(path).copied(),
    );
    let installed: HashSet<LogicalIdentity> = [bare("review", SKILL)].into();
    assert!(lies_in_installed("zone/review", "repo", lookup, &installed));
    assert!(!lies_in_installed(
        "other/review",
        "repo",
        lookup,
        &installed
    ));
}
