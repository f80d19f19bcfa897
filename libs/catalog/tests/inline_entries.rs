//! Seed 001, "File-based entries override inline entries": "discovered file-based
//! entries win by id (by name for tools, by slug for team members), and inline entries
//! without a matching file pass through unchanged". Inline tools, commands and markdown
//! `files` with no file of their id load as declared.

use neuralis_catalog::package::{Candidate, InstallClass, Outcome, load};
use neuralis_layout::{Category, Invocation};
use std::collections::BTreeMap;

const MANIFEST: &str = r#"{"name": "legacy", "neuralis": {
  "tools": [
    {"name": "inline_only", "description": "inline", "inputSchema": {"type": "object"}},
    {"name": "both", "description": "inline", "inputSchema": {"type": "object"}}
  ],
  "commands": [{"name": "ship", "prompt": "Ship it."}],
  "files": [
    {"id": "house-style", "category": "rule", "path": "legacy/style.md", "title": "House style"},
    {"id": "review", "category": "skill", "path": "legacy/review.md", "description": "Reviews"},
    {"id": "notes", "category": "skill", "path": "legacy/notes.md"}
  ]
}}"#;

fn candidate(class: InstallClass) -> Candidate {
    let entries = [
        ("package.json", MANIFEST),
        (
            "tools/both.json",
            r#"{"name": "both", "description": "file", "inputSchema": {"type": "object"}}"#,
        ),
        ("legacy/style.md", "Prefer short functions.\n"),
        ("legacy/review.md", "Read the diff first.\n"),
        ("legacy/notes.md", "Inline notes.\n"),
        // The file-based skill `notes` wins over the inline entry of that id.
        (
            "skills/notes/SKILL.md",
            "---\nname: notes\n---\nFile notes.\n",
        ),
    ];
    Candidate {
        root: "legacy".into(),
        class,
        files: entries
            .iter()
            .map(|(p, c)| ((*p).to_owned(), c.as_bytes().to_vec()))
            .collect::<BTreeMap<_, _>>(),
    }
}

#[test]
fn inline_entries_without_a_matching_file_pass_through_unchanged() {
    let Outcome::Loaded(package) = load(&candidate(InstallClass::Builtin)) else {
        panic!("loads")
    };
    let tools: Vec<(&str, &str)> = package
        .tools
        .iter()
        .map(|t| (t.name.as_str(), t.description.as_str()))
        .collect();
    assert_eq!(tools, [("both", "file"), ("inline_only", "inline")]);
    assert_eq!(package.commands.len(), 1, "the inline command loads");
    let files: Vec<(&str, &str, Category, &str)> = package
        .contributions
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.id.as_str(), f.category, f.title.as_str()))
        .collect();
    assert_eq!(
        files,
        [
            ("legacy/review.md", "review", Category::Skill, "review"),
            (
                "legacy/style.md",
                "house-style",
                Category::Rule,
                "House style"
            ),
            ("skills/notes/SKILL.md", "notes", Category::Skill, "notes"),
        ]
    );
    let review = &package.contributions.files[0];
    assert_eq!(review.description.as_deref(), Some("Reviews"));
    assert_eq!(review.bundle, ["review.md"]);
    let style = &package.contributions.files[1];
    assert!(style.default_enabled, "a first-party rule is always on");
}

#[test]
fn an_inline_entry_takes_the_package_trust_tier_like_a_file() {
    let Outcome::Loaded(package) = load(&candidate(InstallClass::Project)) else {
        panic!("loads")
    };
    let style = package
        .contributions
        .files
        .iter()
        .find(|f| f.id == "house-style")
        .unwrap();
    assert_eq!(
        style.category,
        Category::Docs,
        "a non-first-party rule is docs"
    );
    assert_eq!(style.invocation, Invocation::Manual);
}

#[test]
fn an_inline_entry_is_validated_like_every_declaration() {
    let bad = [
        (
            r#"{"id": "x", "category": "rule", "path": "../out.md"}"#,
            "/neuralis/files/0/path",
        ),
        (
            r#"{"id": "x", "category": "rule", "path": "missing.md"}"#,
            "/neuralis/files/0/path",
        ),
        (
            r#"{"id": "x", "category": "style", "path": "a.md"}"#,
            "/neuralis/files/0/category",
        ),
        (
            r#"{"category": "rule", "path": "a.md"}"#,
            "/neuralis/files/0/id",
        ),
    ];
    for (entry, pointer) in bad {
        let manifest = format!(r#"{{"name": "p", "neuralis": {{"files": [{entry}]}}}}"#);
        let candidate = Candidate {
            root: "p".into(),
            class: InstallClass::Project,
            files: [
                ("package.json".to_owned(), manifest.into_bytes()),
                ("a.md".to_owned(), b"A".to_vec()),
            ]
            .into(),
        };
        let Outcome::Rejected(rejection) = load(&candidate) else {
            panic!("{entry} is rejected")
        };
        assert!(
            rejection.errors.iter().any(|e| e.pointer == pointer),
            "{entry}: {:?}",
            rejection.errors
        );
    }
}
