//! The verification keys, and which one checks a given token. The algorithm is fixed by
//! the key, never taken from the token, so a token cannot pick a weaker check (the
//! classic algorithm-confusion attack).

use std::path::Path;

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, JwkSet, KeyAlgorithm};
use jsonwebtoken::{Algorithm, DecodingKey, Header};

use crate::{IdentityError, KeySource, PublicKey, SignatureAlgorithm};

/// The shortest HS256 secret accepted (RFC 7518: a key of at least the hash size).
pub const MIN_SECRET_LEN: usize = 32;

/// One verification key.
pub(crate) struct Key {
    kid: Option<String>,
    algorithm: Algorithm,
    decoding: DecodingKey,
}

/// Every key a verifier accepts.
pub(crate) struct KeyRing(Vec<Key>);

impl KeyRing {
    /// Loads the keys; reads PEM or JWKS files (at start only).
    pub(crate) fn load(source: &KeySource) -> Result<Self, IdentityError> {
        let keys = match source {
            KeySource::Hs256 { secret } => vec![shared(secret.expose())?],
            KeySource::PublicKeys { keys } => keys
                .iter()
                .enumerate()
                .map(|(at, key)| pem_key(key, &format!("keys.keys[{at}]")))
                .collect::<Result<_, _>>()?,
            KeySource::JwksFile { path } => jwks(path)?,
        };
        if keys.is_empty() {
            return Err(IdentityError::config("keys", "holds no key"));
        }
        Ok(KeyRing(keys))
    }

    /// The key that checks a token with `header`: the one named by `kid`, or the only
    /// key when the token names none; its algorithm must be the token's.
    pub(crate) fn select(
        &self,
        header: &Header,
    ) -> Result<(&DecodingKey, Algorithm), IdentityError> {
        let key = match (&header.kid, self.0.as_slice()) {
            (Some(kid), keys) => keys.iter().find(|key| key.kid.as_deref() == Some(kid)),
            (None, [only]) => Some(only),
            (None, _) => None,
        }
        .ok_or_else(|| IdentityError::invalid("unknown signing key"))?;
        if key.algorithm != header.alg {
            return Err(IdentityError::invalid("algorithm does not match the key"));
        }
        Ok((&key.decoding, key.algorithm))
    }
}

fn shared(secret: &str) -> Result<Key, IdentityError> {
    if secret.len() < MIN_SECRET_LEN {
        return Err(IdentityError::config(
            "keys.secret",
            format!("must be at least {MIN_SECRET_LEN} bytes"),
        ));
    }
    let decoding = DecodingKey::from_secret(secret.as_bytes())
        .map_err(|_| IdentityError::config("keys.secret", "is not a usable HS256 key"))?;
    Ok(Key {
        kid: None,
        algorithm: Algorithm::HS256,
        decoding,
    })
}

fn pem_key(key: &PublicKey, field: &str) -> Result<Key, IdentityError> {
    let pem = std::fs::read(&key.pem_file).map_err(|error| {
        IdentityError::config(
            format!("{field}.pem_file"),
            format!("cannot be read: {error}"),
        )
    })?;
    let decoding = match key.algorithm {
        SignatureAlgorithm::RS256 => DecodingKey::from_rsa_pem(&pem),
        SignatureAlgorithm::EdDSA => DecodingKey::from_ed_pem(&pem),
    }
    .map_err(|_| {
        IdentityError::config(
            format!("{field}.pem_file"),
            "is not a PEM public key of that algorithm",
        )
    })?;
    let algorithm = match key.algorithm {
        SignatureAlgorithm::RS256 => Algorithm::RS256,
        SignatureAlgorithm::EdDSA => Algorithm::EdDSA,
    };
    Ok(Key {
        kid: key.kid.clone(),
        algorithm,
        decoding,
    })
}

fn jwks(path: &Path) -> Result<Vec<Key>, IdentityError> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| IdentityError::config("keys.path", format!("cannot be read: {error}")))?;
    let set: JwkSet = serde_json::from_str(&text).map_err(|error| {
        IdentityError::config("keys.path", format!("is not a JWKS file: {error}"))
    })?;
    set.keys
        .iter()
        .enumerate()
        .map(|(at, jwk)| {
            let field = format!("keys.path: keys[{at}]");
            let algorithm = match (&jwk.common.key_algorithm, &jwk.algorithm) {
                (Some(KeyAlgorithm::RS256) | None, AlgorithmParameters::RSA(_)) => Algorithm::RS256,
                (Some(KeyAlgorithm::EdDSA) | None, AlgorithmParameters::OctetKeyPair(p))
                    if p.curve == EllipticCurve::Ed25519 =>
                {
                    Algorithm::EdDSA
                }
                _ => {
                    return Err(IdentityError::config(
                        field,
                        "is not an RS256 or Ed25519 signing key",
                    ));
                }
            };
            let decoding = DecodingKey::from_jwk(jwk)
                .map_err(|_| IdentityError::config(field, "is not a usable key"))?;
            Ok(Key {
                kid: jwk.common.key_id.clone(),
                algorithm,
                decoding,
            })
        })
        .collect()
}
