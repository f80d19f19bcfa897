//! Sources that cannot leak the server, end to end in both shapes (DESIGN.md section 5):
//! a recreated source is a new source, and roots over what the server keeps are refused.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use neuralis_proto::common::v1 as common;
use neuralis_proto::sync::v1 as sync;
use neuralis_sync::{BearerToken, SyncError};
use neuralis_tests::fixture::{self, REPO, put_policy, read_policy, register, scope, visible};
use neuralis_tests::{Cluster, Mode};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";

macro_rules! in_both_modes {
    ($($rule:ident),* $(,)?) => {$(
        mod $rule {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn all_in_one() {
                super::$rule(super::Mode::AllInOne).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn split() {
                super::$rule(super::Mode::Split).await;
            }
        }
    )*};
}

in_both_modes!(
    a_recreated_source_contributes_nothing_until_its_policy_is_put,
    a_root_of_slash_etc_or_the_data_directory_is_refused,
);

fn spec(slug: &str, root: &str) -> sync::SourceSpec {
    sync::SourceSpec {
        project: P.into(),
        slug: slug.into(),
        kind: sync::SourceKind::Local as i32,
        root: root.into(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        ..Default::default()
    }
}

async fn a_recreated_source_contributes_nothing_until_its_policy_is_put(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", Some("a1"), P);
    let repo = tempfile::tempdir().unwrap();
    fixture::write_tree(repo.path(), REPO).unwrap();
    let root = repo.path().to_owned();
    let first = register(&cluster, &admin, P, "repo", &root, read_policy(vec![]))
        .await
        .expect("register");
    let seen = visible(&cluster, &member, scope(P, "a1", ""))
        .await
        .unwrap();
    assert!(!seen.is_empty(), "the first source contributes");

    let caller = BearerToken::new(Some(admin.clone()));
    let request = sync::DeleteSourceRequest {
        project: P.into(),
        slug: "repo".into(),
    };
    cluster
        .sources
        .delete_source(&caller, request)
        .await
        .unwrap();
    let created = cluster
        .sources
        .create_source(
            &caller,
            sync::CreateSourceRequest {
                source: Some(spec("repo", &root.display().to_string())),
            },
        )
        .await
        .unwrap();
    let second = created.source.map(|s| s.id).unwrap_or_default();
    assert_ne!(first, second, "ids are never reused");
    fixture::resync(&cluster, &admin, P, "repo").await.unwrap();
    let seen = visible(&cluster, &member, scope(P, "a1", ""))
        .await
        .unwrap();
    assert!(
        seen.is_empty(),
        "nothing before its policy is put: {seen:?}"
    );

    put_policy(&cluster, &admin, P, "repo", read_policy(vec![]))
        .await
        .unwrap();
    let seen = visible(&cluster, &member, scope(P, "a1", ""))
        .await
        .unwrap();
    assert!(!seen.is_empty(), "its own policy opens it");
    cluster.stop().await.unwrap();
}

async fn a_root_of_slash_etc_or_the_data_directory_is_refused(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let caller = BearerToken::new(Some(admin));
    let data = cluster.data_dir("sync");
    let data_text = data.display().to_string();
    let parent = data.parent().unwrap().display().to_string();
    for root in ["/", "/etc", "/etc/x", &data_text, &parent] {
        let request = sync::CreateSourceRequest {
            source: Some(spec("leak", root)),
        };
        match cluster.sources.create_source(&caller, request).await {
            Err(SyncError::InvalidArgument { field, message }) => {
                assert_eq!(field, "source.root", "{root}");
                assert!(!message.contains(&data_text), "{root}: {message}");
            }
            other => panic!("{root}: {other:?}"),
        }
    }
    cluster.stop().await.unwrap();
}
