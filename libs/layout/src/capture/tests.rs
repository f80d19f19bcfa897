use proptest::prelude::*;

use super::*;

#[test]
fn the_sync_reads_markdown_candidates_and_manifests_only() {
    let read = [
        "skills/review/SKILL.md",
        "SKILL.md",
        "rules/style.md",
        ".cursor/rules/ts.mdc",
        "x/agents/helper.md",
        "deep/a/b/helper.agent.md",
        "AGENTS.md",
        "pkg/CLAUDE.md",
        ".github/copilot-instructions.md",
        ".cursorrules",
        "package.json",
        "plugins/a/.claude-plugin/plugin.json",
        "x/gemini-extension.json",
    ];
    let skip = [
        "README.md",
        "rules/README.md",
        "src/notes.md",
        "docs/guide/deep.md",
        "templates/rules/x.md",
        "workflows/agents/x.md",
        "src/main.rs",
        ".mcp.json",
        "hooks.json",
        "plugin.json",
        "x.mdc",
    ];
    for path in read {
        assert!(needs_content(path), "{path} should be read");
    }
    for path in skip {
        assert!(!needs_content(path), "{path} should not be read");
    }
}

#[test]
fn capture_records_frontmatter_of_markdown_candidates() {
    let payload = capture(
        "rules/style.md",
        Some(b"---\nname: style\n---\nBe terse.\n"),
    );
    assert_eq!(payload.version, PAYLOAD_VERSION);
    assert_eq!(payload.frontmatter_status, FrontmatterStatus::Strict);
    assert_eq!(payload.frontmatter.unwrap().name.as_deref(), Some("style"));
}

#[test]
fn capture_records_manifest_facts() {
    let payload = capture(
        "packages/helper/package.json",
        Some(br#"{"name":"helper","neuralis":{}}"#),
    );
    let facts = payload.manifest.unwrap();
    assert!(facts.usable);
    assert_eq!(facts.name.as_deref(), Some("helper"));
}

#[test]
fn capture_without_content_is_a_diagnostic_not_a_failure() {
    let payload = capture("rules/style.md", None);
    assert!(payload.frontmatter.is_none());
    assert_eq!(payload.diagnostics.len(), 1);
    let payload = capture("package.json", None);
    assert!(!payload.manifest.unwrap().usable);
}

#[test]
fn other_files_are_captured_by_path_alone() {
    assert_eq!(
        capture("src/main.rs", Some(b"---\nname: x\n---\n")),
        FilePayload::default()
    );
}

#[test]
fn the_payload_round_trips_through_json() {
    let payload = capture(
        "skills/a/SKILL.md",
        Some(b"---\nname: a\nglobs: **/*\nrequiredFeatures: [x]\n---\n"),
    );
    let json = serde_json::to_string(&payload).unwrap();
    let back: FilePayload = serde_json::from_str(&json).unwrap();
    assert_eq!(back, payload);
}

proptest! {
    /// "capture never fails; bad input becomes diagnostics" — for any bytes at all.
    #[test]
    fn capture_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let payload = capture("rules/x.md", Some(&bytes));
        prop_assert!(payload.diagnostics.len() <= crate::diagnostic::MAX_DIAGNOSTICS_PER_FILE);
        let _ = capture("package.json", Some(&bytes));
    }

    #[test]
    fn capture_never_panics_on_frontmatter_shaped_text(body in "[a-z:\\-\\[\\]{}*&!|>'\" \\n#]{0,400}") {
        let text = format!("---\n{body}\n---\n");
        let payload = capture("agents/x.md", Some(text.as_bytes()));
        prop_assert!(payload.diagnostics.len() <= crate::diagnostic::MAX_DIAGNOSTICS_PER_FILE);
    }
}
