//! Caller identity, shared by the three services (DESIGN.md section 5): every call that
//! returns packages or content carries `authorization: Bearer <token>`, a signed JWT with
//! the caller's subject, role, extra features, optional agent, project and conversation.
//!
//! [`Verifier::verify`] turns a token into a [`Caller`] or an [`IdentityError`]; nothing
//! else builds a caller, so no unverified role is ever trusted. HS256 serves local use;
//! RS256 and EdDSA public keys (PEM files or a JWKS file) serve production. [`mint`] makes
//! HS256 tokens for the command line.
//!
//! [`service`]: service credentials, for calls between the services only: other keys,
//! another audience, minted by [`ServiceSigner`] and checked by [`ServiceVerifier`].
#![forbid(unsafe_code)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod bearer;
pub mod claims;
pub mod config;
pub mod error;
pub mod keys;
pub mod mint;
pub mod secret;
pub mod service;
pub mod verifier;

pub use bearer::{BearerToken, bearer_token, from_metadata};
pub use claims::{CallerIdentity, Claims};
pub use config::{IdentityConfig, KeySource, PublicKey, SignatureAlgorithm};
pub use error::IdentityError;
pub use mint::mint;
pub use neuralis_access::Caller;
pub use secret::Secret;
pub use service::{
    SERVICE_AUDIENCE, ServiceClaims, ServiceIdentityConfig, ServicePrincipal, ServiceSigner,
    ServiceVerifier,
};
pub use verifier::Verifier;
