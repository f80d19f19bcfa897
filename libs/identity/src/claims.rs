//! The token's claims and how they become a [`Caller`] (and whether it is platform-wide).

use serde::{Deserialize, Serialize};

use crate::{Caller, IdentityError};

/// The claims Neuralis reads: `sub`, `role`, `features`, optional `agent`, `project`,
/// `conversation` and `platform`, with `exp`, `nbf`, `aud` and `iss` checked by the
/// verifier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The subject: the user.
    pub sub: String,
    /// The caller's role.
    pub role: String,
    /// Extra features carried by the token.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub features: Vec<String>,
    /// The agent the caller acts as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The project the token is bound to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The conversation the token is bound to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    /// A platform-wide credential (`"platform": true`): acts in every project. Never the
    /// default; a token without it acts only in its `project`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub platform: bool,
    /// Expiry, seconds since the epoch.
    pub exp: u64,
    /// Not before, seconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbf: Option<u64>,
    /// The audience.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aud: Option<String>,
    /// The issuer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iss: Option<String>,
}

impl Claims {
    /// The verified caller with its reach. Subject and role must be non-empty; optional
    /// claims, when present, must be too.
    pub fn into_identity(self) -> Result<CallerIdentity, IdentityError> {
        let (platform, expires_at) = (self.platform, self.exp);
        Ok(CallerIdentity {
            caller: self.into_caller()?,
            platform,
            expires_at,
        })
    }

    /// The verified caller. Subject and role must be non-empty; optional claims, when
    /// present, must be too.
    pub fn into_caller(self) -> Result<Caller, IdentityError> {
        if self.sub.trim().is_empty() {
            return Err(IdentityError::invalid("empty sub claim"));
        }
        if self.role.trim().is_empty() {
            return Err(IdentityError::invalid("empty role claim"));
        }
        let present = |claim: Option<String>, name: &str| match claim {
            Some(value) if value.trim().is_empty() => {
                Err(IdentityError::invalid(format!("empty {name} claim")))
            }
            other => Ok(other),
        };
        if self
            .features
            .iter()
            .any(|feature| feature.trim().is_empty())
        {
            return Err(IdentityError::invalid("empty feature in features claim"));
        }
        Ok(Caller {
            subject: self.sub,
            role: self.role,
            features: self.features.into_iter().collect(),
            agent: present(self.agent, "agent")?,
            project: present(self.project, "project")?,
            conversation: present(self.conversation, "conversation")?,
        })
    }
}

/// A verified caller and whether its token is platform-wide (acts in every project).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallerIdentity {
    /// Who the token speaks for.
    pub caller: Caller,
    /// `"platform": true`: the credential crosses projects.
    pub platform: bool,
    /// When the token stops proving anything (`exp`, seconds since the Unix epoch): a
    /// call that outlives its token (a stream) ends there.
    pub expires_at: u64,
}
