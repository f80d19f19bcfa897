//! Issue 25, "bounded work per call", against real servers in both shapes: NUL and
//! control characters in roots, path rules and privacy patterns are refused (`/etc\0`
//! passed the refused-roots rule as text); unknown enum values are refused, not read as
//! the widest scope; and a refusal of a 10,000-character root stays under 1 KB on the
//! wire (message and details), so no client meets its metadata limit instead.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_proto::sync::v1 as sync;
use neuralis_tests::fixture::read_policy;
use neuralis_tests::refusal::{
    PROJECT as P, channel, check, create, refusal, request, spec, wire_bytes,
};
use neuralis_tests::{Cluster, Mode};

use discovery::discovery_service_client::DiscoveryServiceClient;
use policy::policy_service_client::PolicyServiceClient;
use sync::source_service_client::SourceServiceClient;

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");

macro_rules! in_both_modes {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn all_in_one() {
                super::$scenario(super::Mode::AllInOne).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn split() {
                super::$scenario(super::Mode::Split).await;
            }
        }
    )*};
}

in_both_modes!(
    nul_roots_and_path_rules_are_refused,
    unknown_enum_values_are_refused,
    a_ten_thousand_character_root_gives_an_error_under_one_kilobyte,
);

async fn nul_roots_and_path_rules_are_refused(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let mut sources = SourceServiceClient::new(channel(cluster.addrs["sync"]));
    let mut policies = PolicyServiceClient::new(channel(cluster.addrs["policy"]));
    let dir = tempfile::tempdir().unwrap();
    let good_root = dir.path().display().to_string();
    let created = sources
        .create_source(request(create(spec(&good_root)), &admin))
        .await
        .expect("a good source")
        .into_inner();
    let source_id = created.source.unwrap().id;
    let put = |pattern: &str| policy::PutSourcePolicyRequest {
        source_id: source_id.clone(),
        policy: Some(read_policy(vec![policy::PathRule {
            pattern: pattern.into(),
            read: Some(false),
            ..Default::default()
        }])),
    };
    let mut data = spec(&good_root);
    data.slug = "data".into();
    data.kind = sync::SourceKind::Data as i32;
    data.privacy_patterns = vec!["agents/{agent}/\0/**".into()];
    let mut moved = spec(&format!("{good_root}/\0"));
    moved.slug = "repo".into();
    let mut etc = spec("/etc\0");
    etc.slug = "etc".into();
    let cases = vec![
        (
            "sync: /etc with a NUL",
            refusal(sources.create_source(request(create(etc), &admin)).await),
            "source.root",
        ),
        (
            "sync: an update to a root with a NUL",
            refusal(
                sources
                    .update_source(request(
                        sync::UpdateSourceRequest {
                            source: Some(moved),
                        },
                        &admin,
                    ))
                    .await,
            ),
            "source.root",
        ),
        (
            "sync: a privacy pattern with a NUL",
            refusal(sources.create_source(request(create(data), &admin)).await),
            "source.privacy_patterns[0]",
        ),
        (
            "policy: a path rule with a NUL",
            refusal(
                policies
                    .put_source_policy(request(put("docs/\0secret.md"), &admin))
                    .await,
            ),
            "policy.paths[0].pattern",
        ),
        (
            "policy: a path rule with a newline",
            refusal(
                policies
                    .put_source_policy(request(put("docs/\nsecret.md"), &admin))
                    .await,
            ),
            "policy.paths[0].pattern",
        ),
    ];
    check(cases);
    // The good source is still the one stored, and still syncs.
    let stored = sources
        .get_source(request(
            sync::GetSourceRequest {
                project: P.into(),
                slug: "repo".into(),
            },
            &admin,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(stored.source.unwrap().spec.unwrap().root, good_root);
    cluster.stop().await.unwrap();
}

// === unknown enum values ===

async fn unknown_enum_values_are_refused(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", None, P);
    let mut sources = SourceServiceClient::new(channel(cluster.addrs["sync"]));
    let mut packages = DiscoveryServiceClient::new(channel(cluster.addrs["discovery"]));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().display().to_string();
    let mut scoped = spec(&root);
    scoped.scope = 99;
    scoped.owner = "agent-1".into();
    let mut unscoped = spec(&root);
    unscoped.scope = 7;
    let mut kind = spec(&root);
    kind.kind = 42;
    let package = |trust: i32| discovery::ValidatePackageRequest {
        files: vec![discovery::PackageFileContent {
            path: "package.json".into(),
            content: br#"{"name": "p", "neuralis": {}}"#.to_vec(),
        }],
        trust,
    };
    let cases = vec![
        (
            "sync: an unknown scope with an owner",
            refusal(sources.create_source(request(create(scoped), &admin)).await),
            "source.scope",
        ),
        (
            "sync: an unknown scope (once read as project, the widest)",
            refusal(
                sources
                    .create_source(request(create(unscoped), &admin))
                    .await,
            ),
            "source.scope",
        ),
        (
            "sync: an unknown kind",
            refusal(sources.create_source(request(create(kind), &admin)).await),
            "source.kind",
        ),
        (
            "discovery: an unknown trust",
            refusal(
                packages
                    .validate_package(request(package(9), &member))
                    .await,
            ),
            "trust",
        ),
    ];
    check(cases);
    let listed = sources
        .list_sources(request(
            sync::ListSourcesRequest {
                project: P.into(),
                ..Default::default()
            },
            &admin,
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(
        listed.sources.is_empty(),
        "nothing was stored: {:?}",
        listed.sources
    );
    cluster.stop().await.unwrap();
}

// === bounded errors ===

async fn a_ten_thousand_character_root_gives_an_error_under_one_kilobyte(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let mut sources = SourceServiceClient::new(channel(cluster.addrs["sync"]));
    let mut policies = PolicyServiceClient::new(channel(cluster.addrs["policy"]));
    let long_root = format!("/{}", "a".repeat(9_999));
    let status = refusal(
        sources
            .create_source(request(create(spec(&long_root)), &admin))
            .await,
    );
    eprintln!(
        "{mode:?}: {} bytes on the wire: {}",
        wire_bytes(&status),
        status.message()
    );
    // A control sequence in a field a message might echo is refused, not quoted.
    let escape = refusal(
        policies
            .set_package_enabled(request(
                policy::SetPackageEnabledRequest {
                    project_id: format!("{P}\u{1b}[31m"),
                    package_key: "k".into(),
                    enabled: true,
                    reset: false,
                },
                &admin,
            ))
            .await,
    );
    check(vec![
        ("sync: a 10,000-character root", status, "source.root"),
        (
            "policy: a project with an escape sequence",
            escape,
            "project_id",
        ),
    ]);
    cluster.stop().await.unwrap();
}
