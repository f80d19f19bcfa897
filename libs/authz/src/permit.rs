//! The permit: what the gate hands the handler once a call passed its rule. A handler
//! gets at the caller only through the binding step its rule names
//! ([`Permit::for_project`] and its siblings), so the project check cannot be skipped
//! on the way to the caller, and a step the rule does not name is refused.

use std::sync::Arc;

use neuralis_access::Caller;
use neuralis_identity::ServicePrincipal;

use crate::counters::Counters;
use crate::rule::{Binding, Row};

/// Who a permit was issued to.
#[derive(Debug, Clone)]
pub(crate) enum Principal {
    /// A verified caller.
    Caller {
        caller: Caller,
        /// `"platform": true`: acts in every project.
        platform: bool,
        /// Holds an administrator role.
        administrator: bool,
        /// The token's `exp` (seconds since the Unix epoch).
        expires_at: u64,
    },
    /// A verified service.
    Service(ServicePrincipal),
    /// Nobody verified (only on rows that answer such calls empty).
    Unverified,
}

/// Why a binding step refused. Each reads as a fixed phrase, naming no project,
/// conversation or path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No verified caller (a row that answers such calls empty).
    Unverified,
    /// The token is bound to another project.
    OtherProject,
    /// The call reaches every project: a platform-wide credential is needed.
    NotPlatform,
    /// The call needs an administrator role.
    NotAdministrator,
    /// The token is bound to another conversation.
    OtherConversation,
    /// The handler took a step its rule does not name: a defect, refused.
    WrongStep,
}

impl Refusal {
    /// The fixed phrase of this refusal.
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::Unverified => "no verified caller",
            Refusal::OtherProject => "the token is bound to another project",
            Refusal::NotPlatform => "the call needs a platform-wide credential",
            Refusal::NotAdministrator => "the call needs an administrator role",
            Refusal::OtherConversation => "the token is bound to another conversation",
            Refusal::WrongStep => "the call is not authorized this way",
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.reason())
    }
}

/// A call that passed its rule. It lives in the request's extensions; the handler takes
/// it out and goes through the step its rule names to reach the caller.
#[derive(Debug, Clone)]
pub struct Permit {
    principal: Principal,
    row: &'static Row,
    counters: Arc<Counters>,
}

/// A principal acting in the scope a step checked.
#[derive(Debug, Clone, Copy)]
pub struct Acting<'a> {
    principal: &'a Principal,
}

impl<'a> Acting<'a> {
    /// The verified caller, when the principal is one.
    pub fn caller(&self) -> Option<&'a Caller> {
        match self.principal {
            Principal::Caller { caller, .. } => Some(caller),
            _ => None,
        }
    }

    /// The verified service, when the principal is one.
    pub fn service(&self) -> Option<&'a ServicePrincipal> {
        match self.principal {
            Principal::Service(service) => Some(service),
            _ => None,
        }
    }

    /// Whether the principal is a caller with an administrator role (host paths, for
    /// example, are shown to administrators only).
    pub fn is_administrator(&self) -> bool {
        matches!(
            self.principal,
            Principal::Caller {
                administrator: true,
                ..
            }
        )
    }

    /// Whether the principal acts in every project (a platform-wide caller).
    pub fn is_platform(&self) -> bool {
        matches!(self.principal, Principal::Caller { platform: true, .. })
    }
}

impl Permit {
    pub(crate) fn new(principal: Principal, row: &'static Row, counters: Arc<Counters>) -> Self {
        Permit {
            principal,
            row,
            counters,
        }
    }

