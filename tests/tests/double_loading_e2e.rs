//! Seed 000, "No double loading", end to end against real servers in both shapes: a
//! project source that covers the drop-zone (the project's data tree holding
//! `_packages/`) contributes nothing from an installed package's directory — neither
//! the manifest package, nor a `.claude/` folder inside it, nor a bare skill folder —
//! because the directory is recognized by the logical identity sync captured (id and
//! version), not by host paths.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;

use neuralis_discovery::CallerToken;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_tests::fixture::{read_policy, register, scope, write_tree};
use neuralis_tests::{Cluster, Mode};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";

/// The project's data tree: the drop-zone under `_packages/`, and a `.claude/` folder
/// of the project's own.
const DATA: &[(&str, &str)] = &[
    (
        "_packages/review/SKILL.md",
        "---\nname: review\n---\nReview.\n",
    ),
    (
        "_packages/kit/package.json",
        r#"{"name": "kit", "version": "1.0.0", "neuralis": {}}"#,
    ),
    (
        "_packages/kit/skills/build/SKILL.md",
        "---\nname: build\n---\n",
    ),
    (
        "_packages/kit/.claude/skills/local/SKILL.md",
        "---\nname: kit-local\n---\n",
    ),
    (".claude/skills/mine/SKILL.md", "---\nname: mine\n---\n"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_installed_directory_inside_a_source_loads_once_all_in_one() {
    let data = tempfile::tempdir().unwrap();
    write_tree(data.path(), DATA).unwrap();
    let cluster = Cluster::all_in_one(drop_zone(data.path())).await.unwrap();
    loads_once(cluster, data.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_installed_directory_inside_a_source_loads_once_split() {
    let data = tempfile::tempdir().unwrap();
    write_tree(data.path(), DATA).unwrap();
    let cluster = Cluster::split_with(NODE, false, drop_zone(data.path()))
        .await
        .unwrap();
    assert_eq!(cluster.mode, Mode::Split);
    loads_once(cluster, data.path()).await;
}

fn drop_zone(data: &std::path::Path) -> HashMap<String, String> {
    HashMap::from([(
        "NEURALIS__DISCOVERY__INSTALLED__DROP_ZONE".to_owned(),
        data.join("_packages").display().to_string(),
    )])
}

async fn loads_once(cluster: Cluster, data: &std::path::Path) {
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", None, P);
    register(&cluster, &admin, P, "data", data, read_policy(vec![]))
        .await
        .expect("register");
    let answer = cluster
        .discovery
        .list_packages(
            CallerToken::new(Some(member)),
            discovery::ListPackagesRequest {
                scope: scope(P, "", ""),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let seen: Vec<(bool, String, String)> = answer
        .packages
        .iter()
        .map(|p| {
            let installed = p.origin == common::PackageOrigin::Installed as i32;
            (installed, p.name.clone(), p.root.clone())
        })
        .collect();
    let expected = [
        (true, "kit".to_owned(), String::new()),
        (true, "review".to_owned(), String::new()),
        (false, ".claude".to_owned(), ".claude".to_owned()),
    ];
    assert_eq!(
        seen, expected,
        "each installed package once; the source's own"
    );
    cluster.stop().await.unwrap();
}
