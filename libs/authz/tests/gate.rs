//! The gate and the permit, by table: who a rule admits, with which code the others are
//! refused (BRIEF decision 6: UNAUTHENTICATED only for a missing or bad credential,
//! PERMISSION_DENIED for a verified principal without the right), and which project a
//! permit lets its holder act in.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use neuralis_authz::{Binding, Denial, Gate, Refusal, Row, Table, Verifiers, Who};
use neuralis_identity::{
    Claims, IdentityConfig, KeySource, Secret, ServiceIdentityConfig, ServiceSigner,
    ServiceVerifier, Verifier, mint,
};

const CALLER_SECRET: &str = "the-caller-secret-of-at-least-32-bytes";
const SERVICE_SECRET: &str = "the-service-secret-of-at-least-32-bytes";

static TABLE: Table = Table {
    service: "test.v1.Test",
    rows: &[
        Row {
            method: "/test.v1.Test/Callers",
            who: Who::Callers,
            binding: Binding::Project("project"),
        },
        Row {
            method: "/test.v1.Test/Admins",
            who: Who::Administrators,
            binding: Binding::Project("project"),
        },
        Row {
            method: "/test.v1.Test/Services",
            who: Who::Services,
            binding: Binding::Project("project"),
        },
        Row {
            method: "/test.v1.Test/Empty",
            who: Who::CallersOrEmpty,
            binding: Binding::Project("project"),
        },
        Row {
            method: "/test.v1.Test/Source",
            who: Who::Administrators,
            binding: Binding::SourceProject("source_id"),
        },
        Row {
            method: "/test.v1.Test/List",
            who: Who::Administrators,
            binding: Binding::ProjectOrAll("project"),
        },
        Row {
            method: "/test.v1.Test/Override",
            who: Who::Callers,
            binding: Binding::FileOverride,
        },
        Row {
            method: "/test.v1.Test/Unbound",
            who: Who::Callers,
            binding: Binding::Unbound,
        },
    ],
};

fn gate() -> Gate {
    let callers = Verifier::from_config(&IdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(CALLER_SECRET),
        },
        ..IdentityConfig::default()
    })
    .unwrap();
    let services = ServiceVerifier::from_config(&service_config()).unwrap();
    let verifiers = Verifiers::new(Arc::new(callers), Arc::new(services), &["owner".to_owned()]);
    Gate::new(&TABLE, Arc::new(verifiers))
}

fn service_config() -> ServiceIdentityConfig {
    ServiceIdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(SERVICE_SECRET),
        },
        ..ServiceIdentityConfig::default()
    }
}

fn now() -> u64 {
    jsonwebtoken_now()
}

fn jsonwebtoken_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn claims(role: &str, project: Option<&str>) -> Claims {
    Claims {
        sub: "ada".into(),
        role: role.into(),
        features: Vec::new(),
        agent: None,
        project: project.map(str::to_owned),
        conversation: None,
        platform: false,
        exp: now() + 600,
        nbf: None,
        aud: Some("neuralis".into()),
        iss: None,
    }
}

fn sign(secret: &str, claims: &Claims) -> Option<String> {
    Some(
        mint(&Secret::new(secret), claims)
            .unwrap()
            .expose()
            .to_owned(),
    )
}

/// The credentials of the matrix, by name.
fn credentials() -> Vec<(&'static str, Option<String>)> {
    let service = ServiceSigner::from_config(&service_config(), "discovery")
        .unwrap()
        .credential()
        .unwrap();
    vec![
        ("none", None),
        (
            "forged",
            sign(
                "a-forger-secret-of-at-least-32-bytes!!",
                &claims("owner", Some("p1")),
            ),
        ),
        (
            "expired",
            sign(
                CALLER_SECRET,
                &Claims {
                    exp: now() - 3600,
                    ..claims("owner", Some("p1"))
                },
            ),
        ),
        ("member", sign(CALLER_SECRET, &claims("member", Some("p1")))),
        ("owner", sign(CALLER_SECRET, &claims("owner", Some("p1")))),
        ("service", service.expose().map(str::to_owned)),
    ]
}

/// "ok", "ok (unverified)", "unauthenticated", "permission denied" or "unimplemented".
fn outcome(gate: &Gate, method: &str, token: Option<&str>) -> &'static str {
    match gate.admit(&format!("/test.v1.Test/{method}"), token) {
        Ok(permit) if permit.is_verified() => "ok",
        Ok(_) => "ok (unverified)",
        Err(Denial::Unauthenticated) => "unauthenticated",
        Err(Denial::PermissionDenied(_)) => "permission denied",
        Err(Denial::Unimplemented) => "unimplemented",
    }
}

