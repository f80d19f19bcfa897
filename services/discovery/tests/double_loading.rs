//! Seed 000, "No double loading": "A source subtree that belongs to an already-installed
//! package contributes nothing — the installed package's snapshot covers it." Every
//! package rooted in an installed directory (a bare skill folder, a `.claude/` folder
//! inside an installed package) loads once, and the answer is the same whether the
//! synced source's host path is discovery's own view of the directory (all-in-one) or
//! another machine's (split mode).

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use fakes::{good, harness_with};
use neuralis_catalog::{Catalog, Extras, ReadLimits, Roots};
use neuralis_discovery::DiscoveryApi;
use neuralis_discovery::adapters::LoadedCatalog;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as pb;

/// The drop-zone's packages, path to content (relative to the drop-zone).
const ZONE: &[(&str, &str)] = &[
    // A bare skill folder: no package.json, the folder is the package.
    ("review/SKILL.md", "---\nname: review\n---\nReview.\n"),
    // A manifest package carrying its own `.claude/` tool folder.
    (
        "kit/package.json",
        r#"{"name": "kit", "version": "1.0.0", "neuralis": {"id": "kit"}}"#,
    ),
    ("kit/skills/build/SKILL.md", "---\nname: build\n---\n"),
    (
        "kit/.claude/skills/local/SKILL.md",
        "---\nname: kit-local\n---\n",
    ),
];

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, content) in files {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, content).unwrap();
    }
}

fn catalog(zone: &Path) -> Arc<LoadedCatalog> {
    let roots = Roots {
        dependency_tree: None,
        drop_zone: Some(zone.to_path_buf()),
        trusted_dirs: Vec::new(),
    };
    let catalog = Catalog::load(&roots, ReadLimits::default(), &Extras::default()).unwrap();
    let ids: Vec<&str> = catalog.packages().iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["kit", "review"], "both drop-zone packages load");
    Arc::new(LoadedCatalog::new(catalog, &roots))
}

