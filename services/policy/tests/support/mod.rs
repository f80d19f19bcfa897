//! The harness: a real policy gRPC server on `127.0.0.1:0` over a store of either
//! backend, a gRPC client, and tokens minted with the test secret.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod paused;

use std::future::Future;
use std::sync::Arc;

use neuralis_access::{
    Caller, Capabilities, DecisionCode, Evaluation, EvaluationRequest, FileCandidate, Origin,
    PackageCandidate, Scope, SourceHeader, SourceScope, UriPolicy,
};
pub use neuralis_access_store::testing::Backend;
use neuralis_access_store::testing::with_store;
use neuralis_access_store::{AccessStore, StoreConfig};
use neuralis_authz::{Gate, Verifiers, tables};
use neuralis_host::Shutdown;
use neuralis_identity::{
    Claims, IdentityConfig, KeySource, Secret, ServiceIdentityConfig, ServiceSigner,
    ServiceVerifier, Verifier, mint,
};
use neuralis_layout::Category;
use neuralis_policy::convert::policy_to_proto;
use neuralis_policy::{
    BearerToken, LocalPolicy, PolicyApi, PolicyConfig, PolicyError, PolicyGrpcClient, PolicyService,
};
use neuralis_proto::policy::v1 as pb;
use tonic::service::Routes;
use tonic::transport::Channel;

pub const SECRET: &str = "integration-test-secret-of-32-bytes-at-least";
pub const SERVICE_SECRET: &str = "integration-test-service-secret-of-32-bytes";
pub const PROJECT: &str = "p1";
/// Source ids start with their project.
pub const SOURCE: &str = "p1/repo";
pub const PACKAGE: &str = "repo/.claude";
pub const MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;

/// Runs each named scenario `async fn case(h: Harness)` once on the embedded store and
/// once on PostgreSQL.
#[macro_export]
macro_rules! on_both_stores {
    ($($case:ident),* $(,)?) => {
        mod embedded {
            $( #[tokio::test] async fn $case() { $crate::support::with_server($crate::support::Backend::Embedded, super::$case).await } )*
        }
        mod postgres {
            $( #[tokio::test] async fn $case() { $crate::support::with_server($crate::support::Backend::Postgres, super::$case).await } )*
        }
    };
}

/// A running server and a client talking to it.
pub struct Harness {
    pub client: PolicyGrpcClient,
    pub store: Arc<dyn AccessStore>,
}

pub fn identity() -> IdentityConfig {
    IdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(SECRET),
        },
        ..IdentityConfig::default()
    }
}

pub fn service_identity() -> ServiceIdentityConfig {
    ServiceIdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(SERVICE_SECRET),
        },
        ..ServiceIdentityConfig::default()
    }
}

/// The verifiers of every test server: the caller key, the service key, `admin_roles`.
pub fn verifiers(admin_roles: &[String]) -> Arc<Verifiers> {
    Arc::new(Verifiers::new(
        Arc::new(Verifier::from_config(&identity()).unwrap()),
        Arc::new(ServiceVerifier::from_config(&service_identity()).unwrap()),
        admin_roles,
    ))
}

/// A service credential (what discovery presents to `Evaluate`).
pub fn service() -> BearerToken {
    ServiceSigner::from_config(&service_identity(), "discovery")
        .unwrap()
        .credential()
        .unwrap()
}

/// The caller a caller token proves, as discovery would send it to `Evaluate`.
pub fn caller_of(token: &BearerToken) -> Caller {
    Verifier::from_config(&identity())
        .unwrap()
        .verify_bearer(token)
        .unwrap()
}

/// Evaluates `request` for the caller of `token`, as discovery does: a service
/// credential, the verified caller in the request.
pub async fn evaluate_as(
    client: &PolicyGrpcClient,
    token: BearerToken,
    conversation: Option<&str>,
    request: &EvaluationRequest,
) -> Result<Evaluation, PolicyError> {
    client
        .evaluate_batch(service(), &caller_of(&token), conversation, request)
        .await
}

/// A token for `role`, acting as agent `a1` in project p1.
pub fn token(role: &str) -> BearerToken {
    token_with(Claims {
        role: role.into(),
        ..claims()
    })
}

pub fn claims() -> Claims {
    Claims {
        sub: "ada".into(),
        role: "member".into(),
        features: Vec::new(),
        agent: Some("a1".into()),
        project: Some(PROJECT.into()),
        conversation: None,
        platform: false,
        exp: jsonwebtoken_now() + 3600,
        nbf: None,
        aud: Some("neuralis".into()),
        iss: None,
    }
}

