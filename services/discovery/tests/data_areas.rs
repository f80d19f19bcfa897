//! Seed 002, "dataLayout": "the agent runtime renders one data_areas row per visible
//! package into the <runtime_stack> prompt block", names only, with agent directories
//! under the caller's agent; "An empty declaration renders no row"; a package the caller
//! cannot see renders none; `machineWritten` "is never rendered into the prompt".

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::path::Path;
use std::sync::Arc;

use fakes::{harness_with, token};
use neuralis_catalog::{Catalog, Extras, ReadLimits, Roots};
use neuralis_discovery::DiscoveryApi;
use neuralis_discovery::adapters::LoadedCatalog;
use neuralis_proto::discovery::v1 as pb;

const ZONE: &[(&str, &str)] = &[
    (
        "notes/package.json",
        r#"{"name": "notes", "neuralis": {"dataLayout": {"directories": ["cache"], "agentDirectories": ["memory"]}}}"#,
    ),
    ("notes/skills/notes/SKILL.md", "---\nname: notes\n---\n"),
    (
        "hidden/package.json",
        r#"{"name": "hidden", "neuralis": {"dataLayout": {"directories": ["secret-area"]}}}"#,
    ),
    ("hidden/skills/h/SKILL.md", "---\nname: h\n---\n"),
    (
        "plain/package.json",
        r#"{"name": "plain", "neuralis": {"dataLayout": {}}}"#,
    ),
    ("plain/skills/p/SKILL.md", "---\nname: p\n---\n"),
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
    assert_eq!(catalog.packages().len(), 3, "{:?}", catalog.rejected());
    Arc::new(LoadedCatalog::new(catalog, &roots))
}

#[tokio::test]
async fn data_layout_renders_one_row_per_visible_package_with_the_caller_agent() {
    let zone = tempfile::tempdir().unwrap();
    let h = harness_with(catalog(zone.path())).await;
    h.access.denied.lock().unwrap().insert("hidden".into());
    let overview = h
        .discovery
        .render_overview(
            token("member", Some("a1"), "p1"),
            pb::RenderOverviewRequest {
                scope: Some(pb::Scope {
                    project_id: "p1".into(),
                    agent_id: "a1".into(),
                    conversation_id: String::new(),
                }),
                budget_tokens: 0,
            },
        )
        .await
        .unwrap();
    let block = overview
        .text
        .split_once("<data_areas>\n")
        .map(|(_, block)| block)
        .unwrap_or_else(|| panic!("no data areas in {}", overview.text));
    assert_eq!(
        block, "- data://_installed/notes/: cache/, a1/memory/\n</data_areas>\n",
        "one row for the visible package that declares directories"
    );
    assert!(
        !overview.text.contains("secret-area"),
        "a hidden package renders nothing"
    );
}
