//! Issue 25, "bounded work per call", against real servers in both shapes: a member's
//! `ValidatePackage` calls full of YAML bombs leave another project answered and health
//! SERVING; megabyte ids, paths and page tokens are refused naming the field before any
//! work; NUL roots and path rules are refused; unknown enum values are refused (not read
//! as the widest scope); and a refusal quoting a 10,000-character root stays under 1 KB
//! on the wire (message and details), so no client meets its metadata limit instead.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::time::{Duration, Instant};

use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_proto::sync::v1 as sync;
use neuralis_tests::fixture::{self, REPO, read_policy, register, scope};
use neuralis_tests::{Cluster, Mode};
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_types::StatusExt;

use discovery::discovery_service_client::DiscoveryServiceClient;
use policy::policy_service_client::PolicyServiceClient;
use sync::source_service_client::SourceServiceClient;

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";
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

in_both_modes!(
    two_validate_package_floods_of_yaml_bombs_leave_another_project_answered,
    megabyte_ids_paths_and_tokens_are_refused_naming_the_field,
    nul_roots_and_path_rules_are_refused,
    unknown_enum_values_are_refused,
    a_ten_thousand_character_root_gives_an_error_under_one_kilobyte,
);

fn request<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    let value = format!("Bearer {token}").parse().unwrap();
    request.metadata_mut().insert("authorization", value);
    request
}

fn channel(cluster: &Cluster, service: &str) -> Channel {
    neuralis_tests::cluster::channel(cluster.addrs[service], None).unwrap()
}

/// What a status puts in the trailers: `grpc-message` and `grpc-status-details-bin`
/// (base64 of the encoded `google.rpc.Status`).
fn wire_bytes(status: &Status) -> usize {
    status.message().len() + status.details().len().div_ceil(3) * 4
}

/// The status of a call that must fail.
fn refusal<T>(result: Result<tonic::Response<T>, Status>) -> Status {
    match result {
        Ok(_) => Status::new(Code::Ok, "the call succeeded"),
        Err(status) => status,
    }
}

fn field_of(status: &Status) -> Option<String> {
    status
        .get_details_bad_request()
        .and_then(|bad| bad.field_violations.into_iter().next())
        .map(|violation| violation.field)
}