#[test]
fn each_rule_admits_its_principals_and_refuses_the_others_with_the_right_code() {
    const U: &str = "unauthenticated";
    const D: &str = "permission denied";
    const I: &str = "unimplemented";
    //            none  forged expired member owner service
    let expected: [(&str, [&str; 6]); 5] = [
        ("Callers", [U, U, U, "ok", "ok", D]),
        ("Admins", [U, U, U, D, "ok", D]),
        ("Services", [U, U, U, D, D, "ok"]),
        (
            "Empty",
            [
                "ok (unverified)",
                "ok (unverified)",
                "ok (unverified)",
                "ok",
                "ok",
                "ok (unverified)",
            ],
        ),
        // No row: the version-skew answer to a verified principal, nothing to others.
        ("NoSuchMethod", [U, U, U, I, I, I]),
    ];
    let gate = gate();
    let credentials = credentials();
    for (method, codes) in expected {
        for ((credential, token), code) in credentials.iter().zip(codes) {
            assert_eq!(
                outcome(&gate, method, token.as_deref()),
                code,
                "{method} with {credential}"
            );
        }
    }
    let counts = gate.counts();
    assert_eq!(counts.allowed, 10);
    assert_eq!(counts.unauthenticated, 12);
    assert_eq!(counts.permission_denied, 8);
}

#[test]
fn an_expired_service_credential_is_unauthenticated() {
    let config = ServiceIdentityConfig {
        credential_ttl_seconds: 2,
        leeway_seconds: 0,
        ..service_config()
    };
    let expired = {
        // A credential that expired an hour ago, signed with the service key.
        use jsonwebtoken::{EncodingKey, Header, encode};
        let claims = neuralis_identity::ServiceClaims {
            sub: "discovery".into(),
            aud: config.audience.clone(),
            exp: now() - 3600,
            iat: now() - 3700,
        };
        encode(
            &Header::default(),
            &claims,
            &EncodingKey::from_secret(SERVICE_SECRET.as_bytes()).unwrap(),
        )
        .unwrap()
    };
    assert_eq!(
        outcome(&gate(), "Services", Some(&expired)),
        "unauthenticated"
    );
}

fn permit(method: &str, token: Option<String>) -> neuralis_authz::Permit {
    gate()
        .admit(&format!("/test.v1.Test/{method}"), token.as_deref())
        .unwrap()
}

#[test]
fn a_project_bound_token_acts_only_in_its_project() {
    let owner = || sign(CALLER_SECRET, &claims("owner", Some("p1")));
    let admins = permit("Admins", owner());
    assert!(admins.for_project("p1").is_ok());
    assert_eq!(admins.for_project("p2").err(), Some(Refusal::OtherProject));
    let source = permit("Source", owner());
    assert!(source.for_source("p1/repo").is_ok());
    assert_eq!(
        source.for_source("p2/repo").err(),
        Some(Refusal::OtherProject)
    );
    assert_eq!(
        source.for_source("repo").err(),
        Some(Refusal::NotPlatform),
        "an id naming no project"
    );
    let list = permit("List", owner());
    assert!(list.for_project("p1").is_ok());
    assert_eq!(list.for_every_project().err(), Some(Refusal::NotPlatform));
    let unbound = sign(CALLER_SECRET, &claims("owner", None));
    assert_eq!(
        permit("Admins", unbound).for_project("p1").err(),
        Some(Refusal::OtherProject),
        "a token without a project acts in none"
    );
}

#[test]
fn only_a_platform_wide_credential_crosses_projects() {
    let platform = sign(
        CALLER_SECRET,
        &Claims {
            platform: true,
            ..claims("owner", None)
        },
    );
    let list = permit("List", platform.clone());
    assert!(list.for_every_project().is_ok());
    assert!(list.for_project("p2").is_ok());
    assert!(list.for_every_project().unwrap().is_platform());
    assert!(
        permit("Source", platform.clone())
            .for_source("p9/repo")
            .is_ok()
    );
    assert!(permit("Override", platform).for_agent_override().is_ok());
    let bound_owner = sign(CALLER_SECRET, &claims("owner", Some("p1")));
    assert_eq!(
        permit("Override", bound_owner).for_agent_override().err(),
        Some(Refusal::NotPlatform)
    );
    let platform_member = sign(
        CALLER_SECRET,
        &Claims {
            platform: true,
            ..claims("member", None)
        },
    );
    assert_eq!(
        permit("Override", platform_member)
            .for_agent_override()
            .err(),
        Some(Refusal::NotAdministrator)
    );
}

#[test]
fn a_conversation_is_set_by_callers_of_its_project_entitled_to_it() {
    let member = |conversation: Option<&str>| {
        sign(
            CALLER_SECRET,
            &Claims {
                conversation: conversation.map(str::to_owned),
                ..claims("member", Some("p1"))
            },
        )
    };
    let cases = [
        (None, "p1", "c1", Ok(())),
        (Some("c1"), "p1", "c1", Ok(())),
        (Some("c2"), "p1", "c1", Err(Refusal::OtherConversation)),
        (None, "p2", "c1", Err(Refusal::OtherProject)),
    ];
    for (bound, project, conversation, expected) in cases {
        let permit = permit("Override", member(bound));
        assert_eq!(
            permit.for_conversation(project, conversation).map(|_| ()),
            expected,
            "{bound:?} {project} {conversation}"
        );
    }
}

