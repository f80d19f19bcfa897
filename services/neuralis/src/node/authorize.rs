//! Who may change sync state: a verified caller holding an administrative role.

use std::sync::Arc;

use neuralis_identity::Verifier;
use neuralis_sync::{Authorizer, CallerToken};

/// Accepts callers whose token verifies and whose role is one of `roles`.
pub struct VerifiedAdmins {
    verifier: Arc<Verifier>,
    roles: Vec<String>,
}

impl VerifiedAdmins {
    pub fn new(verifier: Arc<Verifier>, roles: Vec<String>) -> Self {
        Self { verifier, roles }
    }
}

impl Authorizer for VerifiedAdmins {
    fn may_change_state(&self, token: &CallerToken) -> bool {
        let Some(token) = token.0.as_deref() else {
            return false;
        };
        match self.verifier.verify(token) {
            Ok(caller) => self.roles.contains(&caller.role),
            Err(_) => false,
        }
    }
}
