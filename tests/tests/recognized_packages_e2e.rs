//! Seed 000, "What is deliberately not loaded", end to end in both shapes: a local
//! source flagged `recognizesPackages` is also a package source. All-in-one, its
//! package is answered on the package axis with its tools; in split mode discovery
//! does not scan the source's path on its own host (it names a directory on sync's
//! host) and serves no package from it (fail closed, docs/decisions/discovery.md), while
//! the source's markdown packages are still served from sync's index.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;

use neuralis_discovery::CallerToken;
use neuralis_policy::BearerToken;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::sync::v1 as sync;
use neuralis_tests::fixture::{put_policy, read_policy, resync, scope, write_tree};
use neuralis_tests::{Cluster, Mode};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";

const TREE: &[(&str, &str)] = &[
    (
        "wasm-pkg/package.json",
        r#"{"name": "wasm-pkg", "version": "1.0.0", "neuralis": {"id": "wasm-pkg", "tools": [
            {"name": "wasm_build", "description": "Builds.", "inputSchema": {"type": "object"}}]}}"#,
    ),
    (
        "wasm-pkg/skills/build/SKILL.md",
        "---\nname: build\n---\nBuild.\n",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recognizing_source_serves_its_package_and_tools_all_in_one() {
    let data = tempfile::tempdir().unwrap();
    write_tree(data.path(), TREE).unwrap();
    let cluster = Cluster::all_in_one(HashMap::new()).await.unwrap();
    let (packages, tools) = seen(&cluster, data.path()).await;
    assert!(
        packages.contains(&(true, "wasm-pkg".to_owned())),
        "{packages:?}"
    );
    assert_eq!(tools, ["wasm_build"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_split_discovery_serves_no_package_from_a_path_on_its_own_host() {
    let data = tempfile::tempdir().unwrap();
    write_tree(data.path(), TREE).unwrap();
    let cluster = Cluster::split_with(NODE, false, HashMap::new())
        .await
        .unwrap();
    assert_eq!(cluster.mode, Mode::Split);
    let (packages, tools) = seen(&cluster, data.path()).await;
    assert!(
        !packages.contains(&(true, "wasm-pkg".to_owned())),
        "{packages:?}"
    );
    assert!(tools.is_empty(), "{tools:?}");
    // The markdown axis is sync's index: the directory is still a markdown package.
    assert!(
        packages.contains(&(false, "wasm-pkg".to_owned())),
        "{packages:?}"
    );
}

/// The attacker reads as agent a1: agent a2 put a package in its own private folder of
/// a flagged source (privacy pattern `pkg-{agent}/**`). The package is found like any other,
/// but its files are a2's private files: the source's privacy patterns decide who sees
/// them, on their paths in the source, as for the source's own files. a1 is answered
/// neither the package nor its tool; a2 is answered both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_package_in_an_agents_private_folder_is_served_to_that_agent_alone() {
    let data = tempfile::tempdir().unwrap();
    let private: Vec<(String, &str)> = TREE
        .iter()
        .map(|(path, body)| (path.replacen("wasm-pkg/", "pkg-a2/", 1), *body))
        .collect();
    let private: Vec<(&str, &str)> = private.iter().map(|(p, b)| (p.as_str(), *b)).collect();
    write_tree(data.path(), &private).unwrap();
    let cluster = Cluster::all_in_one(HashMap::new()).await.unwrap();
    register(&cluster, data.path(), &["pkg-{agent}/**"]).await;
    let (packages, tools) = answered(&cluster, "a2").await;
    assert!(
        packages.contains(&(true, "wasm-pkg".to_owned())),
        "its owner is answered it: {packages:?}"
    );
    assert_eq!(tools, ["wasm_build"]);
    let (packages, tools) = answered(&cluster, "a1").await;
    assert!(
        !packages.iter().any(|(_, name)| name == "wasm-pkg"),
        "another agent's private package: {packages:?}"
    );
    assert!(tools.is_empty(), "another agent's private tool: {tools:?}");
}

/// The same for a package of tools alone (a manifest and no markdown): its manifest is
/// a2's private file, so its tools are a2's alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_package_of_tools_alone_in_an_agents_private_folder_is_that_agents_alone() {
    let data = tempfile::tempdir().unwrap();
    write_tree(data.path(), &[("pkg-a2/package.json", TREE[0].1)]).unwrap();
    let cluster = Cluster::all_in_one(HashMap::new()).await.unwrap();
    register(&cluster, data.path(), &["pkg-{agent}/**"]).await;
    let (_, tools) = answered(&cluster, "a2").await;
    assert_eq!(tools, ["wasm_build"], "its owner is answered its tool");
    let (packages, tools) = answered(&cluster, "a1").await;
    assert!(tools.is_empty(), "another agent's private tool: {tools:?}");
    assert!(
        !packages.iter().any(|(_, name)| name == "wasm-pkg"),
        "{packages:?}"
    );
}

/// Registers `root` as a flagged project source, then what a member is answered:
/// (installed?, name) per package, and the tool names.
async fn seen(cluster: &Cluster, root: &std::path::Path) -> (Vec<(bool, String)>, Vec<String>) {
    register(cluster, root, &[]).await;
    answered(cluster, "").await
}

/// Registers `root` as a flagged project source with `privacy` patterns, with a policy
/// that reads everything, and syncs it.
async fn register(cluster: &Cluster, root: &std::path::Path, privacy: &[&str]) {
    let admin = cluster.token("ops", "owner", None, P);
    let spec = sync::SourceSpec {
        project: P.into(),
        slug: "pkgs".into(),
        kind: sync::SourceKind::Local as i32,
        root: root.display().to_string(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        recognizes_packages: true,
        privacy_patterns: privacy.iter().map(|p| (*p).to_owned()).collect(),
        ..Default::default()
    };
    cluster
        .sources
        .create_source(
            &BearerToken::new(Some(admin.clone())),
            sync::CreateSourceRequest { source: Some(spec) },
        )
        .await
        .expect("create");
    put_policy(cluster, &admin, P, "pkgs", read_policy(vec![]))
        .await
        .expect("policy");
    resync(cluster, &admin, P, "pkgs").await.expect("sync");
}

/// What a member acting as `agent` ("" for none) is answered: (installed?, name) per
/// package, and the tool names.
async fn answered(cluster: &Cluster, agent: &str) -> (Vec<(bool, String)>, Vec<String>) {
    let member = || {
        let agent = (!agent.is_empty()).then_some(agent);
        CallerToken::new(Some(cluster.token("ada", "member", agent, P)))
    };
    let answer = cluster
        .discovery
        .list_packages(
            member(),
            discovery::ListPackagesRequest {
                scope: scope(P, agent, ""),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let packages = answer
        .packages
        .iter()
        .map(|p| {
            let installed = p.origin == common::PackageOrigin::Installed as i32;
            (installed, p.name.clone())
        })
        .collect();
    let tools = cluster
        .discovery
        .list_tools(
            member(),
            discovery::ListToolsRequest {
                scope: scope(P, agent, ""),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    (packages, tools.tools.into_iter().map(|t| t.name).collect())
}
