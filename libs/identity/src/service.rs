//! Service credentials (DESIGN.md section 5): discovery calling sync's index feed and
//! policy's `Evaluate`, sync calling policy. A service credential is a JWT signed by a
//! key that is not a caller key, for an audience only services accept
//! (`neuralis-internal`), naming the calling service in `sub`. A caller token never
//! verifies here (other keys, other audience), and a service credential never verifies
//! as a caller.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde::{Deserialize, Serialize};

use crate::keys::MIN_SECRET_LEN;
use crate::verifier::Checks;
use crate::{BearerToken, IdentityError, KeySource, Secret};

/// The audience every service credential names unless configured otherwise.
pub const SERVICE_AUDIENCE: &str = "neuralis-internal";

/// `service_identity.*`: the keys that verify service credentials, and the key this
/// process signs its own with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServiceIdentityConfig {
    /// The verification keys, the same shape as `identity.keys`. An `hs256` secret also
    /// signs; it must differ from the caller secret.
    pub keys: KeySource,
    /// The PEM private key (PKCS#8 or PKCS#1 RSA, PKCS#8 Ed25519) this process signs
    /// with, for the asymmetric kinds. Unused with `hs256`.
    pub signing_key: Option<PathBuf>,
    /// The `kid` written in the header of minted credentials (needed when the
    /// verification keys hold several keys).
    pub signing_kid: Option<String>,
    /// The audience of service credentials.
    pub audience: String,
    /// Clock skew tolerated on `exp`, in seconds.
    pub leeway_seconds: u64,
    /// How long a minted credential lives; a signer renews it at half its life.
    pub credential_ttl_seconds: u64,
}

impl Default for ServiceIdentityConfig {
    fn default() -> Self {
        ServiceIdentityConfig {
            keys: KeySource::default(),
            signing_key: None,
            signing_kid: None,
            audience: SERVICE_AUDIENCE.to_owned(),
            leeway_seconds: 30,
            credential_ttl_seconds: 300,
        }
    }
}

impl ServiceIdentityConfig {
    /// Whether keys are configured (an empty `hs256` secret is none).
    pub fn has_keys(&self) -> bool {
        match &self.keys {
            KeySource::Hs256 { secret } => !secret.expose().is_empty(),
            KeySource::PublicKeys { .. } | KeySource::JwksFile { .. } => true,
        }
    }
}

/// What a service credential carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServiceClaims {
    /// The calling service (`discovery`, `sync`).
    pub sub: String,
    /// The service audience.
    pub aud: String,
    /// Expiry, seconds since the epoch.
    pub exp: u64,
    /// Issued at, seconds since the epoch.
    #[serde(default)]
    pub iat: u64,
}

/// A verified service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServicePrincipal {
    /// The calling service's name.
    pub name: String,
}

/// Verifies service credentials.
pub struct ServiceVerifier {
    checks: Checks,
}

impl std::fmt::Debug for ServiceVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceVerifier").finish_non_exhaustive()
    }
}

impl ServiceVerifier {
    /// Builds the verifier; reads key files named by the configuration.
    pub fn from_config(config: &ServiceIdentityConfig) -> Result<Self, IdentityError> {
        let checks = Checks::new(
            &config.keys,
            vec![config.audience.clone()],
            None,
            config.leeway_seconds,
        )
        .map_err(|error| error.within("service_identity"))?;
        Ok(ServiceVerifier { checks })
    }

    /// The service a credential proves, or why it proves nothing.
    pub fn verify(&self, token: &str) -> Result<ServicePrincipal, IdentityError> {
        let claims: ServiceClaims = self.checks.decode(token)?;
        if claims.sub.trim().is_empty() {
            return Err(IdentityError::invalid("empty sub claim"));
        }
        Ok(ServicePrincipal { name: claims.sub })
    }
}

/// Mints this process's service credential, reusing one until half its life is spent
/// (an RS256 signature costs about a millisecond; a call should not pay it).
pub struct ServiceSigner {
    service: String,
    key: EncodingKey,
    header: Header,
    audience: String,
    ttl: Duration,
    current: Mutex<Option<(BearerToken, u64)>>,
}

impl std::fmt::Debug for ServiceSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceSigner")
            .field("service", &self.service)
            .finish_non_exhaustive()
    }
}

impl ServiceSigner {
    /// A signer for `service` (its name goes in `sub`); reads `signing_key` for the
    /// asymmetric kinds. Fails, naming the field, when nothing can sign.
    pub fn from_config(
        config: &ServiceIdentityConfig,
        service: &str,
    ) -> Result<Self, IdentityError> {
        let (key, algorithm) = signing_key(config)?;
        let mut header = Header::new(algorithm);
        header.kid = config.signing_kid.clone();
        let signer = ServiceSigner {
            service: service.to_owned(),
            key,
            header,
            audience: config.audience.clone(),
            ttl: Duration::from_secs(config.credential_ttl_seconds.max(2)),
            current: Mutex::new(None),
        };
        // Sign once now: a key that parses but cannot sign (a public key given as the
        // private one) fails at start, not on the first call.
        signer.credential()?;
        Ok(signer)
    }

    /// A valid credential for this service.
    pub fn credential(&self) -> Result<BearerToken, IdentityError> {
        let now = now_seconds();
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((token, renew_at)) = current.as_ref()
            && now < *renew_at
        {
            return Ok(token.clone());
        }
        let ttl = self.ttl.as_secs();
        let claims = ServiceClaims {
            sub: self.service.clone(),
            aud: self.audience.clone(),
            exp: now + ttl,
            iat: now,
        };
        let token = encode(&self.header, &claims, &self.key)
            .map_err(|_| IdentityError::config("service_identity.signing_key", "cannot sign"))?;
        let token = BearerToken::new(Some(token));
        *current = Some((token.clone(), now + ttl / 2));
        Ok(token)
    }
}

fn signing_key(config: &ServiceIdentityConfig) -> Result<(EncodingKey, Algorithm), IdentityError> {
    if let KeySource::Hs256 { secret } = &config.keys {
        return hs256_key(secret).map(|key| (key, Algorithm::HS256));
    }
    let Some(path) = &config.signing_key else {
        return Err(IdentityError::config(
            "service_identity.signing_key",
            "is required to sign with public keys or a JWKS file",
        ));
    };
    let pem = std::fs::read(path).map_err(|error| {
        IdentityError::config(
            "service_identity.signing_key",
            format!("cannot be read: {error}"),
        )
    })?;
    if let Ok(key) = EncodingKey::from_rsa_pem(&pem) {
        return Ok((key, Algorithm::RS256));
    }
    EncodingKey::from_ed_pem(&pem)
        .map(|key| (key, Algorithm::EdDSA))
        .map_err(|_| {
            IdentityError::config(
                "service_identity.signing_key",
                "is not a PEM RSA or Ed25519 private key",
            )
        })
}

fn hs256_key(secret: &Secret) -> Result<EncodingKey, IdentityError> {
    if secret.expose().len() < MIN_SECRET_LEN {
        return Err(IdentityError::config(
            "service_identity.keys.secret",
            format!("must be at least {MIN_SECRET_LEN} bytes"),
        ));
    }
    EncodingKey::from_secret(secret.expose().as_bytes()).map_err(|_| {
        IdentityError::config("service_identity.keys.secret", "is not a usable HS256 key")
    })
}

fn now_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs()
}
