//! Seed 000, "What is deliberately not loaded": "a local source flagged
//! recognizesPackages: true ALSO becomes a runtime-WASM package source ... its directory
//! is scanned and hot-reloaded like the _packages/ drop-zone ... This is additive: the
//! source still contributes markdown packages as described here, and a built-in dedup
//! stops the same package from appearing on both axes."

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::sync::Arc;

use fakes::{good, harness_with};
use neuralis_discovery::DiscoveryApi;
use neuralis_discovery::adapters::LoadedCatalog;
use neuralis_discovery::adapters::source_packages::WithSourcePackages;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as pb;

const TREE: &[(&str, &str)] = &[
    (
        "wasm-pkg/package.json",
        r#"{"name": "wasm-pkg", "version": "1.0.0", "neuralis": {"id": "wasm-pkg"}}"#,
    ),
    (
        "wasm-pkg/skills/build/SKILL.md",
        "---\nname: build\n---\nBuild.\n",
    ),
    ("notes/skills/tip/SKILL.md", "---\nname: tip\n---\nTip.\n"),
];

async fn listed(recognizing: bool) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in TREE {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, content).unwrap();
    }
    let catalog = Arc::new(WithSourcePackages::new(Arc::new(LoadedCatalog::empty())));
    let h = harness_with(catalog).await;
    h.index
        .local_roots
        .lock()
        .unwrap()
        .insert("repo".into(), dir.path().to_path_buf());
    if recognizing {
        h.index.recognizing.lock().unwrap().insert("repo".into());
    }
    for (path, content) in TREE {
        h.index.put("repo", path, content);
    }
    let scope = Some(pb::Scope {
        project_id: "p1".into(),
        agent_id: String::new(),
        conversation_id: String::new(),
    });
    let answer = h
        .discovery
        .list_packages(
            good(),
            pb::ListPackagesRequest {
                scope: scope.clone(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    if recognizing {
        // The recognized package's files are read from the source's directory.
        let skill = answer
            .packages
            .iter()
            .find(|p| p.name == "wasm-pkg")
            .and_then(|p| p.files.iter().find(|f| f.path.ends_with("SKILL.md")))
            .map(|f| f.activation_id.clone())
            .unwrap();
        let activated = h
            .discovery
            .activate_skill(
                good(),
                pb::ActivateSkillRequest {
                    scope,
                    skill_id: skill,
                },
            )
            .await
            .unwrap();
        assert!(activated.body.contains("Build."), "{activated:?}");
    }
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

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(o, n)| ((*o).to_owned(), (*n).to_owned()))
        .collect()
}

#[tokio::test]
async fn a_recognizing_source_is_also_a_package_source_and_each_package_appears_once() {
    assert_eq!(
        listed(false).await,
        pairs(&[("source", "notes"), ("source", "wasm-pkg")]),
        "without the flag: markdown packages only"
    );
    assert_eq!(
        listed(true).await,
        pairs(&[("installed", "wasm-pkg"), ("source", "notes")]),
        "with it: the package once, on the package axis; the rest still markdown"
    );
}

/// "The source's own scope then governs who those packages are advertised to, so a
/// user- or agent-scoped source contributes capabilities to that user or agent alone."
#[tokio::test]
async fn an_agent_scoped_package_source_advertises_its_packages_to_that_agent_alone() {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in TREE {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, content).unwrap();
    }
    let catalog = Arc::new(WithSourcePackages::new(Arc::new(LoadedCatalog::empty())));
    let h = harness_with(catalog).await;
    h.index
        .local_roots
        .lock()
        .unwrap()
        .insert("repo".into(), dir.path().to_path_buf());
    h.index.recognizing.lock().unwrap().insert("repo".into());
    h.index.scopes.lock().unwrap().insert(
        "repo".into(),
        neuralis_access::SourceScope {
            scope: neuralis_access::Scope::Agent,
            owner: "a1".into(),
        },
    );
    for (path, content) in TREE {
        h.index.put("repo", path, content);
    }
    let names = |agent: Option<&'static str>| {
        let discovery = &h.discovery;
        async move {
            let answer = discovery
                .list_packages(
                    fakes::token("member", agent, "p1"),
                    pb::ListPackagesRequest {
                        scope: Some(pb::Scope {
                            project_id: "p1".into(),
                            agent_id: agent.unwrap_or_default().into(),
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
                .map(|p| p.name.clone())
                .collect::<Vec<_>>()
        }
    };
    assert!(names(Some("a1")).await.contains(&"wasm-pkg".to_owned()));
    assert!(!names(Some("a2")).await.contains(&"wasm-pkg".to_owned()));
    assert!(!names(None).await.contains(&"wasm-pkg".to_owned()));
}
