//! Caller identity (DESIGN.md section 5): "A missing, expired or badly signed token gives
//! an empty discovery answer ... and UNAUTHENTICATED on calls that change state." Every
//! check of the verifier, by table.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use jsonwebtoken::{Algorithm, EncodingKey, Header, encode, get_current_timestamp};
use neuralis_identity::{
    Claims, IdentityConfig, IdentityError, KeySource, PublicKey, Secret, SignatureAlgorithm,
    Verifier, mint,
};

const SECRET: &str = "a-local-secret-of-at-least-32-bytes!";

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn claims() -> Claims {
    Claims {
        sub: "ada".into(),
        role: "member".into(),
        features: vec!["deploy.run".into()],
        agent: Some("helper".into()),
        project: Some("p1".into()),
        conversation: None,
        platform: false,
        exp: get_current_timestamp() + 3600,
        nbf: None,
        aud: Some("neuralis".into()),
        iss: None,
    }
}

fn hs256() -> Verifier {
    let config = IdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(SECRET),
        },
        ..IdentityConfig::default()
    };
    Verifier::from_config(&config).unwrap()
}

fn sign(claims: &Claims, algorithm: Algorithm, kid: Option<&str>, key: &EncodingKey) -> String {
    let header = Header {
        kid: kid.map(String::from),
        ..Header::new(algorithm)
    };
    encode(&header, claims, key).unwrap()
}

/// An RS256 token whose payload was swapped for one granting the admin role.
fn tampered(key: &EncodingKey) -> String {
    let member = sign(&claims(), Algorithm::RS256, Some("rsa-1"), key);
    let admin = sign(
        &Claims {
            role: "admin".into(),
            ..claims()
        },
        Algorithm::RS256,
        Some("rsa-1"),
        key,
    );
    let (member, admin): (Vec<&str>, Vec<&str>) =
        (member.split('.').collect(), admin.split('.').collect());
    format!("{}.{}.{}", member[0], admin[1], member[2])
}

fn rsa_key() -> EncodingKey {
    EncodingKey::from_rsa_pem(&std::fs::read(fixture("rsa-private.pem")).unwrap()).unwrap()
}

fn ed_key() -> EncodingKey {
    EncodingKey::from_ed_pem(&std::fs::read(fixture("ed25519-private.pem")).unwrap()).unwrap()
}

fn reason(result: Result<neuralis_identity::Caller, IdentityError>) -> String {
    match result {
        Ok(_) => "ok".into(),
        Err(IdentityError::Invalid { reason }) => reason,
        Err(other) => other.to_string(),
    }
}

#[test]
fn a_valid_hs256_token_proves_subject_role_features_agent_and_project() {
    let token = mint(&Secret::new(SECRET), &claims()).unwrap();
    let caller = hs256().verify(token.expose()).unwrap();
    assert_eq!(caller.subject, "ada");
    assert_eq!(caller.role, "member");
    assert!(caller.features.contains("deploy.run"));
    assert_eq!(caller.agent.as_deref(), Some("helper"));
    assert_eq!(caller.project.as_deref(), Some("p1"));
    assert_eq!(caller.conversation, None);
}

#[test]
fn a_missing_expired_premature_or_badly_signed_token_proves_nothing() {
    let now = get_current_timestamp();
    let hs = |claims: Claims| {
        mint(&Secret::new(SECRET), &claims)
            .unwrap()
            .expose()
            .to_owned()
    };
    let other_secret = mint(
        &Secret::new("another-secret-of-at-least-32-bytes"),
        &claims(),
    )
    .unwrap();
    let cases = [
        ("valid", hs(claims()), "ok"),
        (
            "expired beyond the leeway",
            hs(Claims {
                exp: now - 3600,
                ..claims()
            }),
            "expired",
        ),
        (
            "not before, in the future",
            hs(Claims {
                nbf: Some(now + 3600),
                ..claims()
            }),
            "not yet valid",
        ),
        (
            "not before, in the past",
            hs(Claims {
                nbf: Some(now - 10),
                ..claims()
            }),
            "ok",
        ),
        (
            "another audience",
            hs(Claims {
                aud: Some("elsewhere".into()),
                ..claims()
            }),
            "wrong audience",
        ),
        (
            "no audience",
            hs(Claims {
                aud: None,
                ..claims()
            }),
            "missing required claim",
        ),
        (
            "signed with another secret",
            other_secret.expose().to_owned(),
            "bad signature",
        ),
        (
            "empty role",
            hs(Claims {
                role: " ".into(),
                ..claims()
            }),
            "empty role claim",
        ),
        (
            "empty subject",
            hs(Claims {
                sub: String::new(),
                ..claims()
            }),
            "empty sub claim",
        ),
        (
            "empty agent",
            hs(Claims {
                agent: Some(String::new()),
                ..claims()
            }),
            "empty agent claim",
        ),
        ("not a token", "not-a-token".to_owned(), "malformed token"),
        (
            "a truncated token",
            hs(claims())[..40].to_owned(),
            "malformed token",
        ),
        (
            "an asymmetric token against a shared secret",
            sign(&claims(), Algorithm::RS256, None, &rsa_key()),
            "algorithm does not match the key",
        ),
    ];
    for (name, token, expected) in cases {
        let result = hs256().verify(&token);
        if let Err(error) = &result {
            assert!(
                !error.to_string().contains(&token),
                "{name}: the error echoes the token"
            );
        }
        assert_eq!(reason(result), expected, "{name}");
    }
}

