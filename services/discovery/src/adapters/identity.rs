//! Callers verified with the shared identity crate.

use std::sync::Arc;

use neuralis_access::Caller;
use neuralis_identity::Verifier;

use crate::api::CallerToken;
use crate::ports::CallerVerifier;

/// Verifies bearer tokens with the configured keys.
#[derive(Clone)]
pub struct TokenVerifier(Arc<Verifier>);

impl TokenVerifier {
    pub fn new(verifier: Arc<Verifier>) -> Self {
        Self(verifier)
    }
}

impl CallerVerifier for TokenVerifier {
    fn verify(&self, token: &CallerToken) -> Option<Caller> {
        let token = token.expose()?;
        match self.0.verify(token) {
            Ok(caller) => Some(caller),
            Err(error) => {
                // The reason is logged (never the token); the caller only sees an empty answer.
                tracing::info!(reason = %error, "caller not verified");
                None
            }
        }
    }
}
