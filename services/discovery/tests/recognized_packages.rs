//! Seed 000, "What is deliberately not loaded": "a local source flagged
//! recognizesPackages: true ALSO becomes a runtime-WASM package source ... its directory
//! is scanned and hot-reloaded like the _packages/ drop-zone ... This is additive: the
//! source still contributes markdown packages as described here, and a built-in dedup
//! stops the same package from appearing on both axes."

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::sync::Arc;

use fakes::package_sources::{tools_of, write_tree};
use fakes::{good, harness_with};
use neuralis_discovery::DiscoveryApi;
use neuralis_discovery::adapters::LoadedCatalog;
use neuralis_discovery::adapters::source_packages::{RootGate, WithSourcePackages};
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
    let catalog = Arc::new(WithSourcePackages::new(
        Arc::new(LoadedCatalog::empty()),
        any_root(),
    ));
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
    let catalog = Arc::new(WithSourcePackages::new(
        Arc::new(LoadedCatalog::empty()),
        any_root(),
    ));
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

/// A package `wasm-pkg` whose skill says `body`, its tool `wasm_build` described so.
fn twin(body: &str) -> Vec<(String, String)> {
    vec![
        (
            "wasm-pkg/package.json".into(),
            format!(
                r#"{{"name": "wasm-pkg", "version": "1.0.0", "neuralis": {{"id": "wasm-pkg", "tools": [
                {{"name": "wasm_build", "description": "{body}", "inputSchema": {{"type": "object"}}}}]}}}}"#
            ),
        ),
        (
            "wasm-pkg/skills/build/SKILL.md".into(),
            format!("---\nname: build\n---\n{body}\n"),
        ),
    ]
}

/// What `agent` gets of `wasm-pkg`: how many times it is listed, its skill's body and
/// its tool's description.
async fn twin_seen(h: &fakes::Harness, agent: &str) -> (usize, String, String) {
    let scope = Some(pb::Scope {
        project_id: "p1".into(),
        agent_id: agent.into(),
        conversation_id: String::new(),
    });
    let token = || fakes::token("member", Some(agent), "p1");
    let listed = h
        .discovery
        .list_packages(
            token(),
            pb::ListPackagesRequest {
                scope: scope.clone(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let twins: Vec<_> = listed
        .packages
        .iter()
        .filter(|p| p.name == "wasm-pkg")
        .collect();
    let skill = twins
        .first()
        .and_then(|p| p.files.iter().find(|f| f.path.ends_with("SKILL.md")))
        .map(|f| f.activation_id.clone())
        .unwrap();
    let body = h
        .discovery
        .activate_skill(
            token(),
            pb::ActivateSkillRequest {
                scope,
                skill_id: skill,
            },
        )
        .await
        .unwrap()
        .body;
    let tools = tools_of(h, Some(agent), &[]).await;
    let described = tools.tools.iter().map(|t| t.description.clone()).collect();
    (twins.len(), body, described)
}

/// Issue 27: one package id in two flagged sources is decided per caller. A caller
/// within only one source's scope gets that one; a caller within both gets the
/// narrower scope's (agent before user before project). Never both, never the one
/// whose scope does not reach the caller.
#[tokio::test]
async fn one_package_id_in_two_sources_is_the_narrowest_reaching_sources_for_each_caller() {
    let (shared, mine) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let catalog = Arc::new(WithSourcePackages::new(
        Arc::new(LoadedCatalog::empty()),
        any_root(),
    ));
    let h = harness_with(catalog).await;
    let sources = [
        ("a-shared", shared.path(), "Project build.", None),
        (
            "b-mine",
            mine.path(),
            "Agent build.",
            Some(neuralis_access::SourceScope {
                scope: neuralis_access::Scope::Agent,
                owner: "a1".into(),
            }),
        ),
    ];
    for (id, dir, body, scope) in sources {
        let tree = twin(body);
        let tree: Vec<(&str, &str)> = tree.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
        write_tree(dir, &tree);
        h.index
            .local_roots
            .lock()
            .unwrap()
            .insert(id.into(), dir.to_path_buf());
        h.index.recognizing.lock().unwrap().insert(id.into());
        if let Some(scope) = scope {
            h.index.scopes.lock().unwrap().insert(id.into(), scope);
        }
        for (path, content) in &tree {
            h.index.put(id, path, content);
        }
    }
    let (count, body, tools) = twin_seen(&h, "a1").await;
    assert_eq!(count, 1, "listed once");
    assert!(body.contains("Agent build."), "{body}");
    assert_eq!(tools, "Agent build.");
    // Attacker: another agent never gets a1's package, its body nor its tool.
    let (count, body, tools) = twin_seen(&h, "a2").await;
    assert_eq!(count, 1, "listed once");
    assert!(body.contains("Project build."), "{body}");
    assert_eq!(tools, "Project build.");
}

/// A recognized package's files are its source's rows under the package directory,
/// read through the index's decided read (the same in split mode): here a file only
/// its manifest declares (an inline `files` entry).
#[tokio::test]
async fn a_recognized_packages_file_is_read_as_its_sources_row_under_the_package_directory() {
    let tree: &[(&str, &str)] = &[
        (
            "wasm-pkg/package.json",
            r#"{"name": "wasm-pkg", "version": "1.0.0", "neuralis": {"id": "wasm-pkg", "files": [
                {"id": "review", "category": "skill", "path": "legacy/review.md", "description": "Reviews"}]}}"#,
        ),
        ("wasm-pkg/legacy/review.md", "Read the diff first.\n"),
    ];
    let dir = tempfile::tempdir().unwrap();
    write_tree(dir.path(), tree);
    let catalog = Arc::new(WithSourcePackages::new(
        Arc::new(LoadedCatalog::empty()),
        any_root(),
    ));
    let h = harness_with(catalog).await;
    let index = &h.index;
    index
        .local_roots
        .lock()
        .unwrap()
        .insert("repo".into(), dir.path().to_path_buf());
    index.recognizing.lock().unwrap().insert("repo".into());
    for (path, content) in tree {
        index.put("repo", path, content);
    }
    let scope = Some(pb::Scope {
        project_id: "p1".into(),
        agent_id: String::new(),
        conversation_id: String::new(),
    });
    let listed = h
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
    let skill = listed
        .packages
        .iter()
        .flat_map(|p| &p.files)
        .find(|f| f.path == "legacy/review.md")
        .map(|f| f.activation_id.clone())
        .unwrap_or_else(|| panic!("{listed:?}"));
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
    assert!(
        activated.body.contains("Read the diff first."),
        "{activated:?}"
    );
}

/// No sync beside these tests: every root is taken as given.
fn any_root() -> RootGate {
    Arc::new(|_: &str, root: &std::path::Path| Some(root.to_path_buf()))
}