    /// The rule the call passed.
    pub fn row(&self) -> &'static Row {
        self.row
    }

    /// When a caller's token expires (`None` for a service or nobody verified): a call
    /// that outlives it, a stream, must end there, as the token proves nothing after.
    pub fn expires_at(&self) -> Option<std::time::SystemTime> {
        match self.principal {
            // An `exp` past what the clock can hold (a signed token may say anything)
            // is as good as never: the stream's own longest age ends it.
            Principal::Caller { expires_at, .. } => {
                std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_secs(expires_at))
            }
            _ => None,
        }
    }

    /// Whether a verified principal holds this permit (rows that answer others empty
    /// issue permits to nobody verified).
    pub fn is_verified(&self) -> bool {
        !matches!(self.principal, Principal::Unverified)
    }

    /// Acting in `project` (rules bound to a project field): a caller whose token is
    /// bound to it or is platform-wide; a service acts for any project.
    pub fn for_project(&self, project: &str) -> Result<Acting<'_>, Refusal> {
        let named = matches!(
            self.row.binding,
            Binding::Project(_) | Binding::ProjectOrAll(_)
        );
        self.step(named, |p| in_project(p, project))
    }

    /// Acting in the project of `source_id` (`<project>/...`).
    pub fn for_source(&self, source_id: &str) -> Result<Acting<'_>, Refusal> {
        let named = matches!(self.row.binding, Binding::SourceProject(_));
        // A URI scope (`packages://<id>`, an installed package's attached policy) names
        // no project: its first segment is a scheme, never a project a token can hold.
        let project = match source_id.split_once('/') {
            Some((project, _)) if !source_id.contains("://") => project,
            _ => "",
        };
        self.step(named, |p| {
            if project.is_empty() {
                // An id that names no project belongs to none: platform-wide only.
                platform_only(p)
            } else {
                in_project(p, project)
            }
        })
    }

    /// Acting in every project: platform-wide credentials only (a `ProjectOrAll` rule
    /// left empty, or a `Platform` rule).
    pub fn for_every_project(&self) -> Result<Acting<'_>, Refusal> {
        let named = matches!(
            self.row.binding,
            Binding::ProjectOrAll(_) | Binding::Platform
        );
        self.step(named, platform_only)
    }

    /// Setting an agent-scope override: a platform-wide administrator.
    pub fn for_agent_override(&self) -> Result<Acting<'_>, Refusal> {
        let named = self.row.binding == Binding::FileOverride;
        self.step(named, |p| match p {
            Principal::Caller {
                administrator: false,
                ..
            } => Err(Refusal::NotAdministrator),
            other => platform_only(other),
        })
    }

    /// Acting in a conversation registered in `project`: a caller of that project
    /// whose token names no conversation, or names this one.
    pub fn for_conversation(
        &self,
        project: &str,
        conversation: &str,
    ) -> Result<Acting<'_>, Refusal> {
        let named = self.row.binding == Binding::FileOverride;
        self.step(named, |p| {
            in_project(p, project)?;
            match p {
                Principal::Caller { caller, .. }
                    if caller
                        .conversation
                        .as_deref()
                        .is_some_and(|bound| bound != conversation) =>
                {
                    Err(Refusal::OtherConversation)
                }
                _ => Ok(()),
            }
        })
    }

    /// Acting outside every project (rules with no binding).
    pub fn unbound(&self) -> Result<Acting<'_>, Refusal> {
        let named = self.row.binding == Binding::Unbound;
        self.step(named, |p| match p {
            Principal::Unverified => Err(Refusal::Unverified),
            _ => Ok(()),
        })
    }

    fn step(
        &self,
        named: bool,
        check: impl FnOnce(&Principal) -> Result<(), Refusal>,
    ) -> Result<Acting<'_>, Refusal> {
        let outcome = if named {
            check(&self.principal)
        } else {
            Err(Refusal::WrongStep)
        };
        match outcome {
            Ok(()) => Ok(Acting {
                principal: &self.principal,
            }),
            Err(refusal) => {
                self.counters.refused();
                neuralis_metrics::auth_refusal(
                    self.row.service(),
                    neuralis_metrics::AuthOutcome::Refused,
                    neuralis_metrics::AuthReason::Binding,
                );
                if refusal == Refusal::WrongStep {
                    tracing::error!(
                        method = self.row.method,
                        "a handler took a step its rule does not name"
                    );
                } else {
                    tracing::info!(
                        method = self.row.method,
                        reason = refusal.reason(),
                        "call refused"
                    );
                }
                Err(refusal)
            }
        }
    }
}

fn in_project(principal: &Principal, project: &str) -> Result<(), Refusal> {
    match principal {
        Principal::Unverified => Err(Refusal::Unverified),
        Principal::Service(_) => Ok(()),
        Principal::Caller { platform: true, .. } => Ok(()),
        Principal::Caller { caller, .. } if caller.project.as_deref() == Some(project) => Ok(()),
        Principal::Caller { .. } => Err(Refusal::OtherProject),
    }
}

fn platform_only(principal: &Principal) -> Result<(), Refusal> {
    match principal {
        Principal::Unverified => Err(Refusal::Unverified),
        Principal::Service(_) | Principal::Caller { platform: true, .. } => Ok(()),
        Principal::Caller { .. } => Err(Refusal::NotPlatform),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables;

    fn caller_expiring(expires_at: u64) -> Permit {
        let principal = Principal::Caller {
            caller: Caller {
                subject: "ada".into(),
                role: "member".into(),
                features: Default::default(),
                agent: None,
                project: Some("p1".into()),
                conversation: None,
            },
            platform: false,
            administrator: false,
            expires_at,
        };
        let row = &tables::discovery::TABLE.rows[0];
        Permit::new(principal, row, Arc::default())
    }

    /// A caller's permit tells when its token expires; one whose `exp` is past what the
    /// clock holds (a signed token may say anything) is never, not a panic; a service's
    /// permit has no expiry.
    #[test]
    fn a_permit_tells_when_its_callers_token_expires_and_never_panics() {
        let at = caller_expiring(1_700_000_000).expires_at();
        let expected = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        assert_eq!(at, Some(expected));
        assert_eq!(caller_expiring(u64::MAX).expires_at(), None);
        let service = Permit::new(
            Principal::Unverified,
            &tables::discovery::TABLE.rows[0],
            Arc::default(),
        );
        assert_eq!(service.expires_at(), None);
    }
}
