//! The command-line client against the real all-in-one node: one scenario from an
//! empty server to a skill turned off for one agent, through the built binary.
#![allow(clippy::unwrap_used)]

mod support;

use std::process::{Command, Output};

use neuralis::node::keys;
use serde_json::Value;
use support::{ExampleNode, PROJECT, cli, ok, text};

const AGENT: &str = "helper";

fn json(output: &Output) -> Value {
    serde_json::from_str(&ok(output)).unwrap()
}

/// The file of `package_list` with activation id `id`, and its package's policy key.
fn skill<'a>(listing: &'a Value, id: &str) -> Option<(&'a Value, String)> {
    listing["packages"].as_array()?.iter().find_map(|package| {
        let file = package["files"]
            .as_array()?
            .iter()
            .find(|f| f["category"] == "skill" && f["activation_id"] == id)?;
        Some((file, package["policy_key"].as_str()?.to_owned()))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_source_from_creation_to_an_agent_override() {
    let example = ExampleNode::start().await;
    let (server, files, fixture) = (&example.server, &example.files, &example.fixture);
    let admin = example.mint("admin", "owner", None, false);
    let member = example.mint("user", "member", Some(AGENT), false);
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

    // No token: the change is refused, and the message says why.
    let refused = cli(server, None, &create).await;
    assert_eq!(refused.status.code(), Some(1));
    let stderr = text(&refused.stderr);
    assert!(
        stderr.starts_with("neuralis sources create: unauthenticated"),
        "{stderr}"
    );

    let created = json(&cli(server, Some(&admin), &[&create[..], &["--json"]].concat()).await);
    assert_eq!(created["source"]["status"]["state"], "never-synced");
    let source_id = created["source"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        source_id.starts_with(&format!("{PROJECT}/example.")),
        "{created}"
    );
    let shown = ok(&cli(
        server,
        Some(&admin),
        &["sources", "get", "--project", PROJECT, "--slug", "example"],
    )
    .await);
    assert!(shown.contains("Never synced — run a sync"), "{shown}");

    // A bad policy file names the field and changes nothing; a good one is stored.
    let bad = files.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "default: {read: true}\npaths:\n  - pattern: docs/**\n    read: maybe\n",
    )
    .unwrap();
    let put = [
        "policy",
        "put",
        "--project",
        PROJECT,
        "--source",
        "example",
        "--file",
    ];
    let rejected = cli(
        server,
        Some(&admin),
        &[&put[..], &[bad.to_str().unwrap()]].concat(),
    )
    .await;
    assert_eq!(rejected.status.code(), Some(1));
    assert!(text(&rejected.stderr).contains("paths[0].read: must be true or false"));
    let good = files.path().join("policy.json");
    std::fs::write(
        &good,
        r#"{"default": {"read": true, "write": false, "exec": false}}"#,
    )
    .unwrap();
    let args = [&put[..], &[good.to_str().unwrap(), "--json"]].concat();
    let stored = json(&cli(server, Some(&admin), &args).await);
    assert_eq!(stored["policy"]["default"]["read"], true);
    assert_eq!(
        stored["source_id"], source_id,
        "policy knows the source by its id"
    );

    let synced = json(
        &cli(
            server,
            Some(&admin),
            &["sync", PROJECT, "example", "--json"],
        )
        .await,
    );
    assert!(synced["files_indexed"].as_u64() > Some(0), "{synced}");
    let listed = json(
        &cli(
            server,
            Some(&admin),
            &["sources", "list", "--project", PROJECT, "--json"],
        )
        .await,
    );
    assert_eq!(listed["sources"][0]["status"]["state"], "synced");

    // The member acting as the agent sees both skills, and can activate one.
    let list = [
        "packages",
        "list",
        "--project",
        PROJECT,
        "--agent",
        AGENT,
        "--json",
    ];
    let packages = json(&cli(server, Some(&member), &list).await);
    let (review, key) = skill(&packages, "review").expect("review listed");
    assert_eq!(review["state"], "active");
    assert!(skill(&packages, "release").is_some(), "{packages}");
    let activated = ok(&cli(
        server,
        Some(&member),
        &[
            "packages",
            "activate",
            "review",
            "--project",
            PROJECT,
            "--agent",
            AGENT,
        ],
    )
    .await);
    assert!(activated.starts_with("Code review (review)"), "{activated}");
    assert!(activated.contains("# Code review"), "{activated}");

    // A bundle entry and a doc are read on demand through discovery; search answers
    // from the files the caller may read.
    let scoped = ["--project", PROJECT, "--agent", AGENT];
    let script = ok(&cli(
        server,
        Some(&member),
        &[
            &["packages", "read", "skills/review/scripts/diff-stats.sh"][..],
            &["--source", "example"],
            &scoped,
        ]
        .concat(),
    )
    .await);
    assert!(script.starts_with("#!/bin/sh\ngit diff --stat"), "{script}");
    let unknown = cli(
        server,
        Some(&member),
        &[
            &["packages", "read", "skills/zq.md", "--source", "example"][..],
            &scoped,
        ]
        .concat(),
    )
    .await;
    assert_eq!(unknown.status.code(), Some(1));
    assert!(text(&unknown.stderr).contains("not found"));
    let found = json(
        &cli(
            server,
            Some(&member),
            &[&["packages", "search", "diff", "--json"][..], &scoped].concat(),
        )
        .await,
    );
    let paths: Vec<&str> = found["hits"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|hit| hit["path"].as_str())
        .collect();
    assert_eq!(
        paths,
        [
            "skills/review/scripts/diff-stats.sh",
            "skills/review/SKILL.md"
        ],
        "{found}"
    );
    // `docs/architecture.md` belongs to no listed package, yet every indexed file is
    // searchable content (seed 000), decided for the caller: the member may read it.
    let found = json(
        &cli(
            server,
            Some(&member),
            &[
                &["packages", "search", "three services", "--json"][..],
                &scoped,
            ]
            .concat(),
        )
        .await,
    );
    let paths: Vec<&str> = found["hits"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|hit| hit["path"].as_str())
        .collect();
    assert_eq!(paths, ["docs/architecture.md"]);

    // An agent-scope off shows in the agent's next listing. An agent's configuration
    // reaches every project: a project's owner is refused, a platform-wide one is not.
    let path = review["path"].as_str().unwrap().to_owned();
    let agent_off = [
        "policy",
        "override",
        "--scope",
        "agent",
        "--owner",
        AGENT,
        "--package",
        &key,
        "--file",
        &path,
        "--state",
        "off",
    ];
    let refused = cli(server, Some(&admin), &agent_off).await;
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("permission denied"),
        "{}",
        text(&refused.stderr)
    );
    let platform = example.mint("root", "owner", None, true);
    ok(&cli(server, Some(&platform), &agent_off).await);
    let packages = json(&cli(server, Some(&member), &list).await);
    let (review, _) = skill(&packages, "review").expect("review still listed");
    assert_eq!(review["state"], "disabled");
    let (release, _) = skill(&packages, "release").expect("release listed");
    assert_eq!(release["state"], "active");

    example.node.stop().await.unwrap();
}

#[test]
fn a_minted_token_is_bound_to_a_project_unless_platform_is_asked_for() {
    use neuralis_identity::{IdentityConfig, KeySource, Verifier};
    let data = tempfile::tempdir().unwrap();
    let key = keys::local_key(data.path()).unwrap();
    let mint = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_neuralis"))
            .args(["token", "--data-dir", data.path().to_str().unwrap()])
            .args(args)
            .output()
            .unwrap()
    };
    let unbound = mint(&["--role", "owner"]);
    assert_eq!(unbound.status.code(), Some(2), "a usage error");
    assert!(
        text(&unbound.stderr).contains("--project"),
        "{}",
        text(&unbound.stderr)
    );
    let verifier = Verifier::from_config(&IdentityConfig {
        keys: KeySource::Hs256 { secret: key },
        ..IdentityConfig::default()
    })
    .unwrap();
    let bound = verifier
        .verify_identity(ok(&mint(&["--project", PROJECT])).trim())
        .unwrap();
    assert_eq!(bound.caller.project.as_deref(), Some(PROJECT));
    assert!(!bound.platform);
    let platform = verifier
        .verify_identity(ok(&mint(&["--platform", "--role", "owner"])).trim())
        .unwrap();
    assert!(platform.platform);
    assert_eq!(platform.caller.project, None);
}
