//! Evaluate over gRPC on loopback, against a no-op RPC (the standard health check on the
//! same server, which is not behind the authorization layer) measured in the same run,
//! and against the in-process call; plus a small load loop of 64 concurrent calls of
//! each, and the authorization gate alone (what the layer adds to every call).
//!
//! `cargo bench -p neuralis-policy --bench grpc_evaluate`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use neuralis_access::{
    Capabilities, EvaluationRequest, FileCandidate, Origin, PackageCandidate, PathRule, Scope,
    SourceHeader, SourceScope, UriPolicy,
};
use neuralis_access_store::StoreConfig;
use neuralis_authz::{Gate, Verifiers, tables};
use neuralis_host::Shutdown;
use neuralis_host::grpc::Health;
use neuralis_identity::{
    Caller, Claims, IdentityConfig, KeySource, Secret, ServiceIdentityConfig, ServiceSigner,
    ServiceVerifier, Verifier, mint,
};
use neuralis_layout::Category;
use neuralis_policy::convert::policy_to_proto;
use neuralis_policy::{
    BearerToken, LocalPolicy, PolicyApi, PolicyConfig, PolicyGrpcClient, PolicyService,
    SERVICE_NAME,
};
use neuralis_proto::policy::v1 as pb;
use tonic::service::Routes;
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

const SECRET: &str = "benchmark-secret-of-at-least-32-bytes!!";
const SERVICE_SECRET: &str = "benchmark-service-secret-of-32-bytes!!";
const MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;

fn service_identity() -> ServiceIdentityConfig {
    ServiceIdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(SERVICE_SECRET),
        },
        ..ServiceIdentityConfig::default()
    }
}

fn verifiers() -> Arc<Verifiers> {
    let callers = Verifier::from_config(&IdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(SECRET),
        },
        ..IdentityConfig::default()
    })
    .unwrap();
    let services = ServiceVerifier::from_config(&service_identity()).unwrap();
    Arc::new(Verifiers::new(
        Arc::new(callers),
        Arc::new(services),
        &PolicyConfig::default().admin_roles,
    ))
}

fn service_credential() -> BearerToken {
    ServiceSigner::from_config(&service_identity(), "discovery")
        .unwrap()
        .credential()
        .unwrap()
}

/// The member discovery decides for (the claims of `token("member")`).
fn member() -> Caller {
    Caller {
        subject: "ada".into(),
        role: "member".into(),
        features: ["f.deploy".to_owned()].into_iter().collect(),
        agent: Some("a1".into()),
        project: Some("p1".into()),
        conversation: None,
    }
}

fn token(role: &str) -> BearerToken {
    let claims = Claims {
        sub: "ada".into(),
        role: role.into(),
        features: vec!["f.deploy".into()],
        agent: Some("a1".into()),
        project: Some("p1".into()),
        conversation: None,
        platform: false,
        exp: u64::MAX / 2,
        nbf: None,
        aud: Some("neuralis".into()),
        iss: None,
    };
    BearerToken::new(Some(
        mint(&Secret::new(SECRET), &claims)
            .unwrap()
            .expose()
            .to_owned(),
    ))
}

/// `files` files in up to 100 packages of one project source.
fn batch(files: usize) -> EvaluationRequest {
    let packages: Vec<PackageCandidate> = (0..files.clamp(1, 100))
        .map(|p| PackageCandidate {
            key: format!("repo:team{p}"),
            origin: Origin::Source("p1/repo".into()),
            root: format!("team{}/pkg{p}", p % 10),
            access_feature: None,
            private_owner: None,
            found_in: None,
        })
        .collect();
    let categories = [
        Category::Skill,
        Category::Rule,
        Category::Instruction,
        Category::Docs,
    ];
    let files = (0..files)
        .map(|f| {
            let category = categories[f % categories.len()];
            FileCandidate {
                content_flagged: false,
                downgraded_from: None,
                package: f % packages.len(),
                path: format!(
                    "{}/{}s/file{f}/SKILL.md",
                    packages[f % packages.len()].root,
                    category.as_str()
                ),
                category,
                identity: false,
                default_enabled: category != Category::Rule,
                required_features: if f % 7 == 0 {
                    vec!["f.deploy".into()]
                } else {
                    Vec::new()
                },
                private_owner: None,
                real_path: None,
            }
        })
        .collect();
    let header = SourceHeader {
        id: "p1/repo".into(),
        scope: SourceScope {
            scope: Scope::Project,
            owner: "p1".into(),
        },
    };
    EvaluationRequest {
        project: "p1".into(),
        sources: vec![header],
        packages,
        files,
        data_sources: Vec::new(),
    }
}

/// The access bench's 50 rules of every kind.
fn fifty_rules() -> UriPolicy {
    let paths = (0..50)
        .map(|r| {
            let team = r % 10;
            match r % 5 {
                0 => PathRule {
                    read: Some(false),
                    ..PathRule::new(format!("team{team}/pkg{r}/rules/**"))
                },
                1 => PathRule {
                    read: Some(true),
                    roles: vec!["member".into()],
                    ..PathRule::new(format!("team{team}/*/skills/*/SKILL.md"))
                },
                2 => PathRule {
                    read: Some(false),
                    agents: vec!["a9".into()],
                    ..PathRule::new(format!("team{team}/**"))
                },
                3 => PathRule {
                    read: Some(true),
                    override_rule: true,
                    ..PathRule::new(format!("team{team}/pkg{r}/docs/**"))
                },
                _ => PathRule {
                    read: Some(false),
                    floor: true,
                    ..PathRule::new(format!("team{team}/pkg{r}/secret/**"))
                },
            }
        })
        .collect();
    UriPolicy {
        hide_flagged_files: false,
        default: Capabilities {
            read: true,
            ..Capabilities::default()
        },
        paths,
    }
}

