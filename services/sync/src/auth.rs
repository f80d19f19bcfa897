//! Who may change state: the one place a caller is authorized.
//!
//! State-changing calls (source writes, sync runs) need a verified caller (DESIGN.md
//! section 5): [`VerifiedCaller`] verifies the JWT with `neuralis-identity`. Without an
//! identity configuration the default denies every state-changing call (fail closed).

/// The bearer token of a call, as received (never logged).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct CallerToken(pub Option<String>);

impl std::fmt::Debug for CallerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = if self.0.is_some() {
            "<redacted>"
        } else {
            "<none>"
        };
        f.debug_tuple("CallerToken").field(&shown).finish()
    }
}

impl CallerToken {
    /// A call carrying `token`.
    pub fn bearer(token: impl Into<String>) -> Self {
        Self(Some(token.into()))
    }

    /// A call without a token.
    pub fn none() -> Self {
        Self(None)
    }
}

/// Decides whether a caller may change state.
pub trait Authorizer: Send + Sync + 'static {
    /// `true` when the token belongs to a verified caller allowed to change sources.
    fn may_change_state(&self, token: &CallerToken) -> bool;
}

/// Denies every state-changing call: the default until identity is configured.
#[derive(Debug, Default, Clone, Copy)]
pub struct DenyAll;

impl Authorizer for DenyAll {
    fn may_change_state(&self, _token: &CallerToken) -> bool {
        false
    }
}

/// Allows every caller. Only for a single-user machine that chose it explicitly
/// (`auth.allow_unauthenticated = true`) and for tests.
#[derive(Debug, Default, Clone, Copy)]
pub struct AllowAll;

impl Authorizer for AllowAll {
    fn may_change_state(&self, _token: &CallerToken) -> bool {
        true
    }
}

/// Accepts a caller whose token `neuralis-identity` verifies (signature, expiry,
/// audience, issuer, non-empty subject and role).
pub struct VerifiedCaller(neuralis_identity::Verifier);

impl VerifiedCaller {
    /// Verifies tokens with `verifier`.
    pub fn new(verifier: neuralis_identity::Verifier) -> Self {
        Self(verifier)
    }
}

impl Authorizer for VerifiedCaller {
    fn may_change_state(&self, token: &CallerToken) -> bool {
        let Some(token) = token.0.as_deref() else {
            return false;
        };
        match self.0.verify(token) {
            Ok(_) => true,
            Err(err) => {
                tracing::info!(reason = %err, "state change refused: caller not verified");
                false
            }
        }
    }
}

/// Accepts exactly one shared token: a stand-in for a verified caller in tests and
/// local setups until `libs/identity` verifies JWTs here.
#[derive(Clone)]
pub struct SharedToken(String);

impl SharedToken {
    /// Accepts callers presenting `token`.
    pub fn new(token: impl Into<String>) -> Self {
        Self(token.into())
    }
}

impl Authorizer for SharedToken {
    fn may_change_state(&self, token: &CallerToken) -> bool {
        token.0.as_deref().is_some_and(|given| given == self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_denies_every_caller() {
        assert!(!DenyAll.may_change_state(&CallerToken::bearer("anything")));
        assert!(!DenyAll.may_change_state(&CallerToken::none()));
    }

    #[test]
    fn a_shared_token_admits_only_its_holder() {
        let check = SharedToken::new("s3cret");
        assert!(check.may_change_state(&CallerToken::bearer("s3cret")));
        assert!(!check.may_change_state(&CallerToken::bearer("guess")));
        assert!(!check.may_change_state(&CallerToken::none()));
    }

    #[test]
    fn only_a_verified_jwt_may_change_state() {
        use neuralis_identity::{Claims, IdentityConfig, KeySource, Secret, Verifier, mint};
        let secret = Secret::new("a-test-secret-of-at-least-32-bytes!!");
        let config = IdentityConfig {
            keys: KeySource::Hs256 {
                secret: secret.clone(),
            },
            ..IdentityConfig::default()
        };
        let check = VerifiedCaller::new(Verifier::from_config(&config).expect("verifier"));
        let claims = |exp| Claims {
            sub: "user-1".into(),
            role: "owner".into(),
            features: Vec::new(),
            agent: None,
            project: None,
            conversation: None,
            platform: false,
            exp,
            nbf: None,
            aud: Some("neuralis".into()),
            iss: None,
        };
        let valid = mint(&secret, &claims(u64::MAX / 2)).expect("minted");
        let expired = mint(&secret, &claims(1)).expect("minted");
        let forged = mint(
            &Secret::new("another-secret-of-at-least-32-bytes!"),
            &claims(u64::MAX / 2),
        )
        .expect("minted");
        assert!(check.may_change_state(&CallerToken::bearer(valid.expose())));
        assert!(!check.may_change_state(&CallerToken::bearer(expired.expose())));
        assert!(!check.may_change_state(&CallerToken::bearer(forged.expose())));
        assert!(!check.may_change_state(&CallerToken::bearer("not-a-jwt")));
        assert!(!check.may_change_state(&CallerToken::none()));
    }

    #[test]
    fn a_token_is_never_printed() {
        let shown = format!("{:?}", CallerToken::bearer("s3cret"));
        assert!(!shown.contains("s3cret"), "{shown}");
    }
}
