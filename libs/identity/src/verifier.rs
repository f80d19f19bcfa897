//! Verifying a bearer token into a caller.

use jsonwebtoken::{Validation, decode, decode_header};
use serde::de::DeserializeOwned;

use crate::keys::KeyRing;
use crate::{Caller, CallerIdentity, Claims, IdentityConfig, IdentityError, KeySource};

/// What every verifier checks: the signature with one of its keys (the algorithm fixed
/// by the key), `exp` and `nbf` with the leeway, `aud` against the accepted audiences,
/// `iss` when configured.
pub(crate) struct Checks {
    keys: KeyRing,
    audience: Vec<String>,
    issuer: Option<String>,
    leeway_seconds: u64,
}

impl Checks {
    pub(crate) fn new(
        keys: &KeySource,
        audience: Vec<String>,
        issuer: Option<String>,
        leeway_seconds: u64,
    ) -> Result<Self, IdentityError> {
        if audience.is_empty() || audience.iter().any(|aud| aud.trim().is_empty()) {
            return Err(IdentityError::config(
                "audience",
                "needs at least one non-empty audience",
            ));
        }
        Ok(Checks {
            keys: KeyRing::load(keys)?,
            audience,
            issuer,
            leeway_seconds,
        })
    }

    /// The claims of a token that passes every check.
    pub(crate) fn decode<T: DeserializeOwned>(&self, token: &str) -> Result<T, IdentityError> {
        let header = decode_header(token).map_err(|_| IdentityError::invalid("malformed token"))?;
        let (key, algorithm) = self.keys.select(&header)?;
        let mut validation = Validation::new(algorithm);
        validation.leeway = self.leeway_seconds;
        validation.validate_nbf = true;
        validation.set_audience(&self.audience);
        let mut required = vec!["exp", "sub", "aud"];
        if let Some(issuer) = &self.issuer {
            validation.set_issuer(&[issuer]);
            required.push("iss");
        }
        validation.set_required_spec_claims(&required);
        decode::<T>(token, key, &validation)
            .map(|data| data.claims)
            .map_err(|error| IdentityError::invalid(reason(error.kind())))
    }
}

/// Verifies callers' tokens (see [`Checks`]).
pub struct Verifier {
    checks: Checks,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("audience", &self.checks.audience)
            .field("issuer", &self.checks.issuer)
            .finish_non_exhaustive()
    }
}

impl Verifier {
    /// Builds a verifier; reads key files named by the configuration.
    pub fn from_config(config: &IdentityConfig) -> Result<Self, IdentityError> {
        Ok(Verifier {
            checks: Checks::new(
                &config.keys,
                config.audience.clone(),
                config.issuer.clone(),
                config.leeway_seconds,
            )?,
        })
    }

    /// The caller a token proves, with its reach (`platform`), or why it proves nothing.
    pub fn verify_identity(&self, token: &str) -> Result<CallerIdentity, IdentityError> {
        self.checks.decode::<Claims>(token)?.into_identity()
    }

    /// The caller a token proves, or why it proves nothing.
    pub fn verify(&self, token: &str) -> Result<Caller, IdentityError> {
        self.verify_identity(token).map(|identity| identity.caller)
    }

    /// The caller a forwarded bearer token proves; none proves nothing.
    pub fn verify_bearer(&self, token: &crate::BearerToken) -> Result<Caller, IdentityError> {
        self.verify(token.expose().ok_or(IdentityError::Missing)?)
    }

    /// The caller proven by the `authorization: Bearer` header of a request.
    pub fn verify_headers(&self, headers: &http::HeaderMap) -> Result<Caller, IdentityError> {
        self.verify(crate::bearer_token(headers)?)
    }
}

/// A fixed phrase per failure: never the token, never the library's formatted message.
fn reason(kind: &jsonwebtoken::errors::ErrorKind) -> &'static str {
    use jsonwebtoken::errors::ErrorKind;
    match kind {
        ErrorKind::InvalidSignature => "bad signature",
        ErrorKind::ExpiredSignature => "expired",
        ErrorKind::ImmatureSignature => "not yet valid",
        ErrorKind::InvalidAudience => "wrong audience",
        ErrorKind::InvalidIssuer => "wrong issuer",
        ErrorKind::MissingRequiredClaim(_) => "missing required claim",
        ErrorKind::InvalidAlgorithm => "algorithm not accepted",
        ErrorKind::Json(_) | ErrorKind::InvalidClaimFormat(_) => "malformed claims",
        _ => "malformed token",
    }
}
