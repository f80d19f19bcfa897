//! `neuralis policy explain` against the real all-in-one node (issue 30 item 1): an
//! administrator sees why a member cannot see a file (the rule that decided, marked),
//! and a member asking for an explanation (or `packages list --explain`) is refused and
//! shown no name.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

use neuralis::node::{self, NodeSettings, Targets, keys};
use neuralis_host::Shutdown;

const PROJECT: &str = "demo";

fn token(data_dir: &Path, subject: &str, role: &str) -> String {
    let who = keys::TokenFor {
        subject: subject.into(),
        role: role.into(),
        project: Some(PROJECT.into()),
        ttl_seconds: 3600,
        ..keys::TokenFor::default()
    };
    keys::mint_token(&keys::existing_key(data_dir).unwrap(), who).unwrap()
}

async fn cli(server: &str, token: &str, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_neuralis"));
    command
        .args(args)
        .args(["--server", server])
        .env("NEURALIS_TOKEN", token);
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(output: &Output) -> String {
    assert!(output.status.success(), "{}", text(&output.stderr));
    text(&output.stdout)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_administrator_sees_the_rule_that_hides_a_file_from_members_and_a_member_is_refused() {
    let data = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/example-source")
        .canonicalize()
        .unwrap();
    let settings = NodeSettings {
        listen: "127.0.0.1:0".into(),
        data_dir: data.path().to_path_buf(),
        ..NodeSettings::default()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let node = node::start(settings, Targets::new([]), listener, Shutdown::new())
        .await
        .unwrap();
    let server = format!("http://{}", node.addr);
    let admin = token(data.path(), "admin", "owner");
    let member = token(data.path(), "user", "member");
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
    ok(&cli(&server, &admin, &create).await);
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
        &server,
        &admin,
        &[&put[..], &[policy.to_str().unwrap()]].concat(),
    )
    .await);
    ok(&cli(&server, &admin, &["sync", PROJECT, "example"]).await);

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
    let shown = ok(&cli(&server, &admin, &explain).await);
    assert!(shown.starts_with("rules/style.md: hidden"), "{shown}");
    let deciding: Vec<&str> = shown.lines().filter(|line| line.starts_with('*')).collect();
    assert_eq!(deciding.len(), 1, "{shown}");
    assert!(deciding[0].contains("uri-rule"), "{shown}");
    assert!(deciding[0].contains("rule #0 `rules/**`"), "{shown}");
    // The administrator's own role reads it: the default decides (rules are opt-in).
    let as_owner = [&explain[..explain.len() - 1], &["owner"]].concat();
    let shown = ok(&cli(&server, &admin, &as_owner).await);
    assert!(
        shown.starts_with("rules/style.md: visible-opt-in"),
        "{shown}"
    );

    // A member asking is refused, and sees no name of the file it asked about.
    let refused = cli(&server, &member, &explain).await;
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
    let shown = ok(&cli(&server, &admin, &list).await);
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
    let refused = cli(&server, &member, &list).await;
    assert_eq!(refused.status.code(), Some(1));
    let said = [text(&refused.stdout), text(&refused.stderr)].concat();
    assert!(said.contains("permission denied"), "{said}");
    assert!(!said.contains("style"), "{said}");
}
