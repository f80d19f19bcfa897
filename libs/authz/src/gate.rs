//! The gate: one decision per call, before the handler exists. Find the method's row
//! (none: refused), verify the credential with the verifier the row names (callers and
//! services have different keys and audiences), check the role, issue the permit.

use std::collections::BTreeSet;
use std::sync::Arc;

use neuralis_identity::{BearerToken, ServiceVerifier, Verifier};
use neuralis_metrics::{AuthOutcome, AuthReason};
use neuralis_proto::details::{self, Reason};

use crate::counters::{Counters, Counts};
use crate::permit::{Permit, Principal};
use crate::rule::{Row, Table, Who};

/// Why the gate refused a call. The status names no token, project or path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denial {
    /// No credential, or one that does not verify as the kind the row needs.
    Unauthenticated,
    /// A verified principal without the right: the wrong kind (a caller token where a
    /// service credential is needed, or the reverse), or a role that is not an
    /// administrator.
    PermissionDenied(&'static str),
    /// A verified caller or service named a method this service does not serve: the
    /// usual version-skew answer. An unverified one gets UNAUTHENTICATED instead, so it
    /// learns nothing reflection would not tell it.
    Unimplemented,
}

impl Denial {
    /// The status a refused call gets.
    pub fn status(self) -> tonic::Status {
        match self {
            Denial::Unauthenticated => details::status(Reason::Unauthenticated, "unauthenticated"),
            Denial::PermissionDenied(text) => details::status(Reason::PermissionDenied, text),
            Denial::Unimplemented => details::status(
                Reason::MethodUnknown,
                "this service does not serve the method",
            ),
        }
    }

    fn outcome(self) -> &'static str {
        match self {
            Denial::Unauthenticated => "unauthenticated",
            Denial::PermissionDenied(_) => "permission_denied",
            Denial::Unimplemented => "unimplemented",
        }
    }
}

/// The verifiers and the administrator roles, shared by every service of a process.
pub struct Verifiers {
    callers: Arc<Verifier>,
    services: Arc<ServiceVerifier>,
    administrator_roles: BTreeSet<String>,
}

impl Verifiers {
    /// Caller tokens are checked by `callers`, service credentials by `services`; a
    /// caller whose role is one of `administrator_roles` is an administrator.
    pub fn new(
        callers: Arc<Verifier>,
        services: Arc<ServiceVerifier>,
        administrator_roles: &[String],
    ) -> Self {
        Verifiers {
            callers,
            services,
            administrator_roles: administrator_roles.iter().cloned().collect(),
        }
    }

    /// The caller tokens' verifier (a handler that is given a token to describe a
    /// caller, not to authorize the call: `ExplainAccess`).
    pub fn callers(&self) -> &Arc<Verifier> {
        &self.callers
    }

    fn caller(&self, token: &str) -> Result<Principal, neuralis_identity::IdentityError> {
        let identity = self.callers.verify_identity(token)?;
        let administrator = self.administrator_roles.contains(&identity.caller.role);
        Ok(Principal::Caller {
            caller: identity.caller,
            platform: identity.platform,
            administrator,
            expires_at: identity.expires_at,
        })
    }
}

/// Decides every call of one service against its table.
#[derive(Clone)]
pub struct Gate {
    table: &'static Table,
    verifiers: Arc<Verifiers>,
    counters: Arc<Counters>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("service", &self.table.service)
            .finish_non_exhaustive()
    }
}

impl Gate {
    /// A gate for the service `table` describes.
    pub fn new(table: &'static Table, verifiers: Arc<Verifiers>) -> Self {
        Gate {
            table,
            verifiers,
            counters: Arc::default(),
        }
    }

