//! Minting local HS256 tokens (the command line's `token` helper and the tests).

use jsonwebtoken::{EncodingKey, Header, encode};

use crate::keys::MIN_SECRET_LEN;
use crate::{Claims, IdentityError, Secret};

/// Signs `claims` with the HS256 `secret`.
pub fn mint(secret: &Secret, claims: &Claims) -> Result<Secret, IdentityError> {
    if secret.expose().len() < MIN_SECRET_LEN {
        return Err(IdentityError::config(
            "keys.secret",
            format!("must be at least {MIN_SECRET_LEN} bytes"),
        ));
    }
    let key = EncodingKey::from_secret(secret.expose().as_bytes())
        .map_err(|_| IdentityError::config("keys.secret", "is not a usable HS256 key"))?;
    encode(&Header::default(), claims, &key)
        .map(Secret::new)
        .map_err(|_| IdentityError::config("claims", "cannot be signed"))
}
