//! Seed 002, a tool's `requires.features`: a tool gated by features its caller lacks is
//! absent from `ListTools` and claims no contested name; seed 001, "a purely declarative
//! package can ship nothing but tool schemas": an installed package whose markdown is
//! all gated still answers its ungated tools. Decided by the real access model.

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use fakes::{FakeIndex, behind_gate, good, token_with_features};
use neuralis_access::{AccessSnapshot, Caller, Evaluation, EvaluationRequest};
use neuralis_bus::{InProcessBus, InvalidationBus};
use neuralis_catalog::{Catalog, Extras, ReadLimits, Roots};
use neuralis_discovery::adapters::LoadedCatalog;
use neuralis_discovery::inventory::InventoryShell;
use neuralis_discovery::ports::AccessPort;
use neuralis_discovery::service::DiscoveryParts;
use neuralis_discovery::{
    CallerToken, Discovery, DiscoveryApi, DiscoveryError, DiscoverySettings, InProcessDiscovery,
};
use neuralis_proto::discovery::v1 as pb;

const GATED: &str = "x.gated";

const ZONE: &[(&str, &str)] = &[
    // Its claim on `shared` needs a feature.
    (
        "aa-gated/package.json",
        r#"{"name": "aa-gated", "neuralis": {}}"#,
    ),
    (
        "aa-gated/tools/shared.json",
        r#"{"name": "shared", "description": "From aa-gated", "inputSchema": {"type": "object"}, "requires": {"features": ["x.gated"]}}"#,
    ),
    // Markdown all gated; one open tool, one gated.
    (
        "mm-mixed/package.json",
        r#"{"name": "mm-mixed", "neuralis": {}}"#,
    ),
    (
        "mm-mixed/skills/secret/SKILL.md",
        "---\nname: secret\nrequiredFeatures: [x.gated]\n---\nbody\n",
    ),
    (
        "mm-mixed/tools/open.json",
        r#"{"name": "mm_open", "description": "Open", "inputSchema": {"type": "object"}}"#,
    ),
    (
        "mm-mixed/tools/closed.json",
        r#"{"name": "mm_closed", "description": "Closed", "inputSchema": {"type": "object"}, "requires": {"features": ["x.gated"]}}"#,
    ),
    // An ungated claimant of `shared`.
    (
        "zz-open/package.json",
        r#"{"name": "zz-open", "neuralis": {}}"#,
    ),
    (
        "zz-open/tools/shared.json",
        r#"{"name": "shared", "description": "From zz-open", "inputSchema": {"type": "object"}}"#,
    ),
];

/// Decides with the pure access model: no source, no role grant, features from the token.
struct RealAccess;

#[async_trait]
impl AccessPort for RealAccess {
    async fn evaluate(
        &self,
        caller: &Caller,
        _: Option<&str>,
        request: &EvaluationRequest,
    ) -> Result<Evaluation, DiscoveryError> {
        neuralis_access::evaluate(caller, &AccessSnapshot::default(), request)
            .map_err(|e| DiscoveryError::Internal(e.to_string()))
    }
}

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

async fn discovery(zone: &Path) -> InProcessDiscovery {
    let bus = InProcessBus::default();
    let settings = DiscoverySettings::default();
    let inventory = InventoryShell::new(settings.inventory.settings());
    inventory.attach(bus.subscribe().await.unwrap());
    behind_gate(Discovery::new(DiscoveryParts {
        index: Arc::new(FakeIndex::default()),
        access: Arc::new(RealAccess),
        catalog: catalog(zone),
        inventory,
        settings,
    }))
}

async fn tools(discovery: &InProcessDiscovery, caller: CallerToken) -> pb::ListToolsResponse {
    let scope = Some(pb::Scope {
        project_id: "p1".into(),
        agent_id: String::new(),
        conversation_id: String::new(),
    });
    discovery
        .list_tools(
            caller,
            pb::ListToolsRequest {
                scope,
                ..Default::default()
            },
        )
        .await
        .unwrap()
}

fn answering(tools: &pb::ListToolsResponse) -> Vec<(&str, &str)> {
    tools
        .tools
        .iter()
        .map(|t| (t.name.as_str(), t.package_id.as_str()))
        .collect()
}

#[tokio::test]
async fn a_tool_gated_by_a_feature_the_caller_lacks_is_absent_and_wins_no_contested_name() {
    let zone = tempfile::tempdir().unwrap();
    let discovery = discovery(zone.path()).await;
    let without = tools(&discovery, good()).await;
    assert_eq!(
        answering(&without),
        [("mm_open", "mm-mixed"), ("shared", "zz-open")],
        "the gated tools are absent; the ungated claimant answers `shared`"
    );
    assert!(
        without.contested.is_empty(),
        "a gated claimant does not contest a name: {:?}",
        without.contested
    );
    let holder = token_with_features("ada", "member", None, "p1", &[GATED]);
    let with = tools(&discovery, holder).await;
    assert_eq!(
        answering(&with),
        [
            ("mm_closed", "mm-mixed"),
            ("mm_open", "mm-mixed"),
            ("shared", "aa-gated"),
        ],
        "a holder of the feature gets every tool; the smaller id wins `shared`"
    );
    let shared = with.contested.iter().find(|c| c.name == "shared").unwrap();
    assert_eq!(shared.claimants, ["aa-gated", "zz-open"]);
}

#[tokio::test]
async fn an_installed_package_whose_markdown_is_all_gated_keeps_its_ungated_tools() {
    let zone = tempfile::tempdir().unwrap();
    let discovery = discovery(zone.path()).await;
    let without = tools(&discovery, good()).await;
    assert!(
        answering(&without).contains(&("mm_open", "mm-mixed")),
        "mm-mixed's open tool answers although its only skill is gated: {:?}",
        answering(&without)
    );
}