fn jsonwebtoken_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

pub fn token_with(claims: Claims) -> BearerToken {
    BearerToken::new(Some(
        mint(&Secret::new(SECRET), &claims)
            .unwrap()
            .expose()
            .to_owned(),
    ))
}

pub fn admin() -> BearerToken {
    token("admin")
}

/// An administrator whose token is platform-wide (role grants, agent overrides).
pub fn platform_admin() -> BearerToken {
    token_with(Claims {
        role: "admin".into(),
        project: None,
        platform: true,
        ..claims()
    })
}

pub fn member() -> BearerToken {
    token("member")
}

/// Serves `routes` on a listener bound to `127.0.0.1:0` first, and returns a client.
pub async fn serve(routes: Routes, shutdown: &Shutdown) -> PolicyGrpcClient {
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
    PolicyGrpcClient::new(channel, MAX_MESSAGE_BYTES)
}

/// Runs `test` against a server built by `PolicyService::from_config` over a fresh
/// store of `backend`.
pub async fn with_server<F, Fut>(backend: Backend, test: F)
where
    F: FnOnce(Harness) -> Fut,
    Fut: Future<Output = ()>,
{
    with_store(backend, |store, store_config: StoreConfig| async move {
        let config = PolicyConfig {
            store: store_config,
            ..PolicyConfig::default()
        };
        let service = PolicyService::from_config(&config, verifiers(&config.admin_roles))
            .await
            .unwrap();
        let shutdown = Shutdown::new();
        let client = serve(Routes::new(service.into_server()), &shutdown).await;
        test(Harness { client, store }).await;
        shutdown.trigger();
    })
    .await
}

/// A server over any store (e.g. one that pauses), for tests that steer the store.
pub async fn serve_over(store: Arc<dyn AccessStore>, shutdown: &Shutdown) -> PolicyGrpcClient {
    let gate = Gate::new(&tables::policy::TABLE, verifiers(&["admin".to_owned()]));
    let service = PolicyService::over(Arc::new(LocalPolicy::new(store)), gate, MAX_MESSAGE_BYTES);
    serve(Routes::new(service.into_server()), shutdown).await
}

/// Source "repo" (project p1) with package `.claude`: a skill, an opt-in rule, a doc.
pub fn batch() -> EvaluationRequest {
    let file = |path: &str, category: Category| FileCandidate {
        content_flagged: false,
        downgraded_from: None,
        package: 0,
        path: path.into(),
        category,
        identity: false,
        default_enabled: category != Category::Rule,
        required_features: Vec::new(),
        private_owner: None,
        real_path: None,
    };
    EvaluationRequest {
        project: PROJECT.into(),
        sources: vec![SourceHeader {
            id: SOURCE.into(),
            scope: SourceScope {
                scope: Scope::Project,
                owner: PROJECT.into(),
            },
        }],
        packages: vec![PackageCandidate {
            key: PACKAGE.into(),
            origin: Origin::Source(SOURCE.into()),
            root: ".claude".into(),
            access_feature: None,
            private_owner: None,
            found_in: None,
        }],
        files: vec![
            file(".claude/skills/review/SKILL.md", Category::Skill),
            file(".claude/rules/style.md", Category::Rule),
            file(".claude/docs/guide.md", Category::Docs),
        ],
        data_sources: Vec::new(),
    }
}

pub fn read_all() -> UriPolicy {
    UriPolicy {
        hide_flagged_files: false,
        default: Capabilities {
            read: true,
            ..Capabilities::default()
        },
        paths: Vec::new(),
    }
}

pub async fn put_policy(client: &PolicyGrpcClient, policy: &UriPolicy) {
    let request = pb::PutSourcePolicyRequest {
        source_id: SOURCE.into(),
        policy: Some(policy_to_proto(policy)),
    };
    client.put_source_policy(admin(), request).await.unwrap();
}

/// (package code, file codes) for `token` in `conversation`.
pub async fn decide(
    client: &PolicyGrpcClient,
    token: BearerToken,
    conversation: Option<&str>,
) -> (DecisionCode, Vec<DecisionCode>) {
    let evaluation = evaluate_as(client, token, conversation, &batch())
        .await
        .unwrap();
    (
        evaluation.packages[0].code,
        evaluation.files.iter().map(|d| d.code).collect(),
    )
}
