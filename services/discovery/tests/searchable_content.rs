//! Seed 000: every indexed file is searchable content, each decided for the caller by
//! the real access model: a feature-gated file answers only a holder of its features,
//! a file under a denied path answers nobody (issue 27).

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use fakes::{FakeIndex, behind_gate, good, token_with_features};
use neuralis_access::{
    AccessSnapshot, Caller, Capabilities, Evaluation, EvaluationRequest, PathRule, SourceRecord,
    UriPolicy,
};
use neuralis_bus::{InProcessBus, InvalidationBus};
use neuralis_discovery::inventory::InventoryShell;
use neuralis_discovery::ports::{AccessPort, EmptyCatalog};
use neuralis_discovery::service::DiscoveryParts;
use neuralis_discovery::{
    CallerToken, Discovery, DiscoveryApi, DiscoveryError, DiscoverySettings, InProcessDiscovery,
};
use neuralis_proto::discovery::v1 as pb;

/// Decides with the pure access model over the source `repo`: everything readable but
/// `ops/`.
struct RealAccess;

#[async_trait]
impl AccessPort for RealAccess {
    async fn evaluate(
        &self,
        caller: &Caller,
        _: Option<&str>,
        request: &EvaluationRequest,
    ) -> Result<Evaluation, DiscoveryError> {
        let policy = UriPolicy {
            hide_flagged_files: false,
            default: Capabilities {
                read: true,
                write: false,
                exec: false,
            },
            paths: vec![PathRule {
                read: Some(false),
                ..PathRule::new("ops")
            }],
        };
        let record = SourceRecord {
            enabled: true,
            policy: Some(policy),
        };
        let snapshot = AccessSnapshot {
            sources: HashMap::from([("repo".to_owned(), record)]),
            ..Default::default()
        };
        neuralis_access::evaluate(caller, &snapshot, request)
            .map_err(|e| DiscoveryError::Internal(e.to_string()))
    }
}

const GATED: &str = "---\nname: gated\nrequiredFeatures: [x.gated]\n---\nzqgatedterm\n";
/// A plain persona (no id or name): searchable, never listed, gated all the same.
const PLAIN: &str = "---\nrequiredFeatures: [x.gated]\n---\nzqgatedterm\n";

async fn discovery() -> InProcessDiscovery {
    let index = Arc::new(FakeIndex::default());
    index.put("repo", ".claude/skills/gated/SKILL.md", GATED);
    index.put("repo", ".claude/agents/plain.md", PLAIN);
    index.put("repo", "ops/keys.txt", "zqdeniedterm\n");
    index.put("repo", "README.md", "zqopenterm\n");
    let bus = InProcessBus::default();
    let settings = DiscoverySettings::default();
    let inventory = InventoryShell::new(settings.inventory.settings());
    inventory.attach(bus.subscribe().await.unwrap());
    behind_gate(Discovery::new(DiscoveryParts {
        index,
        access: Arc::new(RealAccess),
        catalog: Arc::new(EmptyCatalog),
        inventory,
        settings,
    }))
}

async fn hits(discovery: &InProcessDiscovery, caller: CallerToken, query: &str) -> Vec<String> {
    let request = pb::SearchRequest {
        scope: Some(pb::Scope {
            project_id: "p1".into(),
            agent_id: String::new(),
            conversation_id: String::new(),
        }),
        query: query.into(),
        limit: 0,
    };
    let answer = discovery.search(caller, request).await.unwrap();
    let mut paths: Vec<String> = answer.hits.into_iter().map(|hit| hit.path).collect();
    paths.sort();
    paths
}

#[tokio::test]
async fn a_feature_gated_file_is_searchable_only_by_a_holder_of_its_features() {
    let discovery = discovery().await;
    assert_eq!(
        hits(&discovery, good(), "zqgatedterm").await,
        Vec::<String>::new()
    );
    let holder = token_with_features("ada", "member", None, "p1", &["x.gated"]);
    assert_eq!(
        hits(&discovery, holder, "zqgatedterm").await,
        [".claude/agents/plain.md", ".claude/skills/gated/SKILL.md"]
    );
}

#[tokio::test]
async fn a_member_searching_a_term_only_under_a_denied_path_gets_nothing() {
    let discovery = discovery().await;
    assert_eq!(
        hits(&discovery, good(), "zqdeniedterm").await,
        Vec::<String>::new()
    );
    assert_eq!(hits(&discovery, good(), "zqopenterm").await, ["README.md"]);
}
