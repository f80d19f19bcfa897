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

/// Issue 27 item 1: a tool folder linked to the repository's own skills
/// (`.agents/skills -> ../skills`) loads each skill once, at its real path: one package,
/// and the overview names each skill once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_folder_linked_to_the_skills_loads_each_skill_once() {
    let repo = tempfile::tempdir().unwrap();
    write_tree(
        repo.path(),
        &[
            ("skills/alpha/SKILL.md", "---\nname: alpha\n---\nA.\n"),
            ("skills/beta/SKILL.md", "---\nname: beta\n---\nB.\n"),
        ],
    )
    .unwrap();
    std::fs::create_dir_all(repo.path().join(".agents")).unwrap();
    std::os::unix::fs::symlink("../skills", repo.path().join(".agents/skills")).unwrap();
    let cluster = Cluster::all_in_one(HashMap::new()).await.unwrap();
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", None, P);
    register(
        &cluster,
        &admin,
        P,
        "repo",
        repo.path(),
        read_policy(vec![]),
    )
    .await
    .expect("register");
    let answer = cluster
        .discovery
        .list_packages(
            CallerToken::new(Some(member.clone())),
            discovery::ListPackagesRequest {
                scope: scope(P, "", ""),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let files: Vec<&str> = answer
        .packages
        .iter()
        .flat_map(|p| p.files.iter().map(|f| f.path.as_str()))
        .collect();
    assert_eq!(files, ["skills/alpha/SKILL.md", "skills/beta/SKILL.md"]);
    let overview = cluster
        .discovery
        .render_overview(
            CallerToken::new(Some(member)),
            discovery::RenderOverviewRequest {
                scope: scope(P, "", ""),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .text;
    for skill in ["alpha", "beta"] {
        assert_eq!(overview.matches(skill).count(), 1, "{overview}");
    }
    cluster.stop().await.unwrap();
}
