//! `neuralis policy explain` against the real all-in-one node (issue 30 item 1): an
//! administrator sees why a member cannot see a file (the rule that decided, marked),
//! and a member asking for an explanation (or `packages list --explain`) is refused and
//! shown no name.
#![allow(clippy::unwrap_used)]

mod support;

use support::{ExampleNode, PROJECT, cli, ok, text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_administrator_sees_the_rule_that_hides_a_file_from_members_and_a_member_is_refused() {
    let example = ExampleNode::start().await;
    let (server, files, fixture) = (&example.server, &example.files, &example.fixture);
    let admin = example.mint("admin", "owner", None, false);
    let member = example.mint("user", "member", None, false);
    let root = fixture.to_str().unwrap();
    let create = [
        "sources",
        "create",
        "--project",
        PROJECT,
        "--slug",
        "example",
        "--root",
        root,
    ];
    ok(&cli(server, Some(&admin), &create).await);
    let policy = files.path().join("policy.json");
    let rules = r#"{"default": {"read": true, "write": false, "exec": false},
                    "paths": [{"pattern": "rules/**", "read": false, "roles": ["member"]}]}"#;
    std::fs::write(&policy, rules).unwrap();
    let put = [
        "policy",
        "put",
        "--project",
        PROJECT,
        "--source",
        "example",
        "--file",
    ];
    ok(&cli(
        server,
        Some(&admin),
        &[&put[..], &[policy.to_str().unwrap()]].concat(),
    )
    .await);
    ok(&cli(server, Some(&admin), &["sync", PROJECT, "example"]).await);

    let explain = [
        "policy",
        "explain",
        "rules/style.md",
        "--project",
        PROJECT,
        "--source",
        "example",
        "--role",
        "member",
    ];
    let shown = ok(&cli(server, Some(&admin), &explain).await);
    assert!(shown.starts_with("rules/style.md: hidden"), "{shown}");
    let deciding: Vec<&str> = shown.lines().filter(|line| line.starts_with('*')).collect();
    assert_eq!(deciding.len(), 1, "{shown}");
    assert!(deciding[0].contains("uri-rule"), "{shown}");
    assert!(deciding[0].contains("rule #0 `rules/**`"), "{shown}");
    // The administrator's own role reads it: the default decides (rules are opt-in).
    let as_owner = [&explain[..explain.len() - 1], &["owner"]].concat();
    let shown = ok(&cli(server, Some(&admin), &as_owner).await);
    assert!(
        shown.starts_with("rules/style.md: visible-opt-in"),
        "{shown}"
    );

    // A member asking is refused, and sees no name of the file it asked about.
    let refused = cli(server, Some(&member), &explain).await;
    assert_eq!(refused.status.code(), Some(1));
    let said = [text(&refused.stdout), text(&refused.stderr)].concat();
    assert!(said.contains("permission denied"), "{said}");
    assert!(!said.contains("style"), "{said}");

    // An administrator's listing explained for members: the hidden file is there, with
    // the rule that hides it; the others with the step that decided them.
    let list = [
        "packages",
        "list",
        "--project",
        PROJECT,
        "--explain",
        "--role",
        "member",
    ];
    let shown = ok(&cli(server, Some(&admin), &list).await);
    let style = shown
        .lines()
        .find(|line| line.contains("rules/style.md"))
        .unwrap_or("");
    assert!(
        style.contains("hidden") && style.contains("rule #0 `rules/**`"),
        "{shown}"
    );
    let review = shown
        .lines()
        .find(|line| line.contains("skills/review/SKILL.md"))
        .unwrap_or("");
    assert!(
        review.contains("visible-active") && review.contains("default"),
        "{shown}"
    );

    // The attacker's call: a member's `--explain` is refused and prints no hidden name.
    let refused = cli(server, Some(&member), &list).await;
    assert_eq!(refused.status.code(), Some(1));
    let said = [text(&refused.stdout), text(&refused.stderr)].concat();
    assert!(said.contains("permission denied"), "{said}");
    assert!(!said.contains("style"), "{said}");
}
