//! File-first definitions and their inline forms (seed 001 "Directory contract",
//! "File-based entries override inline entries"; seed 002 team-member template paths).
mod support;

use neuralis_manifest::definitions::{
    command_file, hooks_file, member_file, tool_file, workflow_file,
};
use serde_json::json;
use support::*;

fn tool(name: &str) -> serde_json::Value {
    json!({"name": name, "description": "Report release status", "inputSchema": {"type": "object", "properties": {"release": {"type": "string"}}, "required": ["release"]}})
}

#[test]
fn a_tool_file_is_a_strict_json_schema_tool_definition() {
    let def = tool_file(&tool("acme_release_status")).expect("valid tool");
    assert_eq!(def.name, "acme_release_status");
    let cases = [
        (json!({"name": "x", "description": "d"}), "/inputSchema"),
        (
            json!({"name": "x", "description": "d", "inputSchema": {"type": "array"}}),
            "/inputSchema/type",
        ),
        (
            json!({"name": "x", "description": "d", "inputSchema": {"type": "object", "properties": {"a": {"type": "strang"}}}}),
            "/inputSchema",
        ),
        (
            json!({"name": "has space", "description": "d", "inputSchema": {"type": "object"}}),
            "/name",
        ),
        (
            json!({"name": "x", "inputSchema": {"type": "object"}}),
            "/description",
        ),
        (
            json!({"name": "x", "description": "d", "inputSchema": {"type": "object"}, "handler": "eval"}),
            "/handler",
        ),
    ];
    for (doc, pointer) in cases {
        let errors = tool_file(&doc).expect_err("invalid tool");
        assert!(
            errors.iter().any(|e| e.pointer == pointer),
            "{pointer}: {errors:?}"
        );
    }
}

#[test]
fn command_hook_and_workflow_files_have_their_shapes() {
    assert_eq!(
        command_file(&json!({"name": "review", "prompt": "Review the diff"}))
            .expect("command")
            .id,
        "review"
    );
    assert!(command_file(&json!({"name": "review"})).is_err());
    assert_eq!(
        hooks_file(&json!({"hooks": [{"id": "h1", "event": "session.start"}]}))
            .expect("hooks")
            .len(),
        1
    );
    assert_eq!(
        hooks_file(&json!([{"id": "h1", "event": "session.start"}]))
            .expect("hooks")
            .len(),
        1
    );
    assert!(hooks_file(&json!([{"id": "h1"}])).is_err());
    assert!(hooks_file(&json!([{"id": "h1", "event": "a"}, {"id": "h1", "event": "b"}])).is_err());
    assert_eq!(
        workflow_file("release", &json!({"steps": [{"run": "x"}]}))
            .expect("workflow")
            .id,
        "release"
    );
    assert!(workflow_file("release", &json!({"steps": []})).is_err());
    assert!(workflow_file("release", &json!({"steps": [1]})).is_err());
}

#[test]
fn team_member_template_paths_stay_inside_the_package() {
    // "That includes the team-member template paths, which must stay inside the package"
    let ok = json!({"name": "Ada", "identity": ["identity/soul.md"], "files": ["files/notes/a.md"], "template": "team/ada/template.md"});
    assert_eq!(member_file("ada", &ok).expect("member").paths.len(), 3);
    for (key, bad) in [
        ("identity", json!(["../../etc/passwd"])),
        ("files", json!(["/abs.md"])),
        ("template", json!("../other/x.md")),
    ] {
        let errors = member_file("ada", &json!({key: bad})).expect_err("escapes");
        assert!(
            errors[0].pointer.starts_with(&format!("/{key}")),
            "{errors:?}"
        );
    }
    rejects_at(
        json!({"team": [{"slug": "ada", "template": "../../x.md"}]}),
        UNTRUSTED,
        "/neuralis/team/0/template",
    );
    assert!(member_file("Ada Lovelace", &json!({})).is_err());
    assert!(member_file("ada", &json!({"slug": "bob"})).is_err());
}

#[test]
fn inline_entries_are_validated_with_the_file_rules() {
    let m = accepts(json!({"tools": [tool("a_tool")], "commands": [{"name": "c", "prompt": "p"}], "hooks": [{"id": "h", "event": "e"}], "team": [{"slug": "ada"}]}), UNTRUSTED)
        .manifest
        .expect("manifest");
    assert_eq!(
        (
            m.inline.tools.len(),
            m.inline.commands.len(),
            m.inline.hooks.len(),
            m.inline.team.len()
        ),
        (1, 1, 1, 1)
    );
    rejects_at(
        json!({"tools": [tool("a_tool"), tool("a_tool")]}),
        UNTRUSTED,
        "/neuralis/tools/1",
    );
    rejects_at(
        json!({"tools": [{"name": "a_tool"}]}),
        UNTRUSTED,
        "/neuralis/tools/0/inputSchema",
    );
}

#[test]
fn one_error_rejects_the_whole_package_and_every_error_is_collected() {
    // "a single error rejects the whole package rather than loading it partially"
    let block = json!({
        "credentials": [{"id": "git.x", "label": "X"}],
        "dataLayout": {"directories": ["a b"]},
        "requires": {"providesFeatures": ["x", "x"]},
        "description": "fine"
    });
    let v = run(block, UNTRUSTED);
    assert!(v.manifest.is_none());
    let pointers: Vec<&str> = v.errors.iter().map(|e| e.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/neuralis/requires/providesFeatures/1",
            "/neuralis/credentials/0/id",
            "/neuralis/dataLayout/directories/0"
        ]
    );
}
