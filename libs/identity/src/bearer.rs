//! Reading the bearer token from request metadata.

use crate::IdentityError;

/// The token of an `authorization: Bearer <token>` header (the scheme is matched
/// case-insensitively, as RFC 6750 allows).
pub fn bearer_token(headers: &http::HeaderMap) -> Result<&str, IdentityError> {
    let value = headers
        .get(http::header::AUTHORIZATION)
        .ok_or(IdentityError::Missing)?;
    let value = value.to_str().map_err(|_| IdentityError::Malformed)?;
    let (scheme, token) = value.split_once(' ').ok_or(IdentityError::Malformed)?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(IdentityError::Malformed);
    }
    Ok(token)
}

/// The bearer token of gRPC metadata (tonic's `MetadataMap` is `AsRef<http::HeaderMap>`).
pub fn from_metadata(metadata: &impl AsRef<http::HeaderMap>) -> Result<&str, IdentityError> {
    bearer_token(metadata.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(value: Option<&str>) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        if let Some(value) = value {
            headers.insert(http::header::AUTHORIZATION, value.parse().unwrap());
        }
        headers
    }

    #[test]
    fn the_token_comes_from_an_authorization_bearer_header() {
        let cases = [
            (Some("Bearer abc.def.ghi"), Ok("abc.def.ghi")),
            (Some("bearer abc"), Ok("abc")),
            (None, Err(IdentityError::Missing)),
            (Some("Basic abc"), Err(IdentityError::Malformed)),
            (Some("Bearer "), Err(IdentityError::Malformed)),
            (Some("abc"), Err(IdentityError::Malformed)),
        ];
        for (value, expected) in cases {
            let headers = headers(value);
            assert_eq!(bearer_token(&headers), expected, "{value:?}");
        }
    }
}
