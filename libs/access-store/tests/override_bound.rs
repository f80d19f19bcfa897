//! A conversation holds at most `MAX_CONVERSATION_OVERRIDES` file overrides (any caller
//! of its project may set them, and every evaluation in it reads them), on both
//! backends, and concurrent writers cannot pass the bound together.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use neuralis_access::FileOverrides;
use neuralis_access_store::testing::{Backend, with_store};
use neuralis_access_store::{
    AccessStore, FileRef, MAX_CONVERSATION_OVERRIDES, OverrideTarget, SnapshotQuery, StoreError,
};

type Store = Arc<dyn AccessStore>;

#[tokio::test]
async fn a_conversation_holds_at_most_the_bound_of_file_overrides_embedded() {
    with_store(Backend::Embedded, |s, _| {
        a_conversation_holds_at_most_the_bound_of_file_overrides(s)
    })
    .await
}

#[tokio::test]
async fn a_conversation_holds_at_most_the_bound_of_file_overrides_postgres() {
    with_store(Backend::Postgres, |s, _| {
        a_conversation_holds_at_most_the_bound_of_file_overrides(s)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_new_overrides_never_pass_the_bound_embedded() {
    with_store(Backend::Embedded, |s, _| {
        concurrent_new_overrides_never_pass_the_bound(s)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_new_overrides_never_pass_the_bound_postgres() {
    with_store(Backend::Postgres, |s, _| {
        concurrent_new_overrides_never_pass_the_bound(s)
    })
    .await
}

fn conversation(project: &str, id: &str) -> OverrideTarget {
    OverrideTarget::Conversation {
        project: project.into(),
        id: id.into(),
    }
}

fn file(path: &str) -> FileRef {
    FileRef {
        package_key: "repo/.claude".into(),
        path: path.into(),
    }
}

fn numbered(index: i64) -> FileRef {
    file(&format!("rules/r{index:04}.md"))
}

/// Fills conversation `c1` of `p1` with `count` overrides, r0000.md on.
async fn fill(store: &Store, count: i64) {
    for index in 0..count {
        store
            .set_file_override(&conversation("p1", "c1"), &numbered(index), Some(true))
            .await
            .unwrap();
    }
}

fn is_limit(result: &Result<(), StoreError>) -> bool {
    matches!(
        result,
        Err(StoreError::LimitReached { field: "file_path", message })
            if message.contains(&MAX_CONVERSATION_OVERRIDES.to_string())
    )
}

/// The overrides conversation `c1` of `p1` reads as its own.
async fn own_overrides(store: &Store) -> FileOverrides {
    let read = store
        .snapshot(&SnapshotQuery {
            project: "p1".into(),
            role: "member".into(),
            agent: None,
            conversation: Some("c1".into()),
            source_ids: Vec::new(),
        })
        .await
        .unwrap();
    read.conversation_chain.first().cloned().unwrap_or_default()
}

/// How many overrides conversation `c1` of `p1` reads, and the state of `path`.
async fn held(store: &Store, path: &str) -> (usize, Option<bool>) {
    let own = own_overrides(store).await;
    let count = (0..=MAX_CONVERSATION_OVERRIDES)
        .filter(|&index| own.get("repo/.claude", &numbered(index).path).is_some())
        .count()
        + usize::from(own.get("repo/.claude", "rules/new.md").is_some());
    (count, own.get("repo/.claude", path))
}

async fn a_conversation_holds_at_most_the_bound_of_file_overrides(store: Store) {
    let bound = usize::try_from(MAX_CONVERSATION_OVERRIDES).unwrap();
    fill(&store, MAX_CONVERSATION_OVERRIDES).await;
    let c1 = conversation("p1", "c1");
    // The attacker's call: one more file, on or off, is refused and stores nothing.
    for state in [Some(true), Some(false)] {
        let refused = store
            .set_file_override(&c1, &file("rules/new.md"), state)
            .await;
        assert!(is_limit(&refused), "{refused:?}");
    }
    assert_eq!(held(&store, "rules/new.md").await, (bound, None));
    // A held override still changes; the same file under another package is new.
    store
        .set_file_override(&c1, &numbered(0), Some(false))
        .await
        .unwrap();
    assert_eq!(held(&store, &numbered(0).path).await, (bound, Some(false)));
    let other_package = FileRef {
        package_key: "repo/.cursor".into(),
        path: numbered(0).path,
    };
    assert!(is_limit(
        &store
            .set_file_override(&c1, &other_package, Some(true))
            .await
    ));
    // The bound is per conversation: the same id in another project, another
    // conversation, and an agent are not at it.
    for target in [
        conversation("p2", "c1"),
        conversation("p1", "c2"),
        OverrideTarget::Agent("a1".into()),
    ] {
        store
            .set_file_override(&target, &file("rules/new.md"), Some(true))
            .await
            .unwrap();
    }
    // Clearing makes room for one new override, and only one.
    store
        .set_file_override(&c1, &numbered(1), None)
        .await
        .unwrap();
    store
        .set_file_override(&c1, &file("rules/new.md"), Some(true))
        .await
        .unwrap();
    assert_eq!(held(&store, "rules/new.md").await, (bound, Some(true)));
    assert!(is_limit(
        &store.set_file_override(&c1, &numbered(1), Some(true)).await
    ));
}

async fn concurrent_new_overrides_never_pass_the_bound(store: Store) {
    let bound = usize::try_from(MAX_CONVERSATION_OVERRIDES).unwrap();
    fill(&store, MAX_CONVERSATION_OVERRIDES - 1).await;
    let writers: Vec<_> = (0..8)
        .map(|writer| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let path = format!("rules/late{writer}.md");
                store
                    .set_file_override(&conversation("p1", "c1"), &file(&path), Some(true))
                    .await
            })
        })
        .collect();
    let mut stored = 0;
    for writer in writers {
        let result = writer.await.unwrap();
        if result.is_ok() {
            stored += 1;
        } else {
            assert!(is_limit(&result), "{result:?}");
        }
    }
    assert_eq!(stored, 1, "exactly one writer fits under the bound");
    let own = own_overrides(&store).await;
    let late = (0..8)
        .filter(|writer| {
            own.get("repo/.claude", &format!("rules/late{writer}.md"))
                .is_some()
        })
        .count();
    assert_eq!(late, 1);
    assert_eq!(held(&store, "rules/r0000.md").await.0 + late, bound);
}
