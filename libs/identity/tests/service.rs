//! Service credentials (DESIGN.md section 5): "a token signed by a key that is not a
//! caller key, with an audience only services accept ... A caller token never opens an
//! internal call, and a service credential never opens a caller call."

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use jsonwebtoken::get_current_timestamp;
use neuralis_identity::{
    Claims, IdentityConfig, IdentityError, KeySource, PublicKey, Secret, ServiceIdentityConfig,
    ServiceSigner, ServiceVerifier, SignatureAlgorithm, Verifier, mint,
};

const CALLER_SECRET: &str = "the-caller-secret-of-at-least-32-bytes";
const SERVICE_SECRET: &str = "the-service-secret-of-at-least-32-bytes";

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn service_config(secret: &str) -> ServiceIdentityConfig {
    ServiceIdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(secret),
        },
        ..ServiceIdentityConfig::default()
    }
}

fn caller_verifier(secret: &str) -> Verifier {
    Verifier::from_config(&IdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(secret),
        },
        ..IdentityConfig::default()
    })
    .unwrap()
}

fn caller_token(secret: &str, platform: bool) -> String {
    let claims = Claims {
        sub: "ada".into(),
        role: "owner".into(),
        features: Vec::new(),
        agent: None,
        project: Some("p1".into()),
        conversation: None,
        platform,
        exp: get_current_timestamp() + 600,
        nbf: None,
        aud: Some("neuralis".into()),
        iss: None,
    };
    mint(&Secret::new(secret), &claims)
        .unwrap()
        .expose()
        .to_owned()
}

fn reason<T>(result: Result<T, IdentityError>) -> String {
    match result {
        Ok(_) => "ok".into(),
        Err(IdentityError::Invalid { reason }) => reason,
        Err(other) => other.to_string(),
    }
}

#[test]
fn a_service_credential_proves_the_calling_service() {
    let config = service_config(SERVICE_SECRET);
    let signer = ServiceSigner::from_config(&config, "discovery").unwrap();
    let verifier = ServiceVerifier::from_config(&config).unwrap();
    let credential = signer.credential().unwrap();
    let service = verifier.verify(credential.expose().unwrap()).unwrap();
    assert_eq!(service.name, "discovery");
    assert_eq!(
        signer.credential().unwrap(),
        credential,
        "a credential is reused until half its life is spent"
    );
}

#[test]
fn a_caller_token_never_verifies_as_a_service_and_a_service_credential_never_as_a_caller() {
    let services = ServiceVerifier::from_config(&service_config(SERVICE_SECRET)).unwrap();
    let callers = caller_verifier(CALLER_SECRET);
    let credential = ServiceSigner::from_config(&service_config(SERVICE_SECRET), "discovery")
        .unwrap()
        .credential()
        .unwrap();
    let credential = credential.expose().unwrap();
    assert_eq!(
        reason(services.verify(&caller_token(CALLER_SECRET, true))),
        "bad signature"
    );
    assert_eq!(reason(callers.verify(credential)), "bad signature");
    // Even a deployment that (wrongly) shared one secret keeps the kinds apart: the
    // audiences (and the claims) differ.
    let same_key = caller_verifier(SERVICE_SECRET);
    assert_ne!(reason(same_key.verify(credential)), "ok");
    assert_eq!(
        reason(services.verify(&caller_token(SERVICE_SECRET, false))),
        "wrong audience"
    );
}

#[test]
fn the_platform_claim_is_read_and_absent_by_default() {
    let callers = caller_verifier(CALLER_SECRET);
    let bound = callers
        .verify_identity(&caller_token(CALLER_SECRET, false))
        .unwrap();
    assert!(!bound.platform);
    assert_eq!(bound.caller.project.as_deref(), Some("p1"));
    let platform = callers
        .verify_identity(&caller_token(CALLER_SECRET, true))
        .unwrap();
    assert!(platform.platform);
}

#[test]
fn asymmetric_service_keys_sign_with_the_private_pem_and_verify_by_kid() {
    let config = ServiceIdentityConfig {
        keys: KeySource::PublicKeys {
            keys: vec![
                PublicKey {
                    algorithm: SignatureAlgorithm::RS256,
                    pem_file: fixture("rsa-public.pem"),
                    kid: Some("rsa-1".into()),
                },
                PublicKey {
                    algorithm: SignatureAlgorithm::EdDSA,
                    pem_file: fixture("ed25519-public.pem"),
                    kid: Some("ed-1".into()),
                },
            ],
        },
        signing_key: Some(fixture("ed25519-private.pem")),
        signing_kid: Some("ed-1".into()),
        ..ServiceIdentityConfig::default()
    };
    let verifier = ServiceVerifier::from_config(&config).unwrap();
    for (pem, kid) in [
        ("ed25519-private.pem", "ed-1"),
        ("rsa-private.pem", "rsa-1"),
    ] {
        let config = ServiceIdentityConfig {
            signing_key: Some(fixture(pem)),
            signing_kid: Some(kid.into()),
            ..config.clone()
        };
        let signer = ServiceSigner::from_config(&config, "sync").unwrap();
        let credential = signer.credential().unwrap();
        assert_eq!(
            verifier.verify(credential.expose().unwrap()).unwrap().name,
            "sync",
            "{kid}"
        );
    }
}

#[test]
fn a_signer_without_usable_key_material_names_the_field() {
    let cases = [
        (service_config("short"), "service_identity.keys.secret"),
        (
            ServiceIdentityConfig {
                keys: KeySource::JwksFile {
                    path: fixture("jwks.json"),
                },
                ..ServiceIdentityConfig::default()
            },
            "service_identity.signing_key",
        ),
        (
            ServiceIdentityConfig {
                keys: KeySource::JwksFile {
                    path: fixture("jwks.json"),
                },
                signing_key: Some(fixture("rsa-public.pem")),
                ..ServiceIdentityConfig::default()
            },
            "service_identity.signing_key",
        ),
    ];
    for (config, field) in cases {
        let error = ServiceSigner::from_config(&config, "sync").unwrap_err();
        assert!(error.to_string().contains(field), "{error}");
    }
    let error = ServiceVerifier::from_config(&ServiceIdentityConfig::default()).unwrap_err();
    assert!(
        error.to_string().contains("service_identity.keys.secret"),
        "{error}"
    );
}
