//! Seed 000, "What is deliberately not loaded": a package a flagged source holds is a
//! package "like the _packages/ drop-zone", so its tools are advertised like an
//! installed package's, to callers within the source's scope alone.

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::sync::Arc;

use fakes::harness_with;
use fakes::package_sources::{tools_of, write_tree};
use neuralis_discovery::adapters::LoadedCatalog;
use neuralis_discovery::adapters::source_packages::{RootGate, WithSourcePackages};
use neuralis_proto::discovery::v1 as pb;

/// A package source's tree whose package offers two tools, one gated by a feature, and
/// claims the name `deploy` an installed package claims too.
const TOOLED: &[(&str, &str)] = &[
    (
        "wasm-pkg/package.json",
        r#"{"name": "wasm-pkg", "version": "1.0.0", "neuralis": {"id": "wasm-pkg", "tools": [
            {"name": "wasm_build", "description": "Builds.", "inputSchema": {"type": "object"}},
            {"name": "wasm_secret", "description": "Gated.", "inputSchema": {"type": "object"},
             "requires": {"features": ["x.vault"]}},
            {"name": "deploy", "description": "Recognized deploy.", "inputSchema": {"type": "object"}}
        ]}}"#,
    ),
    (
        "wasm-pkg/skills/build/SKILL.md",
        "---\nname: build\n---\nBuild.\n",
    ),
];

/// An installed catalog holding `zz-installed`, which claims `deploy`.
fn installed_claiming_deploy(zone: &std::path::Path) -> Arc<LoadedCatalog> {
    let manifest = r#"{"name": "zz-installed", "version": "1.0.0", "neuralis": {"id": "zz-installed",
        "tools": [{"name": "deploy", "description": "Installed deploy.", "inputSchema": {"type": "object"}}]}}"#;
    write_tree(zone, &[("zz-installed/package.json", manifest)]);
    let roots = neuralis_catalog::Roots {
        dependency_tree: None,
        drop_zone: Some(zone.to_path_buf()),
        trusted_dirs: Vec::new(),
    };
    let catalog = neuralis_catalog::Catalog::load(
        &roots,
        neuralis_catalog::ReadLimits::default(),
        &neuralis_catalog::Extras::default(),
    )
    .unwrap();
    Arc::new(LoadedCatalog::new(catalog, &roots))
}

/// The harness with the `TOOLED` tree as source `repo` (flagged), scoped `scope`.
async fn tooled(
    dir: &std::path::Path,
    zone: &std::path::Path,
    scope: Option<neuralis_access::SourceScope>,
) -> fakes::Harness {
    write_tree(dir, TOOLED);
    let installed = installed_claiming_deploy(zone);
    let h = harness_with(Arc::new(WithSourcePackages::new(installed, any_root()))).await;
    h.access
        .gate_features
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let index = &h.index;
    index
        .local_roots
        .lock()
        .unwrap()
        .insert("repo".into(), dir.to_path_buf());
    index.recognizing.lock().unwrap().insert("repo".into());
    if let Some(scope) = scope {
        index.scopes.lock().unwrap().insert("repo".into(), scope);
    }
    for (path, content) in TOOLED {
        index.put("repo", path, content);
    }
    h
}

fn owners(answer: &pb::ListToolsResponse) -> Vec<(String, String)> {
    answer
        .tools
        .iter()
        .map(|t| (t.name.clone(), t.package_id.clone()))
        .collect()
}

/// Seed 000: a recognized package is a package source's package "like the _packages/
/// drop-zone": its tools are advertised like an installed package's, each gated by its
/// own `requires.features`, a contested name decided by the one tool-name rule.
#[tokio::test]
async fn a_recognized_packages_tools_are_listed_like_an_installed_packages() {
    let (dir, zone) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let h = tooled(dir.path(), zone.path(), None).await;
    let plain = tools_of(&h, None, &[]).await;
    let pair = |n: &str, p: &str| (n.to_owned(), p.to_owned());
    // Both untrusted: the lexically-smaller id owns `deploy`.
    assert_eq!(
        owners(&plain),
        [pair("deploy", "wasm-pkg"), pair("wasm_build", "wasm-pkg")],
        "the gated tool is absent without its feature"
    );
    let deploy = plain.contested.iter().find(|c| c.name == "deploy").unwrap();
    assert_eq!(deploy.claimants, ["wasm-pkg", "zz-installed"]);
    assert_eq!(deploy.owner, "wasm-pkg");
    let holder = tools_of(&h, None, &["x.vault"]).await;
    assert!(owners(&holder).contains(&pair("wasm_secret", "wasm-pkg")));
}

/// Attacker: another agent of the project lists tools. An agent-scoped source's package
/// contributes "to that user or agent alone": neither its tools nor its id reach the
/// other agent, not even as a claimant of a contested name.
#[tokio::test]
async fn an_agent_scoped_sources_package_tools_reach_that_agent_alone() {
    let (dir, zone) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let scope = neuralis_access::SourceScope {
        scope: neuralis_access::Scope::Agent,
        owner: "a1".into(),
    };
    let h = tooled(dir.path(), zone.path(), Some(scope)).await;
    let own = tools_of(&h, Some("a1"), &[]).await;
    assert!(owners(&own).contains(&("wasm_build".to_owned(), "wasm-pkg".to_owned())));
    for other in [Some("a2"), None] {
        let answer = tools_of(&h, other, &["x.vault"]).await;
        let text = format!("{answer:?}");
        assert!(!text.contains("wasm"), "{other:?} sees {text}");
        assert_eq!(
            owners(&answer),
            [("deploy".to_owned(), "zz-installed".to_owned())],
            "the installed claimant answers the name alone"
        );
        assert!(answer.contested.is_empty(), "{answer:?}");
    }
}

/// No sync beside these tests: every root is taken as given.
fn any_root() -> RootGate {
    Arc::new(|_: &str, root: &std::path::Path| Some(root.to_path_buf()))
}