/// The source packages a member sees when a project source holding the drop-zone at
/// `_packages/` (and a `.claude/` folder of its own) is synced from `host_root`.
async fn source_packages(zone: &Path, host_root: Option<PathBuf>) -> Vec<(String, String)> {
    let h = harness_with(catalog(zone)).await;
    if let Some(root) = host_root {
        h.index
            .local_roots
            .lock()
            .unwrap()
            .insert("data".into(), root);
    }
    for (path, content) in ZONE {
        h.index.put("data", &format!("_packages/{path}"), content);
    }
    h.index.put(
        "data",
        ".claude/skills/mine/SKILL.md",
        "---\nname: mine\n---\n",
    );
    let answer = h
        .discovery
        .list_packages(
            good(),
            pb::ListPackagesRequest {
                scope: Some(pb::Scope {
                    project_id: "p1".into(),
                    agent_id: String::new(),
                    conversation_id: String::new(),
                }),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    answer
        .packages
        .iter()
        .map(|p| {
            let origin = if p.origin == common::PackageOrigin::Installed as i32 {
                "installed"
            } else {
                "source"
            };
            (origin.to_owned(), p.name.clone())
        })
        .collect()
}

#[tokio::test]
async fn every_package_rooted_in_an_installed_directory_loads_once_in_both_modes() {
    let data = tempfile::tempdir().unwrap();
    let zone = data.path().join("_packages");
    write(&zone, ZONE);
    let expected: Vec<(String, String)> = [
        ("installed", "kit"),
        ("installed", "review"),
        ("source", ".claude"),
    ]
    .iter()
    .map(|(o, n)| ((*o).to_owned(), (*n).to_owned()))
    .collect();
    let modes = [
        (
            "all-in-one: the sync host's path is discovery's",
            Some(data.path().to_path_buf()),
        ),
        (
            "split: the sync host mounts it elsewhere",
            Some("/srv/sync-host/data".into()),
        ),
        ("a machine source: no host path at all", None),
    ];
    for (mode, root) in modes {
        assert_eq!(source_packages(&zone, root).await, expected, "{mode}");
    }
}

/// Each listed package as (origin, name, its files' paths), for a project source
/// holding `source` files beside the drop-zone `zone`.
async fn listed_with(zone: &Path, source: &[(&str, &str)]) -> Vec<(String, String, Vec<String>)> {
    let h = harness_with(catalog(zone)).await;
    for (path, content) in source {
        h.index.put("data", path, content);
    }
    let packages = fakes::listing::packages(&h, good()).await;
    packages
        .into_iter()
        .map(|p| {
            let origin = if p.origin == common::PackageOrigin::Installed as i32 {
                "installed"
            } else {
                "source"
            };
            let files = p.files.into_iter().map(|f| f.path).collect();
            (origin.to_owned(), p.name, files)
        })
        .collect()
}

/// Issue 27: a folder's name is no identity; only the installed folder's skill itself
/// (the same `SKILL.md`) is a double load.
#[tokio::test]
async fn an_unrelated_source_skill_folder_named_like_an_installed_bare_skill_loads() {
    let zone = tempfile::tempdir().unwrap();
    write(zone.path(), ZONE);
    let source = [(
        "work/review/SKILL.md",
        "---\nname: review\n---\nA different review skill.\n",
    )];
    let listed = listed_with(zone.path(), &source).await;
    let names: Vec<(&str, &str)> = listed
        .iter()
        .map(|(origin, name, _)| (origin.as_str(), name.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("installed", "kit"),
            ("installed", "review"),
            ("source", "review")
        ]
    );
}

/// Issue 27: the installed bare skill reached as a member `skills/<name>/` folder of a
/// source package (the drop-zone is the source's `skills/` folder) loads once.
#[tokio::test]
async fn an_installed_bare_skill_that_is_a_member_skill_folder_loads_once() {
    let zone = tempfile::tempdir().unwrap();
    write(zone.path(), ZONE);
    let review = ZONE[0].1;
    let source = [
        ("AGENTS.md", "# Agents\n"),
        ("skills/review/SKILL.md", review),
        ("skills/other/SKILL.md", "---\nname: other\n---\n"),
    ];
    let listed = listed_with(zone.path(), &source).await;
    let files: Vec<&str> = listed
        .iter()
        .filter(|(origin, _, _)| origin == "source")
        .flat_map(|(_, _, files)| files.iter().map(String::as_str))
        .collect();
    assert!(
        !files.contains(&"skills/review/SKILL.md"),
        "review loads as the installed package only: {listed:?}"
    );
    assert!(files.contains(&"skills/other/SKILL.md"), "{listed:?}");
}

/// Issue 27: a top-level skill folder linked into an installed package's member
/// `skills/<name>/` folder is that package's skill: it loads once, as installed.
#[tokio::test]
async fn a_top_level_link_to_an_installed_packages_member_skill_loads_once() {
    let zone = tempfile::tempdir().unwrap();
    write(zone.path(), ZONE);
    let h = harness_with(catalog(zone.path())).await;
    for (path, content) in ZONE {
        h.index.put("data", &format!("vendor/{path}"), content);
    }
    h.index.put("data", "AGENTS.md", "# Agents\n");
    let build = ZONE[2].1;
    h.index.put("data", "skills/build/SKILL.md", build);
    h.index.aliases.lock().unwrap().insert(
        ("data".into(), "skills/build/SKILL.md".into()),
        "vendor/kit/skills/build/SKILL.md".into(),
    );
    let packages = fakes::listing::packages(&h, good()).await;
    let source_files: Vec<&str> = packages
        .iter()
        .filter(|p| p.origin != common::PackageOrigin::Installed as i32)
        .flat_map(|p| p.files.iter().map(|f| f.path.as_str()))
        .collect();
    assert!(
        !source_files.iter().any(|path| path.contains("build")),
        "{source_files:?}"
    );
}