#[test]
fn a_configured_issuer_is_required() {
    let config = IdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(SECRET),
        },
        issuer: Some("platform".into()),
        ..IdentityConfig::default()
    };
    let verifier = Verifier::from_config(&config).unwrap();
    let token = |iss: Option<&str>| {
        mint(
            &Secret::new(SECRET),
            &Claims {
                iss: iss.map(String::from),
                ..claims()
            },
        )
        .unwrap()
    };
    assert_eq!(
        reason(verifier.verify(token(Some("platform")).expose())),
        "ok"
    );
    assert_eq!(
        reason(verifier.verify(token(Some("other")).expose())),
        "wrong issuer"
    );
    assert_eq!(
        reason(verifier.verify(token(None).expose())),
        "missing required claim"
    );
}

#[test]
fn production_keys_verify_rs256_and_eddsa_from_pem_files_and_a_jwks_file() {
    let pem = IdentityConfig {
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
        ..IdentityConfig::default()
    };
    let jwks = IdentityConfig {
        keys: KeySource::JwksFile {
            path: fixture("jwks.json"),
        },
        ..IdentityConfig::default()
    };
    for config in [pem, jwks] {
        let verifier = Verifier::from_config(&config).unwrap();
        let cases = [
            (
                "RS256 naming its key",
                sign(&claims(), Algorithm::RS256, Some("rsa-1"), &rsa_key()),
                "ok",
            ),
            (
                "EdDSA naming its key",
                sign(&claims(), Algorithm::EdDSA, Some("ed-1"), &ed_key()),
                "ok",
            ),
            (
                "a key id that is not configured",
                sign(&claims(), Algorithm::RS256, Some("rsa-9"), &rsa_key()),
                "unknown signing key",
            ),
            (
                "no key id among several keys",
                sign(&claims(), Algorithm::RS256, None, &rsa_key()),
                "unknown signing key",
            ),
            (
                "the RSA key id on an EdDSA token",
                sign(&claims(), Algorithm::EdDSA, Some("rsa-1"), &ed_key()),
                "algorithm does not match the key",
            ),
            (
                "claims changed after signing",
                tampered(&rsa_key()),
                "bad signature",
            ),
            (
                "HS256 with the public key as the secret",
                sign(
                    &claims(),
                    Algorithm::HS256,
                    Some("rsa-1"),
                    &EncodingKey::from_secret(&std::fs::read(fixture("rsa-public.pem")).unwrap())
                        .unwrap(),
                ),
                "algorithm does not match the key",
            ),
        ];
        for (name, token, expected) in cases {
            assert_eq!(
                reason(verifier.verify(&token)),
                expected,
                "{name} ({:?})",
                config.keys
            );
        }
    }
}

#[test]
fn a_configuration_that_cannot_verify_is_rejected_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let not_jwks = dir.path().join("jwks.json");
    std::fs::write(&not_jwks, "{\"keys\": 3}").unwrap();
    let cases = [
        (
            KeySource::Hs256 {
                secret: Secret::default(),
            },
            "keys.secret",
        ),
        (
            KeySource::Hs256 {
                secret: Secret::new("short"),
            },
            "keys.secret",
        ),
        (KeySource::PublicKeys { keys: vec![] }, "keys"),
        (
            KeySource::PublicKeys {
                keys: vec![PublicKey {
                    algorithm: SignatureAlgorithm::RS256,
                    pem_file: dir.path().join("missing.pem"),
                    kid: None,
                }],
            },
            "keys.keys[0].pem_file",
        ),
        (
            KeySource::PublicKeys {
                keys: vec![PublicKey {
                    algorithm: SignatureAlgorithm::RS256,
                    pem_file: fixture("ed25519-public.pem"),
                    kid: None,
                }],
            },
            "keys.keys[0].pem_file",
        ),
        (KeySource::JwksFile { path: not_jwks }, "keys.path"),
    ];
    for (keys, expected) in cases {
        let error = Verifier::from_config(&IdentityConfig {
            keys,
            ..IdentityConfig::default()
        })
        .unwrap_err();
        let IdentityError::Config { field, .. } = &error else {
            panic!("{error}")
        };
        assert_eq!(field, expected);
        assert!(
            !error.to_string().contains("short"),
            "the error echoes the secret"
        );
    }
    let no_audience = IdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(SECRET),
        },
        audience: vec![],
        ..IdentityConfig::default()
    };
    assert!(
        matches!(Verifier::from_config(&no_audience), Err(IdentityError::Config { field, .. }) if field == "audience")
    );
}

#[test]
fn the_configuration_reads_from_its_serialized_form_with_defaults() {
    let config: IdentityConfig =
        serde_json::from_str(r#"{"keys":{"kind":"jwks_file","path":"/etc/neuralis/jwks.json"}}"#)
            .unwrap();
    assert_eq!(config.audience, vec!["neuralis".to_owned()]);
    assert_eq!(config.leeway_seconds, 30);
    assert!(matches!(config.keys, KeySource::JwksFile { .. }));
    let config: IdentityConfig =
        serde_json::from_str(r#"{"keys":{"kind":"hs256","secret":"s"}}"#).unwrap();
    assert!(!format!("{config:?}").contains("\"s\""));
}
