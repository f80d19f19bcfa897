//! Verifying a bearer token into a caller.

use jsonwebtoken::{Validation, decode, decode_header};

use crate::keys::KeyRing;
use crate::{Caller, Claims, IdentityConfig, IdentityError};

/// Verifies tokens: signature with the configured keys, `exp` and `nbf` with the leeway,
/// `aud` against the accepted audiences, `iss` when configured.
pub struct Verifier {
    keys: KeyRing,
    audience: Vec<String>,
    issuer: Option<String>,
    leeway_seconds: u64,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("audience", &self.audience)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

impl Verifier {
    /// Builds a verifier; reads key files named by the configuration.
    pub fn from_config(config: &IdentityConfig) -> Result<Self, IdentityError> {
        if config.audience.is_empty() || config.audience.iter().any(|aud| aud.trim().is_empty()) {
            return Err(IdentityError::config(
                "audience",
                "needs at least one non-empty audience",
            ));
        }
        Ok(Verifier {
            keys: KeyRing::load(&config.keys)?,
            audience: config.audience.clone(),
            issuer: config.issuer.clone(),
            leeway_seconds: config.leeway_seconds,
        })
    }

    /// The caller a token proves, or why it proves nothing.
    pub fn verify(&self, token: &str) -> Result<Caller, IdentityError> {
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
        let data = decode::<Claims>(token, key, &validation)
            .map_err(|error| IdentityError::invalid(reason(error.kind())))?;
        data.claims.into_caller()
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
