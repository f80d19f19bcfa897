//! One conformance suite, run on both backends: every case below runs once on the
//! embedded store (a temporary SQLite file) and once on PostgreSQL (a fresh schema).

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use neuralis_access::{
    AccessSnapshot, Capabilities, Grantor, PathRule, RoleGrants, SourceRecord, UriPolicy,
};
use neuralis_access_store::testing::{Backend, with_store};
use neuralis_access_store::{
    AccessStore, ConversationRecord, FileRef, OverrideTarget, SnapshotQuery, StoreConfig,
    StoreError,
};

type Store = Arc<dyn AccessStore>;

macro_rules! conformance {
    ($($case:ident),* $(,)?) => {
        mod embedded {
            $( #[tokio::test] async fn $case() { super::with_store(super::Backend::Embedded, |s, _| super::$case(s)).await } )*
        }
        mod postgres {
            $( #[tokio::test] async fn $case() { super::with_store(super::Backend::Postgres, |s, _| super::$case(s)).await } )*
        }
    };
}

conformance!(
    an_unknown_source_is_absent,
    a_policy_reads_back_as_written_and_a_new_source_starts_enabled,
    the_source_switch_is_kept_apart_from_the_policy,
    no_edit_removes_a_persisted_floor,
    concurrent_edits_lose_no_floor,
    role_grants_add_up_across_grantors_and_replace_per_grantor,
    role_grants_of_a_project_add_to_those_of_every_project_and_reach_no_other,
    package_states_are_per_project,
    file_overrides_are_set_replaced_and_cleared_per_scope,
    a_delegate_chain_reads_child_first_to_depth_three,
    a_conversation_reads_back_with_its_project,
    a_lineage_never_changes_and_needs_a_registered_parent_in_the_project,
    the_same_conversation_id_in_two_projects_names_two_conversations,
);

#[tokio::test]
async fn migrations_run_again_without_harm_embedded() {
    with_store(Backend::Embedded, migrations_run_again_without_harm).await
}

#[tokio::test]
async fn migrations_run_again_without_harm_postgres() {
    with_store(Backend::Postgres, migrations_run_again_without_harm).await
}

fn query(sources: &[&str]) -> SnapshotQuery {
    SnapshotQuery {
        project: "p1".into(),
        role: "member".into(),
        agent: Some("a1".into()),
        conversation: None,
        source_ids: sources.iter().map(|s| s.to_string()).collect(),
    }
}

fn read_all() -> UriPolicy {
    UriPolicy {
        hide_flagged_files: false,
        default: Capabilities {
            read: true,
            ..Capabilities::default()
        },
        paths: vec![],
    }
}

fn floor(pattern: &str) -> PathRule {
    PathRule {
        read: Some(false),
        floor: true,
        ..PathRule::new(pattern)
    }
}

fn file(path: &str) -> FileRef {
    FileRef {
        package_key: "repo/.claude".into(),
        path: path.into(),
    }
}

async fn snapshot(store: &Store, query: SnapshotQuery) -> AccessSnapshot {
    store.snapshot(&query).await.unwrap()
}

async fn an_unknown_source_is_absent(store: Store) {
    assert_eq!(store.source("nope").await.unwrap(), None);
    assert!(snapshot(&store, query(&["nope"])).await.sources.is_empty());
}

async fn a_policy_reads_back_as_written_and_a_new_source_starts_enabled(store: Store) {
    let policy = UriPolicy {
        paths: vec![PathRule {
            read: Some(false),
            roles: vec!["guest".into()],
            ..PathRule::new("docs/**")
        }],
        ..read_all()
    };
    assert_eq!(
        store.put_source_policy("repo", &policy).await.unwrap(),
        policy
    );
    let expected = SourceRecord {
        enabled: true,
        policy: Some(policy),
    };
    assert_eq!(store.source("repo").await.unwrap(), Some(expected.clone()));
    let read = snapshot(&store, query(&["repo", "other"])).await;
    assert_eq!(read.sources.len(), 1);
    assert_eq!(read.sources.get("repo"), Some(&expected));
}

async fn the_source_switch_is_kept_apart_from_the_policy(store: Store) {
    store.set_source_enabled("repo", false).await.unwrap();
    assert_eq!(
        store.source("repo").await.unwrap(),
        Some(SourceRecord {
            enabled: false,
            policy: None
        })
    );
    store.put_source_policy("repo", &read_all()).await.unwrap();
    assert_eq!(
        store.source("repo").await.unwrap(),
        Some(SourceRecord {
            enabled: false,
            policy: Some(read_all())
        })
    );
    store.set_source_enabled("repo", true).await.unwrap();
    assert!(store.source("repo").await.unwrap().unwrap().enabled);
}

async fn no_edit_removes_a_persisted_floor(store: Store) {
    let with_floor = UriPolicy {
        paths: vec![floor("secret/**")],
        ..read_all()
    };
    store.put_source_policy("repo", &with_floor).await.unwrap();
    let stored = store.put_source_policy("repo", &read_all()).await.unwrap();
    assert_eq!(stored.paths, vec![floor("secret/**")]);
    let read = store.source("repo").await.unwrap().unwrap().policy.unwrap();
    assert_eq!(read.paths, vec![floor("secret/**")]);
}

async fn concurrent_edits_lose_no_floor(store: Store) {
    let writes = (0..8).map(|at| {
        let store = store.clone();
        tokio::spawn(async move {
            let policy = UriPolicy {
                paths: vec![floor(&format!("secret{at}/**"))],
                ..read_all()
            };
            store.put_source_policy("repo", &policy).await.unwrap();
        })
    });
    for write in writes.collect::<Vec<_>>() {
        write.await.unwrap();
    }
    let stored = store.source("repo").await.unwrap().unwrap().policy.unwrap();
    let mut patterns: Vec<&str> = stored
        .paths
        .iter()
        .map(|rule| rule.pattern.as_str())
        .collect();
    patterns.sort();
    assert_eq!(
        patterns,
        (0..8)
            .map(|at| format!("secret{at}/**"))
            .collect::<Vec<_>>()
    );
}

fn grants(grantor: Grantor, roles: &[(&str, &[&str])]) -> RoleGrants {
    let roles: BTreeMap<String, _> = roles
        .iter()
        .map(|(role, features)| {
            (
                role.to_string(),
                features.iter().map(|f| f.to_string()).collect(),
            )
        })
        .collect();
    RoleGrants { grantor, roles }
}

async fn role_grants_add_up_across_grantors_and_replace_per_grantor(store: Store) {
    let package = Grantor::Package("reports".into());
    store
        .put_role_grants(
            None,
            &grants(
                package.clone(),
                &[("member", &["reports.read"]), ("admin", &["reports.write"])],
            ),
        )
        .await
        .unwrap();
    store
        .put_role_grants(
            None,
            &grants(
                Grantor::Administrator,
                &[("member", &["deploy.run", "reports.read"])],
            ),
        )
        .await
        .unwrap();
    let features = |s: AccessSnapshot| s.role_features.into_iter().collect::<Vec<_>>();
    assert_eq!(
        features(snapshot(&store, query(&[])).await),
        vec!["deploy.run", "reports.read"]
    );
    // Revoking the administrator's grant leaves the package's default grant only.
    store
        .put_role_grants(None, &grants(Grantor::Administrator, &[]))
        .await
        .unwrap();
    assert_eq!(
        features(snapshot(&store, query(&[])).await),
        vec!["reports.read"]
    );
    store
        .put_role_grants(None, &grants(package, &[("admin", &["reports.write"])]))
        .await
        .unwrap();
    assert!(features(snapshot(&store, query(&[])).await).is_empty());
}

async fn role_grants_of_a_project_add_to_those_of_every_project_and_reach_no_other(store: Store) {
    let admin = || Grantor::Administrator;
    store
        .put_role_grants(Some("p1"), &grants(admin(), &[("member", &["p1.only"])]))
        .await
        .unwrap();
    store
        .put_role_grants(Some("p2"), &grants(admin(), &[("member", &["p2.only"])]))
        .await
        .unwrap();
    store
        .put_role_grants(None, &grants(admin(), &[("member", &["everywhere"])]))
        .await
        .unwrap();
    let features = |s: AccessSnapshot| s.role_features.into_iter().collect::<Vec<_>>();
    let in_project = |project: &str| SnapshotQuery {
        project: project.into(),
        ..query(&[])
    };
    assert_eq!(
        features(snapshot(&store, in_project("p1")).await),
        vec!["everywhere", "p1.only"]
    );
    assert_eq!(
        features(snapshot(&store, in_project("p3")).await),
        vec!["everywhere"]
    );
    // Replacing a grantor's grants in one project leaves the others' and every project's.
    store
        .put_role_grants(Some("p1"), &grants(admin(), &[]))
        .await
        .unwrap();
    assert_eq!(
        features(snapshot(&store, in_project("p1")).await),
        vec!["everywhere"]
    );
    assert_eq!(
        features(snapshot(&store, in_project("p2")).await),
        vec!["everywhere", "p2.only"]
    );
}

async fn package_states_are_per_project(store: Store) {
    store
        .set_package_enabled("p1", "repo/.claude", false)
        .await
        .unwrap();
    store
        .set_package_enabled("p2", "repo/.claude", true)
        .await
        .unwrap();
    let read = snapshot(&store, query(&[])).await;
    assert!(!read.package_enabled("repo/.claude"));
    assert!(read.package_enabled("repo/other"));
    store
        .set_package_enabled("p1", "repo/.claude", true)
        .await
        .unwrap();
    assert!(
        snapshot(&store, query(&[]))
            .await
            .package_enabled("repo/.claude")
    );
}

async fn file_overrides_are_set_replaced_and_cleared_per_scope(store: Store) {
    let agent = OverrideTarget::Agent("a1".into());
    let conversation = OverrideTarget::Conversation {
        project: "p1".into(),
        id: "c1".into(),
    };
    store
        .set_file_override(&agent, &file("rules/a.md"), Some(true))
        .await
        .unwrap();
    store
        .set_file_override(&agent, &file("rules/a.md"), Some(false))
        .await
        .unwrap();
    store
        .set_file_override(&agent, &file("rules/b.md"), Some(true))
        .await
        .unwrap();
    store
        .set_file_override(
            &OverrideTarget::Agent("a2".into()),
            &file("rules/c.md"),
            Some(true),
        )
        .await
        .unwrap();
    store
        .set_file_override(&conversation, &file("rules/b.md"), Some(false))
        .await
        .unwrap();
    store
        .set_file_override(&agent, &file("rules/b.md"), None)
        .await
        .unwrap();
    let read = snapshot(
        &store,
        SnapshotQuery {
            conversation: Some("c1".into()),
            ..query(&[])
        },
    )
    .await;
    assert_eq!(
        read.agent_overrides.get("repo/.claude", "rules/a.md"),
        Some(false)
    );
    assert_eq!(read.agent_overrides.get("repo/.claude", "rules/b.md"), None);
    assert_eq!(
        read.agent_overrides.get("repo/.claude", "rules/c.md"),
        None,
        "another agent's override"
    );
    // An unregistered conversation still reads its own overrides.
    assert_eq!(read.conversation_chain.len(), 1);
    assert_eq!(
        read.conversation_chain[0].get("repo/.claude", "rules/b.md"),
        Some(false)
    );
    let no_agent = snapshot(
        &store,
        SnapshotQuery {
            agent: None,
            ..query(&[])
        },
    )
    .await;
    assert!(no_agent.agent_overrides.is_empty() && no_agent.conversation_chain.is_empty());
}

async fn a_conversation_reads_back_with_its_project(store: Store) {
    store
        .register_conversation(&conversation("root", None))
        .await
        .unwrap();
    store
        .register_conversation(&conversation("child", Some("root")))
        .await
        .unwrap();
    assert_eq!(
        store.conversation("p1", "child").await.unwrap(),
        Some(conversation("child", Some("root")))
    );
    assert_eq!(store.conversation("p1", "ghost").await.unwrap(), None);
    assert_eq!(
        store.conversation("p2", "child").await.unwrap(),
        None,
        "another project's id names no conversation here"
    );
}

fn conversation(id: &str, parent: Option<&str>) -> ConversationRecord {
    ConversationRecord {
        conversation: id.into(),
        project: "p1".into(),
        parent: parent.map(String::from),
    }
}

async fn a_delegate_chain_reads_child_first_to_depth_three(store: Store) {
    store
        .register_conversation(&conversation("root", None))
        .await
        .unwrap();
    store
        .register_conversation(&conversation("child", Some("root")))
        .await
        .unwrap();
    store
        .register_conversation(&conversation("grandchild", Some("child")))
        .await
        .unwrap();
    store
        .register_conversation(&conversation("sibling", Some("root")))
        .await
        .unwrap();
    let set = |id: &str, path: &str, on: bool| {
        let store = store.clone();
        let (id, path) = (id.to_owned(), path.to_owned());
        async move {
            store
                .set_file_override(
                    &OverrideTarget::Conversation {
                        project: "p1".into(),
                        id,
                    },
                    &file(&path),
                    Some(on),
                )
                .await
                .unwrap()
        }
    };
    set("root", "rules/a.md", true).await;
    set("child", "rules/a.md", false).await;
    set("grandchild", "rules/b.md", true).await;
    set("sibling", "rules/c.md", true).await;
    let read = snapshot(
        &store,
        SnapshotQuery {
            conversation: Some("grandchild".into()),
            ..query(&[])
        },
    )
    .await;
    assert_eq!(read.conversation_chain.len(), 3);
    assert_eq!(
        read.conversation_chain[0].get("repo/.claude", "rules/b.md"),
        Some(true)
    );
    assert_eq!(
        read.conversation_chain[1].get("repo/.claude", "rules/a.md"),
        Some(false)
    );
    assert_eq!(
        read.conversation_chain[2].get("repo/.claude", "rules/a.md"),
        Some(true)
    );
    assert!(
        read.conversation_chain
            .iter()
            .all(|level| level.get("repo/.claude", "rules/c.md").is_none()),
        "a sibling's override"
    );
}

async fn a_lineage_never_changes_and_needs_a_registered_parent_in_the_project(store: Store) {
    let unknown_parent = store
        .register_conversation(&conversation("c1", Some("ghost")))
        .await;
    assert_eq!(
        unknown_parent,
        Err(StoreError::NotFound("parent conversation"))
    );
    store
        .register_conversation(&conversation("root", None))
        .await
        .unwrap();
    store
        .register_conversation(&conversation("c1", Some("root")))
        .await
        .unwrap();
    store
        .register_conversation(&conversation("c1", Some("root")))
        .await
        .unwrap();
    // A parent registered only in another project is as unknown as one never registered.
    let foreign_parent = store
        .register_conversation(&ConversationRecord {
            project: "p2".into(),
            ..conversation("c2", Some("root"))
        })
        .await;
    assert_eq!(foreign_parent, unknown_parent);
    let cases = [
        conversation("c1", None),
        conversation("root", Some("c1")),
        conversation("root", Some("root")),
    ];
    for record in cases {
        let result = store.register_conversation(&record).await;
        assert!(
            matches!(
                result,
                Err(StoreError::Conflict {
                    field: "parent",
                    ..
                })
            ),
            "{record:?}: {result:?}"
        );
    }
}

/// A restart, or a second replica, opens the same store again: migrations already ran.
async fn migrations_run_again_without_harm(store: Store, config: StoreConfig) {
    store.put_source_policy("repo", &read_all()).await.unwrap();
    let again = neuralis_access_store::open(&config).await.unwrap();
    assert_eq!(
        again.source("repo").await.unwrap(),
        store.source("repo").await.unwrap()
    );
}

async fn the_same_conversation_id_in_two_projects_names_two_conversations(store: Store) {
    for project in ["p1", "p2"] {
        store
            .register_conversation(&ConversationRecord {
                project: project.into(),
                ..conversation("c1", None)
            })
            .await
            .unwrap();
    }
    // Each project registers its own child under its own "c1", with different lineages
    // of the same id: neither conflicts with the other.
    store
        .register_conversation(&conversation("child", Some("c1")))
        .await
        .unwrap();
    store
        .register_conversation(&ConversationRecord {
            project: "p2".into(),
            ..conversation("child", None)
        })
        .await
        .unwrap();
    store
        .set_file_override(
            &OverrideTarget::Conversation {
                project: "p1".into(),
                id: "c1".into(),
            },
            &file("rules/a.md"),
            Some(false),
        )
        .await
        .unwrap();
    let in_project = |project: &str, id: &str| SnapshotQuery {
        project: project.into(),
        conversation: Some(id.into()),
        ..query(&[])
    };
    let own = snapshot(&store, in_project("p1", "child")).await;
    assert_eq!(
        own.conversation_chain
            .iter()
            .find_map(|level| level.get("repo/.claude", "rules/a.md")),
        Some(false),
        "the parent's override reaches its child in the same project"
    );
    for (project, id) in [("p2", "c1"), ("p2", "child")] {
        let other = snapshot(&store, in_project(project, id)).await;
        assert!(
            other
                .conversation_chain
                .iter()
                .all(|level| level.get("repo/.claude", "rules/a.md").is_none()),
            "{project}/{id} reads no override of p1's conversation"
        );
    }
}