struct Rig {
    runtime: tokio::runtime::Runtime,
    local: Arc<LocalPolicy>,
    gate: Gate,
    client: PolicyGrpcClient,
    health: HealthClient<Channel>,
    _dir: tempfile::TempDir,
    _shutdown: Shutdown,
}

fn rig() -> Rig {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let shutdown = Shutdown::new();
    let gate = Gate::new(&tables::policy::TABLE, verifiers());
    let (local, client, health) = runtime.block_on(async {
        let config = PolicyConfig {
            store: StoreConfig::Embedded {
                path: dir.path().join("policy.db"),
            },
            ..PolicyConfig::default()
        };
        let store = neuralis_access_store::open(&config.store).await.unwrap();
        let local = Arc::new(LocalPolicy::new(store));
        let service = PolicyService::over(local.clone(), gate.clone(), MAX_MESSAGE_BYTES);
        let (health, health_server) = Health::new(&[SERVICE_NAME]).await;
        health.serving(SERVICE_NAME).await;
        let routes = Routes::new(service.into_server()).add_service(health_server);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(neuralis_host::grpc::serve(
            listener,
            routes,
            shutdown.clone(),
        ));
        let channel = Channel::from_shared(format!("http://{address}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let client = PolicyGrpcClient::new(channel.clone(), MAX_MESSAGE_BYTES);
        let request = pb::PutSourcePolicyRequest {
            source_id: "p1/repo".into(),
            policy: Some(policy_to_proto(&fifty_rules())),
        };
        client
            .put_source_policy(token("admin"), request)
            .await
            .unwrap();
        (local, client, HealthClient::new(channel))
    });
    Rig {
        runtime,
        local,
        gate,
        client,
        health,
        _dir: dir,
        _shutdown: shutdown,
    }
}

fn health_check(health: &HealthClient<Channel>) -> impl Future<Output = ()> + use<> {
    let mut health = health.clone();
    async move {
        health
            .check(HealthCheckRequest {
                service: SERVICE_NAME.into(),
            })
            .await
            .unwrap();
    }
}

fn evaluate(
    client: &PolicyGrpcClient,
    token: &BearerToken,
    request: &Arc<EvaluationRequest>,
) -> impl Future<Output = ()> + use<> {
    let (client, token, request) = (client.clone(), token.clone(), request.clone());
    async move {
        black_box(
            client
                .evaluate_batch(token, &member(), None, &request)
                .await
                .unwrap(),
        );
    }
}

fn round_trip(c: &mut Criterion) {
    let rig = rig();
    let service = service_credential();
    let small = Arc::new(batch(3));
    let mut group = c.benchmark_group("grpc_round_trip");
    group.bench_function("noop_health_check", |b| {
        b.iter(|| rig.runtime.block_on(health_check(&rig.health)))
    });
    group.bench_function("evaluate_3_files", |b| {
        b.iter(|| {
            rig.runtime
                .block_on(evaluate(&rig.client, &service, &small))
        })
    });
    group.finish();

    let large = Arc::new(batch(10_000));
    let mut group = c.benchmark_group("evaluate_10k_files_50_rules");
    group.throughput(Throughput::Elements(10_000));
    group.bench_function("in_process", |b| {
        b.iter(|| {
            rig.runtime.block_on(async {
                let permit = rig
                    .gate
                    .admit_bearer(tables::policy::EVALUATE, &service)
                    .unwrap();
                black_box(
                    rig.local
                        .evaluate_batch(&permit, &member(), None, &large)
                        .await
                        .unwrap(),
                )
            })
        })
    });
    group.bench_function("over_grpc", |b| {
        b.iter(|| {
            rig.runtime
                .block_on(evaluate(&rig.client, &service, &large))
        })
    });
    group.finish();

    let mut group = c.benchmark_group("grpc_load_64_concurrent");
    group.throughput(Throughput::Elements(64));
    let concurrently = |calls: Vec<tokio::task::JoinHandle<()>>| async move {
        for call in calls {
            call.await.unwrap();
        }
    };
    group.bench_function("noop_health_check", |b| {
        b.iter(|| {
            rig.runtime.block_on(concurrently(
                (0..64)
                    .map(|_| rig.runtime.spawn(health_check(&rig.health)))
                    .collect(),
            ))
        })
    });
    group.bench_function("evaluate_3_files", |b| {
        b.iter(|| {
            let calls = (0..64)
                .map(|_| rig.runtime.spawn(evaluate(&rig.client, &service, &small)))
                .collect();
            rig.runtime.block_on(concurrently(calls))
        })
    });
    group.finish();
}

/// What the authorization layer adds to every call: the gate's decision alone.
fn gate_alone(c: &mut Criterion) {
    let gate = Gate::new(&tables::policy::TABLE, verifiers());
    let service = service_credential();
    let admin = token("admin");
    let mut group = c.benchmark_group("authorization_gate");
    group.bench_function("admit_service_credential", |b| {
        b.iter(|| {
            black_box(
                gate.admit_bearer(tables::policy::EVALUATE, &service)
                    .unwrap(),
            )
        })
    });
    group.bench_function("admit_caller_token", |b| {
        b.iter(|| {
            black_box(
                gate.admit_bearer(tables::policy::SET_PACKAGE_ENABLED, &admin)
                    .unwrap(),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, round_trip, gate_alone);
criterion_main!(benches);
