//! Verifier settings (serde, with defaults): which keys sign tokens, the audience, an
//! optional issuer and the clock leeway.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::Secret;

/// The audience every token must name unless configured otherwise.
pub const DEFAULT_AUDIENCE: &str = "neuralis";

/// How callers are verified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdentityConfig {
    /// The keys tokens are signed with.
    #[serde(default)]
    pub keys: KeySource,
    /// Accepted audiences; a token must carry `aud` naming one of them.
    #[serde(default = "default_audience")]
    pub audience: Vec<String>,
    /// The required issuer (`iss`), if any.
    #[serde(default)]
    pub issuer: Option<String>,
    /// Clock skew tolerated on `exp` and `nbf`, in seconds.
    #[serde(default = "default_leeway")]
    pub leeway_seconds: u64,
}

fn default_audience() -> Vec<String> {
    vec![DEFAULT_AUDIENCE.to_owned()]
}

fn default_leeway() -> u64 {
    30
}

impl Default for IdentityConfig {
    fn default() -> Self {
        IdentityConfig {
            keys: KeySource::default(),
            audience: default_audience(),
            issuer: None,
            leeway_seconds: default_leeway(),
        }
    }
}

/// Where the verification keys come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum KeySource {
    /// A shared secret (HS256), for local use. There is no default secret: an empty one
    /// is a configuration error.
    Hs256 {
        /// At least 32 bytes.
        #[serde(default)]
        secret: Secret,
    },
    /// Public keys given as PEM files (production).
    PublicKeys {
        /// One or more keys; with several, tokens name theirs with `kid`.
        keys: Vec<PublicKey>,
    },
    /// A JWKS file of public keys (production), read at start.
    JwksFile {
        /// The file's path.
        path: PathBuf,
    },
}

impl Default for KeySource {
    fn default() -> Self {
        KeySource::Hs256 {
            secret: Secret::default(),
        }
    }
}

/// An asymmetric signature algorithm accepted for production keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SignatureAlgorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// Ed25519.
    EdDSA,
}

/// One public key as a PEM file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublicKey {
    /// The algorithm the key verifies.
    pub algorithm: SignatureAlgorithm,
    /// The PEM file (SubjectPublicKeyInfo).
    pub pem_file: PathBuf,
    /// The key id tokens name in their header.
    #[serde(default)]
    pub kid: Option<String>,
}
