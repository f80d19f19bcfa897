//! Reading the bearer token from request metadata.

use crate::{IdentityError, Secret};

/// The bearer token of one call, as it arrived (or none): what a service forwards to
/// another and hands its verifier. `Debug` never prints it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerToken(Option<Secret>);

impl BearerToken {
    /// A token, or none; an empty token is none.
    pub fn new(token: Option<String>) -> Self {
        BearerToken(token.filter(|token| !token.is_empty()).map(Secret::new))
    }

    /// The token of an `authorization: Bearer` header; none when missing or malformed
    /// (verification then fails as unauthenticated).
    pub fn from_headers(headers: &http::HeaderMap) -> Self {
        BearerToken::new(bearer_token(headers).ok().map(str::to_owned))
    }

    /// The raw token, to verify or to forward.
    pub fn expose(&self) -> Option<&str> {
        self.0.as_ref().map(Secret::expose)
    }

    /// The `authorization` header value that forwards this token.
    pub fn header_value(&self) -> Option<String> {
        self.expose().map(|token| format!("Bearer {token}"))
    }
}

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
    fn a_bearer_token_never_prints_and_round_trips_through_its_header() {
        let token = BearerToken::new(Some("abc.def.ghi".into()));
        assert!(!format!("{token:?}").contains("abc"));
        let headers = headers(token.header_value().as_deref());
        assert_eq!(BearerToken::from_headers(&headers), token);
        assert_eq!(
            BearerToken::from_headers(&http::HeaderMap::new()).expose(),
            None
        );
        assert_eq!(
            BearerToken::new(Some(String::new())),
            BearerToken::default()
        );
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