    /// The table it decides with.
    pub fn table(&self) -> &'static Table {
        self.table
    }

    /// The calls decided so far, by outcome.
    pub fn counts(&self) -> Counts {
        self.counters.read()
    }

    /// Decides a call to `path` carrying `bearer` (the in-process clients' entry; the
    /// layer's is [`Gate::admit`]).
    pub fn admit_bearer(&self, path: &str, bearer: &BearerToken) -> Result<Permit, Denial> {
        self.admit(path, bearer.expose())
    }

    /// Decides a call to `path` carrying `token` (or none).
    pub fn admit(&self, path: &str, token: Option<&str>) -> Result<Permit, Denial> {
        let (result, reason) = match self.table.row(path) {
            Some(row) => match self.decide(row, token) {
                Ok((permit, unverified)) => (Ok(permit), unverified),
                Err((denial, reason)) => (Err(denial), Some(reason)),
            },
            None => (
                Err(self.unknown_method(token)),
                Some(AuthReason::UnknownMethod),
            ),
        };
        match &result {
            Ok(_) => self.counters.allowed(),
            Err(Denial::Unauthenticated) => self.counters.unauthenticated(),
            Err(Denial::PermissionDenied(_) | Denial::Unimplemented) => {
                self.counters.permission_denied()
            }
        }
        if let Some(reason) = reason {
            let outcome = match &result {
                Ok(_) => AuthOutcome::Unverified,
                Err(Denial::Unauthenticated) => AuthOutcome::Unauthenticated,
                Err(Denial::PermissionDenied(_) | Denial::Unimplemented) => {
                    AuthOutcome::PermissionDenied
                }
            };
            neuralis_metrics::auth_refusal(self.table.service, outcome, reason);
        }
        if let Err(denial) = &result {
            // The method is named only when it is one this service serves: a path is the
            // caller's text, and a token sent as a method must not reach a log line.
            tracing::info!(
                service = self.table.service,
                method = self.table.row(path).map_or("unknown", Row::name),
                outcome = denial.outcome(),
                "call denied"
            );
        }
        result
    }

    /// A path without a row: UNIMPLEMENTED to a verified caller or service (the usual
    /// version-skew check), UNAUTHENTICATED to anyone else.
    fn unknown_method(&self, token: Option<&str>) -> Denial {
        let verified = token.is_some_and(|token| {
            self.verifiers.callers.verify(token).is_ok()
                || self.verifiers.services.verify(token).is_ok()
        });
        if verified {
            Denial::Unimplemented
        } else {
            Denial::Unauthenticated
        }
    }

    /// The permit, and why its principal is unverified when it is (the empty answer);
    /// or the denial and why.
    fn decide(
        &self,
        row: &'static Row,
        token: Option<&str>,
    ) -> Result<(Permit, Option<AuthReason>), Refused> {
        let (principal, unverified) = match row.who {
            Who::Services => (self.service(token)?, None),
            Who::Callers | Who::Administrators => (self.caller(row, token)?, None),
            Who::CallersOrEmpty => match token.map(|token| self.verifiers.caller(token)) {
                Some(Ok(principal)) => (principal, None),
                Some(Err(_)) => (Principal::Unverified, Some(AuthReason::InvalidCredential)),
                None => (Principal::Unverified, Some(AuthReason::MissingCredential)),
            },
        };
        let permit = Permit::new(principal, row, Arc::clone(&self.counters));
        Ok((permit, unverified))
    }

    fn service(&self, token: Option<&str>) -> Result<Principal, Refused> {
        let token = token.ok_or((Denial::Unauthenticated, AuthReason::MissingCredential))?;
        match self.verifiers.services.verify(token) {
            Ok(service) => Ok(Principal::Service(service)),
            // A verified caller holds the wrong kind of credential: no right, not a
            // credential to refresh (a client retrying on UNAUTHENTICATED would loop).
            Err(_) if self.verifiers.callers.verify(token).is_ok() => Err((
                Denial::PermissionDenied("the call is open to services only"),
                AuthReason::WrongCredentialKind,
            )),
            Err(error) => {
                tracing::debug!(reason = %error, "service credential not verified");
                Err((Denial::Unauthenticated, AuthReason::InvalidCredential))
            }
        }
    }

    fn caller(&self, row: &Row, token: Option<&str>) -> Result<Principal, Refused> {
        let token = token.ok_or((Denial::Unauthenticated, AuthReason::MissingCredential))?;
        let principal = match self.verifiers.caller(token) {
            Ok(principal) => principal,
            Err(_) if self.verifiers.services.verify(token).is_ok() => {
                return Err((
                    Denial::PermissionDenied("the call is open to callers only"),
                    AuthReason::WrongCredentialKind,
                ));
            }
            Err(error) => {
                tracing::debug!(reason = %error, "caller not verified");
                return Err((Denial::Unauthenticated, AuthReason::InvalidCredential));
            }
        };
        let administrator = matches!(
            principal,
            Principal::Caller {
                administrator: true,
                ..
            }
        );
        if row.who == Who::Administrators && !administrator {
            return Err((
                Denial::PermissionDenied("the call needs an administrator role"),
                AuthReason::NotAdministrator,
            ));
        }
        Ok(principal)
    }
}

/// A denial and why (the metric's reason).
type Refused = (Denial, AuthReason);
