//! Seed 001: "a purely declarative package can ship nothing but tool schemas". A
//! tools-only installed package lists no file, yet its tools answer in `ListTools` and
//! it counts among a contested name's claimants (seed 002, "Tool names are global").

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::path::Path;
use std::sync::Arc;

use fakes::{good, harness_with};
use neuralis_catalog::{Catalog, Extras, ReadLimits, Roots};
use neuralis_discovery::DiscoveryApi;
use neuralis_discovery::adapters::LoadedCatalog;
use neuralis_proto::discovery::v1 as pb;

const ZONE: &[(&str, &str)] = &[
    // Nothing but tool schemas.
    (
        "aa-tools/package.json",
        r#"{"name": "aa-tools", "neuralis": {}}"#,
    ),
    (
        "aa-tools/tools/aa_only.json",
        r#"{"name": "aa_only", "description": "Only here", "inputSchema": {"type": "object"}}"#,
    ),
    (
        "aa-tools/tools/shared.json",
        r#"{"name": "shared", "description": "From aa-tools", "inputSchema": {"type": "object"}}"#,
    ),
    // A package with markdown and the same tool name.
    (
        "zz-notes/package.json",
        r#"{"name": "zz-notes", "neuralis": {}}"#,
    ),
    ("zz-notes/skills/notes/SKILL.md", "---\nname: notes\n---\n"),
    (
        "zz-notes/tools/shared.json",
        r#"{"name": "shared", "description": "From zz-notes", "inputSchema": {"type": "object"}}"#,
    ),
];

fn catalog(zone: &Path) -> Arc<LoadedCatalog> {
    for (path, content) in ZONE {
        let file = zone.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, content).unwrap();
    }
    let roots = Roots {
        dependency_tree: None,
        drop_zone: Some(zone.to_path_buf()),
        trusted_dirs: Vec::new(),
    };
    let catalog = Catalog::load(&roots, ReadLimits::default(), &Extras::default()).unwrap();
    Arc::new(LoadedCatalog::new(catalog, &roots))
}

fn scope() -> Option<pb::Scope> {
    Some(pb::Scope {
        project_id: "p1".into(),
        agent_id: String::new(),
        conversation_id: String::new(),
    })
}

#[tokio::test]
async fn a_tools_only_package_keeps_its_tools_and_claims_a_contested_name() {
    let zone = tempfile::tempdir().unwrap();
    let h = harness_with(catalog(zone.path())).await;
    let listed = h
        .discovery
        .list_packages(
            good(),
            pb::ListPackagesRequest {
                scope: scope(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let names: Vec<&str> = listed.packages.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["zz-notes"], "a package with no file lists nothing");
    let tools = h
        .discovery
        .list_tools(
            good(),
            pb::ListToolsRequest {
                scope: scope(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let answering: Vec<(&str, &str)> = tools
        .tools
        .iter()
        .map(|t| (t.name.as_str(), t.package_id.as_str()))
        .collect();
    assert_eq!(
        answering,
        [("aa_only", "aa-tools"), ("shared", "aa-tools")],
        "the lexically smaller package id answers the contested name"
    );
    let shared = tools.contested.iter().find(|c| c.name == "shared").unwrap();
    assert_eq!(shared.claimants, ["aa-tools", "zz-notes"]);
    assert_eq!(shared.owner, "aa-tools");
}
