//! Why a caller could not be verified, or a verifier not built. No variant carries the
//! token or a secret.

/// An identity failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdentityError {
    /// No `authorization` header.
    #[error("no bearer token")]
    Missing,
    /// An `authorization` header that is not `Bearer <token>`.
    #[error("malformed authorization header")]
    Malformed,
    /// A token that fails verification: bad signature, expired, not yet valid, wrong
    /// audience or issuer, unknown key, missing or empty claims. `reason` is a fixed
    /// phrase, never part of the token.
    #[error("invalid token: {reason}")]
    Invalid {
        /// What failed.
        reason: String,
    },
    /// A configuration that cannot make a verifier; names the field.
    #[error("invalid identity configuration {field}: {message}")]
    Config {
        /// The offending field, e.g. `keys.secret`.
        field: String,
        /// What is wrong, without any key material.
        message: String,
    },
}

impl IdentityError {
    pub(crate) fn invalid(reason: impl Into<String>) -> Self {
        IdentityError::Invalid {
            reason: reason.into(),
        }
    }

    /// The same error with a configuration field named under `section`
    /// (`keys.secret` becomes `service_identity.keys.secret`).
    pub fn within(self, section: &str) -> Self {
        match self {
            IdentityError::Config { field, message } => IdentityError::Config {
                field: format!("{section}.{field}"),
                message,
            },
            other => other,
        }
    }

    pub(crate) fn config(field: impl Into<String>, message: impl Into<String>) -> Self {
        IdentityError::Config {
            field: field.into(),
            message: message.into(),
        }
    }
}