#[test]
fn a_step_the_rule_does_not_name_is_refused() {
    let owner = sign(
        CALLER_SECRET,
        &Claims {
            platform: true,
            ..claims("owner", Some("p1"))
        },
    );
    let admins = permit("Admins", owner.clone());
    assert_eq!(admins.for_source("p1/repo").err(), Some(Refusal::WrongStep));
    assert_eq!(admins.for_every_project().err(), Some(Refusal::WrongStep));
    assert_eq!(admins.unbound().err(), Some(Refusal::WrongStep));
    assert_eq!(admins.for_agent_override().err(), Some(Refusal::WrongStep));
    assert_eq!(
        permit("Source", owner.clone()).for_project("p1").err(),
        Some(Refusal::WrongStep)
    );
    assert!(permit("Unbound", owner).unbound().is_ok());
}

#[test]
fn an_unverified_permit_yields_no_caller_and_a_service_acts_for_any_project() {
    let empty = permit("Empty", None);
    assert_eq!(empty.for_project("p1").err(), Some(Refusal::Unverified));
    let service = ServiceSigner::from_config(&service_config(), "discovery")
        .unwrap()
        .credential()
        .unwrap();
    let services = permit("Services", service.expose().map(str::to_owned));
    let acting = services.for_project("any").unwrap();
    assert_eq!(acting.service().unwrap().name, "discovery");
    assert!(acting.caller().is_none());
    let owner = permit("Admins", sign(CALLER_SECRET, &claims("owner", Some("p1"))));
    let acting = owner.for_project("p1").unwrap();
    assert!(acting.is_administrator());
    assert_eq!(acting.caller().unwrap().subject, "ada");
}

mod layer {
    use std::convert::Infallible;
    use std::future::{Ready, ready};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll};

    use neuralis_authz::{Authorized, Permit};
    use tonic::body::Body;
    use tower::Service;

    use super::*;

    /// Answers 200 with `x-permit: yes|no`, counting its calls.
    #[derive(Clone, Default)]
    struct Inner(Arc<AtomicUsize>);

    impl Service<http::Request<Body>> for Inner {
        type Response = http::Response<Body>;
        type Error = Infallible;
        type Future = Ready<Result<http::Response<Body>, Infallible>>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, request: http::Request<Body>) -> Self::Future {
            self.0.fetch_add(1, Ordering::SeqCst);
            let permit = request.extensions().get::<Permit>().is_some();
            let response = http::Response::builder()
                .header("x-permit", if permit { "yes" } else { "no" })
                .body(Body::empty())
                .unwrap();
            ready(Ok(response))
        }
    }

    async fn call(
        service: &mut Authorized<Inner>,
        method: &str,
        token: Option<&str>,
    ) -> http::Response<Body> {
        let mut request = http::Request::builder().uri(format!("http://x/test.v1.Test/{method}"));
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        service
            .call(request.body(Body::empty()).unwrap())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn a_request_reaches_the_service_only_with_a_permit() {
        let inner = Inner::default();
        let mut service = Authorized::new(inner.clone(), gate());
        let member = sign(CALLER_SECRET, &claims("member", Some("p1")));

        let refused = call(&mut service, "Admins", member.as_deref()).await;
        assert_eq!(refused.headers()["grpc-status"], "7", "permission denied");
        let anonymous = call(&mut service, "Callers", None).await;
        assert_eq!(anonymous.headers()["grpc-status"], "16", "unauthenticated");
        // No row: UNIMPLEMENTED to a verified caller (the version-skew check),
        // UNAUTHENTICATED to anyone else; never reaching the service either way.
        let unknown = call(&mut service, "Unknown", member.as_deref()).await;
        assert_eq!(
            unknown.headers()["grpc-status"],
            "12",
            "no row: unimplemented"
        );
        let unknown_anonymous = call(&mut service, "Unknown", None).await;
        assert_eq!(unknown_anonymous.headers()["grpc-status"], "16");
        let unknown_forged = call(&mut service, "Unknown", Some("forged")).await;
        assert_eq!(unknown_forged.headers()["grpc-status"], "16");
        assert_eq!(
            inner.0.load(Ordering::SeqCst),
            0,
            "refused calls never reach the service"
        );

        let admitted = call(&mut service, "Callers", member.as_deref()).await;
        assert_eq!(admitted.headers()["x-permit"], "yes");
        let malformed = {
            let request = http::Request::builder()
                .uri("http://x/test.v1.Test/Callers")
                .header("authorization", "Basic abc")
                .body(Body::empty())
                .unwrap();
            service.call(request).await.unwrap()
        };
        assert_eq!(
            malformed.headers()["grpc-status"],
            "16",
            "a malformed header is no credential"
        );
        assert_eq!(inner.0.load(Ordering::SeqCst), 1);
    }
}
