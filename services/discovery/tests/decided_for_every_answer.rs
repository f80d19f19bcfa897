//! Issue 9, "Done when": for random trees, privacy patterns, policies and callers, no
//! answer of any discovery call (ListPackages, the overview, ActivateSkill, Hydrate,
//! ReadFile, Search, bundle lists included) names or returns a file the caller's policy
//! denies, one private to another agent, or an in-root symlink to either. Decisions
//! come from the real access model.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

mod fakes;

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use fakes::{FakeIndex, behind_gate, token};
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

/// Decides with the pure access model over the source's policy.
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

const AGENTS: [&str; 2] = ["a1", "a2"];

/// One contribution of the random tree.
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    /// 0 skill, 1 docs, 2 instruction, 3 agent.
    kind: u8,
    denied: bool,
    /// Lies under `agents/<owner>/` (private when the source's pattern is on).
    owner: Option<usize>,
    /// Skills: extra bundle files, each (name, denied).
    bundle: Vec<(String, bool)>,
    /// A symlink to the entry at this index (mod the tree's size), when that one is
    /// not a link itself: its content is the target's, its real path the target's path.
    link: Option<usize>,
}

fn name() -> impl Strategy<Value = String> {
    "[a-z]{10}".prop_map(|n| format!("zq{n}"))
}

fn entry() -> impl Strategy<Value = Entry> {
    (
        name(),
        0u8..4,
        prop::bool::weighted(0.3),
        prop::option::weighted(0.4, 0usize..2),
        prop::collection::vec((name(), prop::bool::weighted(0.3)), 0..3),
        prop::option::weighted(0.25, 0usize..8),
    )
        .prop_map(|(name, kind, denied, owner, bundle, link)| Entry {
            name,
            kind,
            denied,
            owner,
            bundle,
            link,
        })
}

fn base(entry: &Entry) -> String {
    match entry.owner {
        Some(agent) => format!("agents/{}/.claude", AGENTS[agent]),
        None => ".claude".into(),
    }
}

fn path(entry: &Entry) -> String {
    let (base, name) = (base(entry), &entry.name);
    match entry.kind {
        0 => format!("{base}/skills/{name}/SKILL.md"),
        1 => format!("{base}/docs/{name}.md"),
        2 => format!("{base}/instructions/{name}.md"),
        _ => format!("{base}/agents/{name}.md"),
    }
}

fn bundle_path(entry: &Entry, file: &str) -> String {
    format!("{}/skills/{}/scripts/{file}.sh", base(entry), entry.name)
}

/// The case: a tree, whether the source marks `agents/{agent}/**` private, the caller.
#[derive(Debug, Clone)]
struct Case {
    entries: Vec<Entry>,
    private_pattern: bool,
    caller_agent: Option<usize>,
}

impl Case {
    /// Whether `entry` is another agent's for this caller.
    fn foreign(&self, entry: &Entry) -> bool {
        self.private_pattern && entry.owner.is_some() && entry.owner != self.caller_agent
    }

    /// The entry `entry` is a symlink to, if it is one (a link to a link, or to
    /// itself, is not made).
    fn target(&self, entry: &Entry) -> Option<&Entry> {
        let target = &self.entries[entry.link? % self.entries.len()];
        (target.link.is_none() && !std::ptr::eq(target, entry)).then_some(target)
    }

    /// Whether the caller may not see `entry`: denied or another agent's, under its
    /// path or, for a link, its real path.
    fn hidden(&self, entry: &Entry) -> bool {
        let own = entry.denied || self.foreign(entry);
        own || self
            .target(entry)
            .is_some_and(|target| target.denied || self.foreign(target))
    }

    /// Every name the caller must never be shown, with its path.
    fn forbidden(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for entry in &self.entries {
            let hidden = self.hidden(entry);
            if hidden {
                out.push((entry.name.clone(), path(entry)));
            }
            for (file, denied) in &entry.bundle {
                if hidden || *denied {
                    out.push((file.clone(), bundle_path(entry, file)));
                }
            }
        }
        out
    }
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(entry(), 1..8),
        any::<bool>(),
        prop::option::of(0usize..2),
    )
        .prop_map(|(entries, private_pattern, caller_agent)| Case {
            entries,
            private_pattern,
            caller_agent,
        })
}

