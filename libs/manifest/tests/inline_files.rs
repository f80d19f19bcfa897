//! Inline `files` entries (seed 001, "File-based entries override inline entries"): "inline
//! entries without a matching file pass through unchanged", so an entry loads as declared,
//! and one that names no markdown file of the package is refused where it says so.
mod support;

use std::collections::BTreeSet;

use neuralis_layout::Category;
use neuralis_manifest::definitions::InlineFile;
use neuralis_manifest::{Status, validate_package};
use serde_json::{Value, json};
use support::*;

fn entry(category: &str, path: &str) -> Value {
    json!({"id": "guide", "category": category, "path": path})
}

fn package_files() -> BTreeSet<String> {
    ["docs/guide.md", "notes.txt"]
        .into_iter()
        .map(str::to_owned)
        .collect()
}

#[test]
fn an_inline_file_entry_loads_as_declared_with_its_path_normalized() {
    let block = json!({"files": [{
        "id": "guide", "category": "docs", "path": "./docs/guide.md",
        "title": "The guide", "description": "How to use it"
    }]});
    let expected = vec![InlineFile {
        id: "guide".into(),
        category: Category::Docs,
        path: "docs/guide.md".into(),
        title: Some("The guide".into()),
        description: Some("How to use it".into()),
    }];
    // Without the package's file list, and with one that holds the file.
    let files = package_files();
    for list in [None, Some(&files)] {
        let doc = json!({"name": "@acme/reports", "neuralis": block});
        let v = validate_package(&doc, FIRST, list);
        assert_eq!(v.status, Status::Loads, "{:#?}", v.errors);
        assert_eq!(v.manifest.expect("manifest").inline.files, expected);
    }
    // Every markdown category an inline entry may declare.
    for (name, category) in [
        ("skill", Category::Skill),
        ("instruction", Category::Instruction),
        ("rule", Category::Rule),
        ("agent", Category::Agent),
    ] {
        let v = accepts(json!({"files": [entry(name, "docs/guide.md")]}), FIRST);
        let files = v.manifest.expect("manifest").inline.files;
        assert_eq!(files[0].category, category, "{name}");
    }
}

#[test]
fn an_inline_entry_names_a_markdown_category_and_a_markdown_file_of_the_package() {
    let cases = [
        // (entry, the field refused)
        (entry("command", "docs/guide.md"), "category"),
        (entry("nonsense", "docs/guide.md"), "category"),
        (json!({"id": "guide", "path": "docs/guide.md"}), "category"),
        (entry("docs", "notes.txt"), "path"),
        (entry("docs", "../docs/guide.md"), "path"),
        (entry("docs", "docs/missing.md"), "path"),
        (json!({"id": "guide", "category": "docs"}), "path"),
    ];
    let files = package_files();
    for (entry, field) in cases {
        let doc = json!({"name": "@acme/reports", "neuralis": {"files": [entry]}});
        let v = validate_package(&doc, FIRST, Some(&files));
        assert_eq!(v.status, Status::Rejected, "{entry}");
        let pointers: Vec<&str> = v.errors.iter().map(|e| e.pointer.as_str()).collect();
        let at = format!("/neuralis/files/0/{field}");
        assert!(
            pointers.contains(&at.as_str()),
            "{entry}: expected {at}, got {pointers:?}"
        );
    }
}
