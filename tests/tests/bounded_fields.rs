//! Issue 25, "bounded work per call", against real servers in both shapes: megabyte
//! ids, slugs, roots, patterns, keys and page tokens, and a hundred thousand patterns,
//! are refused INVALID_ARGUMENT naming the field before any work, each refusal under
//! 1 KB on the wire.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_proto::sync::v1 as sync;
use neuralis_tests::fixture::{read_policy, scope};
use neuralis_tests::refusal::{PROJECT as P, channel, check, create, refusal, request, spec};
use neuralis_tests::{Cluster, Mode};

use discovery::discovery_service_client::DiscoveryServiceClient;
use policy::policy_service_client::PolicyServiceClient;
use sync::source_service_client::SourceServiceClient;

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const MB: usize = 1024 * 1024;

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

in_both_modes!(megabyte_ids_paths_and_tokens_are_refused_naming_the_field);

async fn megabyte_ids_paths_and_tokens_are_refused_naming_the_field(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let platform = cluster.platform_token("root", "owner");
    let member = cluster.token("ada", "member", None, P);
    let mut sources = SourceServiceClient::new(channel(cluster.addrs["sync"]));
    let mut policies = PolicyServiceClient::new(channel(cluster.addrs["policy"]));
    let mut packages = DiscoveryServiceClient::new(channel(cluster.addrs["discovery"]));
    let huge = "a".repeat(MB);
    let huge_path = format!("/{}", "a/".repeat(MB / 2));
    let good_root = tempfile::tempdir().unwrap();
    let good_root = good_root.path().display().to_string();
    let source_id = format!("{P}/repo.0000000000000000");
    let with = |edit: fn(&mut sync::SourceSpec, &str), value: &str| {
        let mut spec = spec(&good_root);
        edit(&mut spec, value);
        create(spec)
    };
    let scoped = |project: &str, agent: &str, conversation: &str| discovery::ListPackagesRequest {
        scope: scope(project, agent, conversation),
        ..Default::default()
    };
    let rule = |pattern: &str| policy::PutSourcePolicyRequest {
        source_id: source_id.clone(),
        policy: Some(read_policy(vec![policy::PathRule {
            pattern: pattern.into(),
            read: Some(true),
            ..Default::default()
        }])),
    };
    let cases = vec![
        (
            "sync: a megabyte project",
            refusal(
                sources
                    .create_source(request(with(|s, v| s.project = v.into(), &huge), &admin))
                    .await,
            ),
            "source.project",
        ),
        (
            "sync: a megabyte slug",
            refusal(
                sources
                    .create_source(request(with(|s, v| s.slug = v.into(), &huge), &admin))
                    .await,
            ),
            "source.slug",
        ),
        (
            "sync: a megabyte root",
            refusal(
                sources
                    .create_source(request(with(|s, v| s.root = v.into(), &huge_path), &admin))
                    .await,
            ),
            "source.root",
        ),
        (
            "sync: a megabyte owner",
            refusal(
                sources
                    .create_source(request(
                        with(
                            |s, v| {
                                s.scope = common::SourceScope::Agent as i32;
                                s.owner = v.into();
                            },
                            &huge,
                        ),
                        &admin,
                    ))
                    .await,
            ),
            "source.owner",
        ),
        (
            "sync: a megabyte trigger",
            refusal(
                sources
                    .create_source(request(with(|s, v| s.trigger = v.into(), &huge), &admin))
                    .await,
            ),
            "source.trigger",
        ),
        (
            "sync: a megabyte privacy pattern",
            refusal(
                sources
                    .create_source(request(
                        with(
                            |s, v| {
                                s.kind = sync::SourceKind::Data as i32;
                                s.privacy_patterns = vec![format!("{v}/{{agent}}/**")];
                            },
                            &huge,
                        ),
                        &admin,
                    ))
                    .await,
            ),
            "source.privacy_patterns[0]",
        ),
        (
            "sync: a hundred thousand privacy patterns",
            refusal(
                sources
                    .create_source(request(
                        with(
                            |s, _| {
                                s.kind = sync::SourceKind::Data as i32;
                                s.privacy_patterns = vec!["{agent}/**".into(); 100_000];
                            },
                            "",
                        ),
                        &admin,
                    ))
                    .await,
            ),
            "source.privacy_patterns",
        ),
        (
            "sync: a megabyte slug looked up",
            refusal(
                sources
                    .get_source(request(
                        sync::GetSourceRequest {
                            project: P.into(),
                            slug: huge.clone(),
                        },
                        &admin,
                    ))
                    .await,
            ),
            "slug",
        ),
        (
            "sync: a megabyte page token",
            refusal(
                sources
                    .list_sources(request(
                        sync::ListSourcesRequest {
                            project: P.into(),
                            page_size: 1,
                            page_token: huge.clone(),
                        },
                        &admin,
                    ))
                    .await,
            ),
            "page_token",
        ),
        (
            "policy: a megabyte source id",
            refusal(
                policies
                    .get_source_policy(request(
                        policy::GetSourcePolicyRequest {
                            source_id: format!("{P}/{huge}"),
                        },
                        &admin,
                    ))
                    .await,
            ),
            "source_id",
        ),
        (
            "policy: a megabyte path rule",
            refusal(
                policies
                    .put_source_policy(request(rule(&huge), &admin))
                    .await,
            ),
            "policy.paths[0].pattern",
        ),
        (
            "policy: a megabyte package key",
            refusal(
                policies
                    .set_package_enabled(request(
                        policy::SetPackageEnabledRequest {
                            project_id: P.into(),
                            package_key: huge.clone(),
                            enabled: false,
                            reset: false,
                        },
                        &admin,
                    ))
                    .await,
            ),
            "package_key",
        ),
        (
            "policy: a megabyte agent id",
            refusal(
                policies
                    .set_file_override(request(
                        policy::SetFileOverrideRequest {
                            scope: policy::OverrideScope::Agent as i32,
                            owner_id: huge.clone(),
                            package_key: "k".into(),
                            file_path: "SKILL.md".into(),
                            state: policy::OverrideState::On as i32,
                            project_id: String::new(),
                        },
                        &platform,
                    ))
                    .await,
            ),
            "owner_id",
        ),
        (
            "policy: a megabyte feature",
            refusal(
                policies
                    .put_role_grants(request(
                        policy::PutRoleGrantsRequest {
                            grantor: policy::GrantorKind::Administrator as i32,
                            grants: vec![policy::RoleGrant {
                                role: "member".into(),
                                features: vec![huge.clone()],
                                revoked: Vec::new(),
                            }],
                            ..Default::default()
                        },
                        &platform,
                    ))
                    .await,
            ),
            "grants[0].features[0]",
        ),
        (
            "discovery: a megabyte project",
            refusal(
                packages
                    .list_packages(request(scoped(&huge, "", ""), &member))
                    .await,
            ),
            "scope.project_id",
        ),
        (
            "discovery: a megabyte agent id",
            refusal(
                packages
                    .list_packages(request(scoped(P, &huge, ""), &member))
                    .await,
            ),
            "scope.agent_id",
        ),
        (
            "discovery: a megabyte page token",
            refusal(
                packages
                    .list_packages(request(
                        discovery::ListPackagesRequest {
                            scope: scope(P, "", ""),
                            page_size: 1,
                            page_token: huge.clone(),
                        },
                        &member,
                    ))
                    .await,
            ),
            "page_token",
        ),
        (
            "discovery: a megabyte skill id",
            refusal(
                packages
                    .activate_skill(request(
                        discovery::ActivateSkillRequest {
                            scope: scope(P, "", ""),
                            skill_id: huge.clone(),
                        },
                        &member,
                    ))
                    .await,
            ),
            "skill_id",
        ),
        (
            "discovery: a megabyte path to read",
            refusal(
                packages
                    .read_file(request(
                        discovery::ReadFileRequest {
                            scope: scope(P, "", ""),
                            source_slug: "repo".into(),
                            package_id: String::new(),
                            path: huge_path.clone(),
                        },
                        &member,
                    ))
                    .await,
            ),
            "path",
        ),
        (
            "discovery: a megabyte file path to validate",
            refusal(
                packages
                    .validate_package(request(
                        discovery::ValidatePackageRequest {
                            files: vec![discovery::PackageFileContent {
                                path: huge.clone(),
                                content: Vec::new(),
                            }],
                            trust: 0,
                        },
                        &member,
                    ))
                    .await,
            ),
            "files[0].path",
        ),
    ];
    check(cases);
    cluster.stop().await.unwrap();
}
