//! "A denied subtree's package is simply absent — no placeholder entry, no leaked file
//! names": for random trees and policies, no answer, error or log line of a caller
//! carries a name its policy denies. Decisions come from the real access model.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

mod fakes;

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use fakes::{FakeIndex, behind_gate, good};
use neuralis_access::{
    AccessSnapshot, Caller, Capabilities, Evaluation, EvaluationRequest, PathRule, SourceRecord,
    UriPolicy,
};
use neuralis_bus::{InProcessBus, InvalidationBus};
use neuralis_discovery::inventory::InventoryShell;
use neuralis_discovery::ports::{AccessPort, EmptyCatalog};
use neuralis_discovery::service::DiscoveryParts;
use neuralis_discovery::{Discovery, DiscoveryApi, DiscoveryError, DiscoverySettings};
use neuralis_proto::discovery::v1 as pb;
use proptest::prelude::*;

/// Decides with the pure access model over one source's policy.
struct RealAccess {
    policy: UriPolicy,
}

#[async_trait]
impl AccessPort for RealAccess {
    async fn evaluate(
        &self,
        caller: &Caller,
        _: Option<&str>,
        request: &EvaluationRequest,
    ) -> Result<Evaluation, DiscoveryError> {
        let record = SourceRecord {
            enabled: true,
            policy: Some(self.policy.clone()),
        };
        let snapshot = AccessSnapshot {
            sources: HashMap::from([("repo".to_owned(), record)]),
            ..Default::default()
        };
        neuralis_access::evaluate(caller, &snapshot, request)
            .map_err(|e| DiscoveryError::Internal(e.to_string()))
    }
}

/// Every log line of the test, as text.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[derive(Debug, Clone)]
struct Entry {
    name: String,
    kind: u8,
    denied: bool,
}

fn entry() -> impl Strategy<Value = Entry> {
    ("[a-z]{10}", 0u8..3, any::<bool>()).prop_map(|(name, kind, denied)| Entry {
        name: format!("zq{name}"),
        kind,
        denied,
    })
}

fn path(entry: &Entry) -> String {
    match entry.kind {
        0 => format!(".claude/skills/{}/SKILL.md", entry.name),
        1 => format!(".claude/rules/{}.md", entry.name),
        _ => format!(".claude/docs/{}.md", entry.name),
    }
}

async fn exercise(entries: &[Entry], deny_root: bool) -> String {
    let index = Arc::new(FakeIndex::default());
    let mut rules = Vec::new();
    for entry in entries {
        index.put(
            "repo",
            &path(entry),
            &format!("---\nname: {}\n---\nbody of {}\n", entry.name, entry.name),
        );
        if entry.denied {
            rules.push(PathRule {
                read: Some(false),
                ..PathRule::new(path(entry))
            });
        }
    }
    if deny_root {
        rules.push(PathRule {
            read: Some(false),
            ..PathRule::new(".claude")
        });
    }
    let policy = UriPolicy {
        hide_flagged_files: false,
        default: Capabilities {
            read: true,
            write: false,
            exec: false,
        },
        paths: rules,
    };
    let bus = InProcessBus::default();
    let settings = DiscoverySettings::default();
    let inventory = InventoryShell::new(settings.inventory.settings());
    inventory.attach(bus.subscribe().await.unwrap());
    let discovery = behind_gate(Discovery::new(DiscoveryParts {
        index,
        access: Arc::new(RealAccess { policy }),
        catalog: Arc::new(EmptyCatalog),
        inventory,
        settings,
    }));
    let scope = Some(pb::Scope {
        project_id: "p1".into(),
        agent_id: String::new(),
        conversation_id: String::new(),
    });
    let mut out = String::new();
    let listed = discovery
        .list_packages(
            good(),
            pb::ListPackagesRequest {
                scope: scope.clone(),
                ..Default::default()
            },
        )
        .await;
    out.push_str(&format!("{listed:?}"));
    let overview = discovery
        .render_overview(
            good(),
            pb::RenderOverviewRequest {
                scope: scope.clone(),
                ..Default::default()
            },
        )
        .await;
    out.push_str(&format!("{overview:?}"));
    let hydrated = discovery
        .hydrate(
            good(),
            pb::HydrateRequest {
                scope: scope.clone(),
                budget_bytes: 0,
            },
        )
        .await;
    out.push_str(&format!("{hydrated:?}"));
    for entry in entries {
        let request = pb::ActivateSkillRequest {
            scope: scope.clone(),
            skill_id: entry.name.clone(),
        };
        let activated = discovery.activate_skill(good(), request).await;
        if entry.denied || deny_root {
            assert_eq!(activated, Err(DiscoveryError::NotFound));
        }
        out.push_str(&format!("{activated:?}"));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn no_answer_error_or_log_line_names_a_denied_file(
        entries in prop::collection::vec(entry(), 1..10),
        deny_root in prop::bool::weighted(0.2),
    ) {
        let logs = Captured::default();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer({ let logs = logs.clone(); move || logs.clone() })
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let answers = runtime.block_on(exercise(&entries, deny_root));
        let logs = String::from_utf8_lossy(&logs.0.lock().unwrap()).into_owned();
        for entry in &entries {
            let denied = entry.denied || deny_root;
            if denied {
                prop_assert!(!answers.contains(&entry.name), "answer leaks {}", entry.name);
                prop_assert!(!logs.contains(&entry.name), "log leaks {}", entry.name);
            }
        }
        // The check can fail: a visible entry does show up.
        if let Some(visible) = entries.iter().find(|e| !e.denied && !deny_root && e.kind != 1) {
            prop_assert!(answers.contains(&visible.name));
        }
    }
}