/// Every case refused INVALID_ARGUMENT naming its field, each answer under 1 KB.
fn check(cases: Vec<(&str, Status, &str)>) {
    let mut failures = Vec::new();
    for (name, status, field) in cases {
        let got = (status.code(), field_of(&status));
        if got != (Code::InvalidArgument, Some(field.to_owned())) {
            failures.push(format!("{name}: got {got:?} ({:.200}), want {field}", status.message()));
        }
        if wire_bytes(&status) >= 1024 {
            failures.push(format!("{name}: {} bytes on the wire", wire_bytes(&status)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn spec(root: &str) -> sync::SourceSpec {
    sync::SourceSpec {
        project: P.into(),
        slug: "repo".into(),
        kind: sync::SourceKind::Local as i32,
        root: root.into(),
        scope: sync::SourceScope::Project as i32,
        trigger: "manual".into(),
        ..Default::default()
    }
}

fn create(spec: sync::SourceSpec) -> sync::CreateSourceRequest {
    sync::CreateSourceRequest { source: Some(spec) }
}

// === YAML bombs in ValidatePackage ===

/// A `SKILL.md` whose frontmatter is a billion-laughs document (about 600 bytes).
fn bomb() -> Vec<u8> {
    let mut text = String::from("---\nname: bomb\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    text.push_str("---\nbody\n");
    text.into_bytes()
}

/// A package of a thousand bomb skills (within the file bound: the parse must be what
/// is bounded, not only the request).
fn bomb_package() -> discovery::ValidatePackageRequest {
    let mut files = vec![discovery::PackageFileContent {
        path: "package.json".into(),
        content: br#"{"name": "bomb", "version": "1.0.0", "neuralis": {}}"#.to_vec(),
    }];
    let content = bomb();
    files.extend((0..1000).map(|i| discovery::PackageFileContent {
        path: format!("skills/s{i}/SKILL.md"),
        content: content.clone(),
    }));
    discovery::ValidatePackageRequest {
        files,
        trust: discovery::Trust::Untrusted as i32,
    }
}

async fn health(channel: Channel) -> Result<ServingStatus, Code> {
    let check = HealthCheckRequest {
        service: String::new(),
    };
    match HealthClient::new(channel).check(check).await {
        Ok(response) => Ok(response.into_inner().status()),
        Err(status) => Err(status.code()),
    }
}

/// The issue's figure is "answered in under 1 s"; on two loaded CI cores running debug
/// builds the bound is 5 s (the measured figure is printed).
const VICTIM_BOUND: Duration = Duration::from_secs(5);

async fn two_validate_package_floods_of_yaml_bombs_leave_another_project_answered(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let victim_admin = cluster.token("ops", "owner", None, "victim");
    let dir = tempfile::tempdir().unwrap();
    fixture::write_tree(dir.path(), REPO).unwrap();
    register(&cluster, &victim_admin, "victim", "repo", dir.path(), read_policy(vec![]))
        .await
        .expect("register");
    let victim = cluster.token("vic", "member", None, "victim");
    let attacker = cluster.token("mallory", "member", None, "attacker");
    let floods: Vec<_> = (0..2)
        .map(|_| {
            let mut client = DiscoveryServiceClient::new(channel(&cluster, "discovery"))
                .max_decoding_message_size(64 * MB);
            let call = request(bomb_package(), &attacker);
            tokio::spawn(async move {
                let started = Instant::now();
                let answer = client.validate_package(call).await;
                (answer, started.elapsed())
            })
        })
        .collect();
    // Let both floods reach the server before the victim calls.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut slowest = Duration::ZERO;
    for _ in 0..3 {
        let started = Instant::now();
        let list = discovery::ListPackagesRequest {
            scope: scope("victim", "", ""),
            ..Default::default()
        };
        let listed = DiscoveryServiceClient::new(channel(&cluster, "discovery"))
            .list_packages(request(list, &victim))
            .await
            .expect("the victim's listing");
        assert!(!listed.into_inner().packages.is_empty());
        assert_eq!(
            health(channel(&cluster, "discovery")).await,
            Ok(ServingStatus::Serving)
        );
        slowest = slowest.max(started.elapsed());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut answers = Vec::new();
    let mut flood_times = Vec::new();
    for flood in floods {
        let (answer, took) = flood.await.unwrap();
        flood_times.push(took);
        answers.push(answer);
    }
    eprintln!(
        "{mode:?}: victim listing + health, slowest {slowest:?}; floods took {flood_times:?}"
    );
    assert!(slowest < VICTIM_BOUND, "the victim waited {slowest:?}");
    for answer in answers {
        match answer {
            // Shed when every validation slot was taken: the answer the issue asks for.
            Err(status) => assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}"),
            Ok(answer) => {
                let answer = answer.into_inner();
                let named = answer.warnings.iter().chain(&answer.errors).any(|issue| {
                    issue.location.starts_with("skills/s")
                        && issue.location.contains("/SKILL.md")
                        && issue.message.contains("alias replay limit")
                });
                assert!(named, "no issue names a bomb file: {:?}", answer.warnings.first());
            }
        }
    }
    cluster.stop().await.unwrap();
}

// === megabyte fields ===

async fn megabyte_ids_paths_and_tokens_are_refused_naming_the_field(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let platform = cluster.platform_token("root", "owner");
    let member = cluster.token("ada", "member", None, P);
    let mut sources = SourceServiceClient::new(channel(&cluster, "sync"));
    let mut policies = PolicyServiceClient::new(channel(&cluster, "policy"));
    let mut packages = DiscoveryServiceClient::new(channel(&cluster, "discovery"));
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
            refusal(sources.create_source(request(with(|s, v| s.project = v.into(), &huge), &admin)).await),
            "source.project",
        ),
        (
            "sync: a megabyte slug",
            refusal(sources.create_source(request(with(|s, v| s.slug = v.into(), &huge), &admin)).await),
            "source.slug",
        ),
        (
            "sync: a megabyte root",
            refusal(sources.create_source(request(with(|s, v| s.root = v.into(), &huge_path), &admin)).await),
            "source.root",
        ),
        (
            "sync: a megabyte owner",
            refusal(sources.create_source(request(with(|s, v| {
                s.scope = sync::SourceScope::Agent as i32;
                s.owner = v.into();
            }, &huge), &admin)).await),
            "source.owner",
        ),
        (
            "sync: a megabyte trigger",
            refusal(sources.create_source(request(with(|s, v| s.trigger = v.into(), &huge), &admin)).await),
            "source.trigger",
        ),
        (
            "sync: a megabyte privacy pattern",
            refusal(sources.create_source(request(with(|s, v| {
                s.kind = sync::SourceKind::Data as i32;
                s.privacy_patterns = vec![format!("{v}/{{agent}}/**")];
            }, &huge), &admin)).await),
            "source.privacy_patterns[0]",
        ),
        (
            "sync: a hundred thousand privacy patterns",
            refusal(sources.create_source(request(with(|s, _| {
                s.kind = sync::SourceKind::Data as i32;
                s.privacy_patterns = vec!["{agent}/**".into(); 100_000];
            }, ""), &admin)).await),
            "source.privacy_patterns",
        ),
        (
            "sync: a megabyte slug looked up",
            refusal(sources.get_source(request(sync::GetSourceRequest {
                project: P.into(),
                slug: huge.clone(),
            }, &admin)).await),
            "slug",
        ),
        (
            "sync: a megabyte page token",
            refusal(sources.list_sources(request(sync::ListSourcesRequest {
                project: P.into(),
                page_size: 1,
                page_token: huge.clone(),
            }, &admin)).await),
            "page_token",
        ),
        (
            "policy: a megabyte source id",
            refusal(policies.get_source_policy(request(policy::GetSourcePolicyRequest {
                source_id: format!("{P}/{huge}"),
            }, &admin)).await),
            "source_id",
        ),
        (
            "policy: a megabyte path rule",
            refusal(policies.put_source_policy(request(rule(&huge), &admin)).await),
            "policy.paths[0].pattern",
        ),
        (
            "policy: a megabyte package key",
            refusal(policies.set_package_enabled(request(policy::SetPackageEnabledRequest {
                project_id: P.into(),
                package_key: huge.clone(),
                enabled: false,
            }, &admin)).await),
            "package_key",
        ),
        (
            "policy: a megabyte agent id",
            refusal(policies.set_file_override(request(policy::SetFileOverrideRequest {
                scope: policy::OverrideScope::Agent as i32,
                owner_id: huge.clone(),
                package_key: "k".into(),
                file_path: "SKILL.md".into(),
                state: policy::OverrideState::On as i32,
            }, &platform)).await),
            "owner_id",
        ),
        (
            "policy: a megabyte feature",
            refusal(policies.put_role_grants(request(policy::PutRoleGrantsRequest {
                grantor: policy::GrantorKind::Administrator as i32,
                grants: vec![policy::RoleGrant {
                    role: "member".into(),
                    features: vec![huge.clone()],
                    revoked: Vec::new(),
                }],
                ..Default::default()
            }, &platform)).await),
            "grants[0].features[0]",
        ),
        (
            "discovery: a megabyte project",
            refusal(packages.list_packages(request(scoped(&huge, "", ""), &member)).await),
            "scope.project_id",
        ),
        (
            "discovery: a megabyte agent id",
            refusal(packages.list_packages(request(scoped(P, &huge, ""), &member)).await),
            "scope.agent_id",
        ),
        (
            "discovery: a megabyte page token",
            refusal(packages.list_packages(request(discovery::ListPackagesRequest {
                scope: scope(P, "", ""),
                page_size: 1,
                page_token: huge.clone(),
            }, &member)).await),
            "page_token",
        ),
        (
            "discovery: a megabyte skill id",
            refusal(packages.activate_skill(request(discovery::ActivateSkillRequest {
                scope: scope(P, "", ""),
                skill_id: huge.clone(),
            }, &member)).await),
            "skill_id",
        ),
        (
            "discovery: a megabyte path to read",
            refusal(packages.read_file(request(discovery::ReadFileRequest {
                scope: scope(P, "", ""),
                source_slug: "repo".into(),
                package_id: String::new(),
                path: huge_path.clone(),
            }, &member)).await),
            "path",
        ),
        (
            "discovery: a megabyte file path to validate",
            refusal(packages.validate_package(request(discovery::ValidatePackageRequest {
                files: vec![discovery::PackageFileContent {
                    path: huge.clone(),
                    content: Vec::new(),
                }],
                trust: 0,
            }, &member)).await),
            "files[0].path",
        ),
    ];
    check(cases);
    cluster.stop().await.unwrap();
}

// === NUL and control characters ===

async fn nul_roots_and_path_rules_are_refused(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let mut sources = SourceServiceClient::new(channel(&cluster, "sync"));
    let mut policies = PolicyServiceClient::new(channel(&cluster, "policy"));
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
            refusal(sources.update_source(request(sync::UpdateSourceRequest { source: Some(moved) }, &admin)).await),
            "source.root",
        ),
        (
            "sync: a privacy pattern with a NUL",
            refusal(sources.create_source(request(create(data), &admin)).await),
            "source.privacy_patterns[0]",
        ),
        (
            "policy: a path rule with a NUL",
            refusal(policies.put_source_policy(request(put("docs/\0secret.md"), &admin)).await),
            "policy.paths[0].pattern",
        ),
        (
            "policy: a path rule with a newline",
            refusal(policies.put_source_policy(request(put("docs/\nsecret.md"), &admin)).await),
            "policy.paths[0].pattern",
        ),
    ];
    check(cases);
    // The good source is still the one stored, and still syncs.
    let stored = sources
        .get_source(request(sync::GetSourceRequest { project: P.into(), slug: "repo".into() }, &admin))
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
    let mut sources = SourceServiceClient::new(channel(&cluster, "sync"));
    let mut packages = DiscoveryServiceClient::new(channel(&cluster, "discovery"));
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
            refusal(sources.create_source(request(create(unscoped), &admin)).await),
            "source.scope",
        ),
        (
            "sync: an unknown kind",
            refusal(sources.create_source(request(create(kind), &admin)).await),
            "source.kind",
        ),
        (
            "discovery: an unknown trust",
            refusal(packages.validate_package(request(package(9), &member)).await),
            "trust",
        ),
    ];
    check(cases);
    let listed = sources
        .list_sources(request(sync::ListSourcesRequest { project: P.into(), ..Default::default() }, &admin))
        .await
        .unwrap()
        .into_inner();
    assert!(listed.sources.is_empty(), "nothing was stored: {:?}", listed.sources);
    cluster.stop().await.unwrap();
}

// === bounded errors ===

async fn a_ten_thousand_character_root_gives_an_error_under_one_kilobyte(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let mut sources = SourceServiceClient::new(channel(&cluster, "sync"));
    let mut policies = PolicyServiceClient::new(channel(&cluster, "policy"));
    let long_root = format!("/{}", "a".repeat(9_999));
    let status = refusal(sources.create_source(request(create(spec(&long_root)), &admin)).await);
    eprintln!("{mode:?}: {} bytes on the wire: {}", wire_bytes(&status), status.message());
    // A control sequence in a field a message might echo is refused, not quoted.
    let escape = refusal(
        policies
            .set_package_enabled(request(
                policy::SetPackageEnabledRequest {
                    project_id: format!("{P}\u{1b}[31m"),
                    package_key: "k".into(),
                    enabled: true,
                },
                &admin,
            ))
            .await,
    );
    check(vec![
        ("sync: a 10,000-character root", status, "source.root"),
        ("policy: a project with an escape sequence", escape, "project_id"),
    ]);
    cluster.stop().await.unwrap();
}