/// Every answer of every call, as text, and the paths ReadFile served.
async fn exercise(case: &Case) -> (String, Vec<String>) {
    let index = Arc::new(FakeIndex::default());
    let mut rules = Vec::new();
    let mut deny = |path: String| {
        rules.push(PathRule {
            read: Some(false),
            ..PathRule::new(path)
        })
    };
    let mut paths = Vec::new();
    for entry in &case.entries {
        // A link's bytes are its target's (sync reads through it); its path is its own.
        let named = case.target(entry).unwrap_or(entry);
        let content = format!(
            "---\nname: {}\n---\nzqall body of {}\n",
            named.name, named.name
        );
        index.put("repo", &path(entry), &content);
        paths.push(path(entry));
        if entry.denied {
            deny(path(entry));
        }
        if let Some(target) = case.target(entry) {
            index
                .aliases
                .lock()
                .unwrap()
                .insert(("repo".into(), path(entry)), path(target));
            continue; // a linked file, no bundle of its own
        }
        if entry.kind != 0 {
            continue;
        }
        for (file, denied) in &entry.bundle {
            let at = bundle_path(entry, file);
            index.put("repo", &at, &format!("zqall script {file}\n"));
            paths.push(at.clone());
            if *denied {
                deny(at);
            }
        }
    }
    if case.private_pattern {
        index
            .privacy
            .lock()
            .unwrap()
            .insert("repo".into(), vec!["agents/{agent}/**".into()]);
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
    let agent = case.caller_agent.map(|a| AGENTS[a]);
    let caller = || token("member", agent, "p1");
    let scope = Some(pb::Scope {
        project_id: "p1".into(),
        agent_id: agent.unwrap_or_default().into(),
        conversation_id: String::new(),
    });
    let mut out = String::new();
    let listed = discovery
        .list_packages(
            caller(),
            pb::ListPackagesRequest {
                scope: scope.clone(),
                ..Default::default()
            },
        )
        .await;
    out.push_str(&format!("{listed:?}"));
    let overview = discovery
        .render_overview(
            caller(),
            pb::RenderOverviewRequest {
                scope: scope.clone(),
                ..Default::default()
            },
        )
        .await;
    out.push_str(&format!("{overview:?}"));
    let hydrate = pb::HydrateRequest {
        scope: scope.clone(),
        budget_bytes: 0,
    };
    out.push_str(&format!("{:?}", discovery.hydrate(caller(), hydrate).await));
    let search = pb::SearchRequest {
        scope: scope.clone(),
        query: "zqall".into(),
        limit: 100,
    };
    out.push_str(&format!("{:?}", discovery.search(caller(), search).await));
    for entry in &case.entries {
        let request = pb::ActivateSkillRequest {
            scope: scope.clone(),
            skill_id: entry.name.clone(),
        };
        out.push_str(&format!(
            "{:?}",
            discovery.activate_skill(caller(), request).await
        ));
    }
    let mut served = Vec::new();
    for path in paths {
        let request = pb::ReadFileRequest {
            scope: scope.clone(),
            source_slug: "repo".into(),
            package_id: String::new(),
            path: path.clone(),
        };
        match discovery.read_file(caller(), request).await {
            Ok(file) => {
                out.push_str(&format!("{file:?}"));
                served.push(path);
            }
            Err(error) => assert_eq!(error, DiscoveryError::NotFound, "{path}"),
        }
    }
    (out, served)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn no_discovery_answer_names_or_returns_a_denied_or_another_agents_file(case in case()) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (answers, served) = runtime.block_on(exercise(&case));
        for (name, path) in case.forbidden() {
            prop_assert!(!answers.contains(&name), "an answer names {} ({})", name, path);
            prop_assert!(!served.contains(&path), "ReadFile served {}", path);
        }
        // The check can fail: a shown docs file is served and named. (A link to another
        // entry is an alias of a file that loads at its real path, so it contributes
        // nothing itself: issue 27, one load per real file.)
        let shown = case
            .entries
            .iter()
            .find(|e| !case.hidden(e) && e.kind == 1 && case.target(e).is_none());
        if let Some(doc) = shown {
            prop_assert!(answers.contains(&doc.name));
            prop_assert!(served.contains(&path(doc)));
        }
    }
}
