//! Manifests that disagree (issue 30 item 4): `neuralis validate` and `neuralis inspect`
//! warn where the manifests of one package directory name the package differently,
//! naming each file and its value, and say nothing when they agree.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn neuralis(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_neuralis"))
        .args(args)
        .arg(dir)
        .output()
        .unwrap()
}

fn write(dir: &Path, file: &str, content: Value) {
    let path = dir.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content.to_string()).unwrap();
}

/// A package directory with a plugin manifest and a package.json that disagree on
/// version and author, and agree on name (scope aside).
fn disagreeing() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        ".claude-plugin/plugin.json",
        serde_json::json!({"name": "kit", "version": "1.0.0", "author": {"name": "Ada"}}),
    );
    write(
        dir.path(),
        "package.json",
        serde_json::json!({"name": "@acme/kit", "version": "1.1.0", "author": "Grace <g@example.org>",
                           "neuralis": {}}),
    );
    let skill = dir.path().join("skills/review");
    std::fs::create_dir_all(&skill).unwrap();
    let front = "---\nname: review\ndescription: Reviews code\n---\n# Review\n";
    std::fs::write(skill.join("SKILL.md"), front).unwrap();
    dir
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn validate_warns_where_the_manifests_of_a_package_disagree_naming_each_file_and_value() {
    let dir = disagreeing();
    let out = neuralis(&["validate"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let shown = text(&out).replace(&dir.path().display().to_string(), "DIR");
    insta::assert_snapshot!("validate_disagreeing_manifests", shown);
    let out = neuralis(&["validate", "--json"], dir.path());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings: Vec<&str> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["message"].as_str())
        .filter(|m| m.starts_with("manifests disagree"))
        .collect();
    assert_eq!(
        warnings,
        [
            r#"manifests disagree on version: .claude-plugin/plugin.json says "1.0.0", package.json says "1.1.0""#,
            r#"manifests disagree on author: .claude-plugin/plugin.json says "Ada", package.json says "Grace <g@example.org>""#,
        ]
    );
}

#[test]
fn validate_says_nothing_of_manifests_that_agree() {
    let dir = disagreeing();
    write(
        dir.path(),
        ".claude-plugin/plugin.json",
        serde_json::json!({"name": "kit", "version": "1.1.0", "author": {"name": "Grace"}}),
    );
    let out = neuralis(&["validate"], dir.path());
    assert!(!text(&out).contains("disagree"), "{}", text(&out));
}

#[test]
fn inspect_warns_where_the_manifests_of_a_package_disagree() {
    let dir = tempfile::tempdir().unwrap();
    let package = disagreeing();
    let root = dir.path().join("plugins/kit");
    std::fs::create_dir_all(root.parent().unwrap()).unwrap();
    std::fs::rename(package.path(), &root).unwrap();
    let out = neuralis(&["inspect", "--json"], dir.path());
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings: Vec<(String, String)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["message"].as_str().unwrap().contains("disagree"))
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_owned(),
                d["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        warnings
            .iter()
            .map(|(path, _)| path.as_str())
            .collect::<Vec<_>>(),
        ["plugins/kit/.claude-plugin/plugin.json"; 2]
    );
    assert!(
        warnings[1].1.contains(r#"package.json says "1.1.0""#),
        "{warnings:?}"
    );
    let tree = text(&neuralis(&["inspect"], dir.path()));
    assert!(tree.contains("manifests disagree on author"), "{tree}");
}
