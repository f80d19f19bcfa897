//! The directory contract of an installed package (seed 001), pure over paths and bytes.

use neuralis_catalog::contract::{Declaration, classify, scan};
use neuralis_catalog::package::{Candidate, InstallClass, Outcome, load};
use std::collections::BTreeMap;

fn files(entries: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
    entries
        .iter()
        .map(|(p, c)| (p.to_string(), c.as_bytes().to_vec()))
        .collect()
}

fn candidate(class: InstallClass, entries: &[(&str, &str)]) -> Candidate {
    Candidate {
        root: "pkg".into(),
        class,
        files: files(entries),
    }
}

const TOOL: &str = r#"{"name": "t", "description": "d", "inputSchema": {"type": "object"}}"#;

#[test]
fn json_declarations_are_recognized_by_their_contract_path() {
    let cases: &[(&str, Option<Declaration<'_>>)] = &[
        ("tools/status.json", Some(Declaration::Tool)),
        (
            "workflows/release.json",
            Some(Declaration::Workflow { stem: "release" }),
        ),
        ("commands/review.json", Some(Declaration::Command)),
        ("hooks.json", Some(Declaration::Hooks)),
        (
            "team/ada/member.json",
            Some(Declaration::Member { slug: "ada" }),
        ),
        (
            "team/ada/identity/soul.md",
            Some(Declaration::MemberIdentity { slug: "ada" }),
        ),
        (
            "team/ada/files/notes/deep/a.md",
            Some(Declaration::MemberFile { slug: "ada" }),
        ),
        // not scanned: nested folders, other places, other extensions
        ("tools/nested/status.json", None),
        ("src/tools/status.json", None),
        ("dist/tools/status.json", None),
        ("tools/.hidden.json", None),
        ("tools/status.ts", None),
        ("commands/review.md", None),
        ("sub/hooks.json", None),
        ("team/ada/notes.md", None),
        ("team/ada/identity/nested/x.md", None),
        ("README.md", None),
    ];
    for (path, expected) in cases {
        assert_eq!(classify(path).as_ref(), expected.as_ref(), "{path}");
    }
}

#[test]
fn a_bad_declaration_file_is_reported_with_its_file_and_pointer() {
    let (_, issues) = scan(&files(&[
        ("tools/a.json", "{not json"),
        ("tools/b.json", r#"{"name": "b"}"#),
    ]));
    let located: Vec<(&str, &str)> = issues
        .iter()
        .map(|i| (i.file.as_str(), i.pointer.as_str()))
        .collect();
    assert_eq!(
        located,
        [
            ("tools/a.json", ""),
            ("tools/b.json", "/description"),
            ("tools/b.json", "/inputSchema")
        ]
    );
}

#[test]
fn two_tool_files_of_one_package_cannot_declare_one_name() {
    let (declared, issues) = scan(&files(&[("tools/a.json", TOOL), ("tools/b.json", TOOL)]));
    assert_eq!(declared.tools.len(), 1);
    assert_eq!(issues[0].file, "tools/b.json");
}

#[test]
fn member_markdown_belongs_to_a_member_with_a_member_json() {
    let (declared, issues) = scan(&files(&[
        ("team/ada/member.json", r#"{"name": "Ada"}"#),
        ("team/ada/identity/soul.md", "x"),
        ("team/ada/files/a.md", "x"),
        ("team/ghost/identity/soul.md", "x"),
    ]));
    assert!(issues.is_empty(), "{issues:?}");
    assert_eq!(declared.team.len(), 1);
    assert_eq!(declared.team[0].identity, ["team/ada/identity/soul.md"]);
    assert_eq!(declared.team[0].files, ["team/ada/files/a.md"]);
}

#[test]
fn a_declaration_error_rejects_the_whole_package() {
    // "a single error rejects the whole package rather than loading it partially"
    let c = candidate(
        InstallClass::Project,
        &[
            ("package.json", r#"{"name": "p", "neuralis": {}}"#),
            ("tools/a.json", TOOL),
            ("tools/b.json", "[]"),
        ],
    );
    let Outcome::Rejected(rejection) = load(&c) else {
        panic!("rejected")
    };
    assert_eq!(rejection.errors[0].file, "tools/b.json");
}

#[test]
fn loose_root_markdown_and_files_outside_category_folders_are_not_contributions() {
    let named = "---\nname: x\n---\nbody\n";
    let c = candidate(
        InstallClass::Project,
        &[
            ("package.json", r#"{"name": "p", "neuralis": {}}"#),
            ("README.md", named),
            ("PLAN.md", named),
            ("AGENTS.md", named),
            ("files/notes.md", named),
            ("src/rules/r.md", named),
            ("instructions/setup.md", named),
        ],
    );
    let Outcome::Loaded(p) = load(&c) else {
        panic!("loads")
    };
    let paths: Vec<&str> = p
        .contributions
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(paths, ["instructions/setup.md"]);
}

#[test]
fn a_project_package_may_use_neuralis_package_json_but_a_builtin_only_package_json() {
    let entries = [("neuralis.package.json", r#"{"name": "p", "neuralis": {}}"#)];
    assert!(matches!(
        load(&candidate(InstallClass::Project, &entries)),
        Outcome::Loaded(_)
    ));
    assert!(matches!(
        load(&candidate(InstallClass::Builtin, &entries)),
        Outcome::Skipped { .. }
    ));
    let plain = [("package.json", r#"{"name": "app"}"#)];
    assert!(matches!(
        load(&candidate(InstallClass::Project, &plain)),
        Outcome::Skipped { .. }
    ));
    let broken = [("package.json", "{")];
    let Outcome::Rejected(r) = load(&candidate(InstallClass::Builtin, &broken)) else {
        panic!("rejected")
    };
    assert_eq!(
        (r.errors[0].file.as_str(), r.errors[0].pointer.as_str()),
        ("package.json", "")
    );
}

#[test]
fn a_bare_skill_folder_without_package_json_is_a_one_skill_package() {
    // "<root>/SKILL.md — a bare single-skill folder with no package.json at all: the
    // package root is the skill"
    let skill = "---\nname: summarize\n---\nSummarize.\n";
    let mut c = candidate(
        InstallClass::Project,
        &[("SKILL.md", skill), ("scripts/run.sh", "echo")],
    );
    c.root = "_packages/summarize".into();
    let Outcome::Loaded(p) = load(&c) else {
        panic!("loads")
    };
    assert_eq!(p.id, "summarize");
    let ids: Vec<(&str, &str)> = p
        .contributions
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.id.as_str()))
        .collect();
    assert_eq!(ids, [("SKILL.md", "summarize")]);
    assert_eq!(
        p.contributions.files[0].bundle,
        ["SKILL.md", "scripts/run.sh"]
    );
    // never for builtins, and never beside a plain package.json
    c.class = InstallClass::Builtin;
    assert!(matches!(load(&c), Outcome::Skipped { .. }));
    let plain = candidate(
        InstallClass::Project,
        &[("SKILL.md", skill), ("package.json", r#"{"name": "app"}"#)],
    );
    assert!(matches!(load(&plain), Outcome::Skipped { .. }));
}
