//! Who may make which call, once the caller is verified:
//! - administrative calls (source policies and switches, role grants, package states,
//!   agent-scope overrides) need one of the configured administrator roles;
//! - conversation-scope overrides and conversation registration need a verified caller;
//! - a token bound to a project (or a conversation) acts in that project (or that
//!   conversation) only.

use std::collections::BTreeSet;

use neuralis_access::Caller;

use crate::PolicyError;

/// The roles treated as administrators.
#[derive(Debug, Clone)]
pub(crate) struct Authority {
    admin_roles: BTreeSet<String>,
}

impl Authority {
    pub(crate) fn new(admin_roles: &[String]) -> Self {
        Authority {
            admin_roles: admin_roles.iter().cloned().collect(),
        }
    }

    /// Passes an administrator, refuses anyone else.
    pub(crate) fn require_admin(&self, caller: &Caller) -> Result<(), PolicyError> {
        if self.admin_roles.contains(&caller.role) {
            Ok(())
        } else {
            Err(PolicyError::PermissionDenied(
                "the call needs an administrator role".into(),
            ))
        }
    }
}

/// A token bound to a project acts in that project only.
pub(crate) fn check_project(caller: &Caller, project: &str) -> Result<(), PolicyError> {
    match &caller.project {
        Some(bound) if bound != project => Err(PolicyError::PermissionDenied(
            "the token is bound to another project".into(),
        )),
        _ => Ok(()),
    }
}

/// The conversation an evaluation reads overrides for: the requested one, which must
/// be the token's when the token is bound to one; the token's when none is requested.
pub(crate) fn conversation(
    caller: &Caller,
    requested: Option<String>,
) -> Result<Option<String>, PolicyError> {
    match (&caller.conversation, requested) {
        (Some(bound), Some(requested)) if *bound != requested => Err(
            PolicyError::PermissionDenied("the token is bound to another conversation".into()),
        ),
        (bound, requested) => Ok(requested.or_else(|| bound.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(role: &str, project: Option<&str>, conversation: Option<&str>) -> Caller {
        Caller {
            role: role.into(),
            project: project.map(String::from),
            conversation: conversation.map(String::from),
            ..Caller::default()
        }
    }

    #[test]
    fn administrative_calls_need_an_administrator_role() {
        let authority = Authority::new(&["owner".into(), "admin".into()]);
        assert!(
            authority
                .require_admin(&caller("admin", None, None))
                .is_ok()
        );
        assert!(
            authority
                .require_admin(&caller("owner", None, None))
                .is_ok()
        );
        assert!(matches!(
            authority.require_admin(&caller("member", None, None)),
            Err(PolicyError::PermissionDenied(_))
        ));
    }

    #[test]
    fn a_bound_token_acts_in_its_own_project_and_conversation_only() {
        assert!(check_project(&caller("member", Some("p1"), None), "p1").is_ok());
        assert!(check_project(&caller("member", None, None), "p1").is_ok());
        assert!(check_project(&caller("member", Some("p2"), None), "p1").is_err());
        let cases = [
            (None, None, Ok(None)),
            (None, Some("c1"), Ok(Some("c1"))),
            (Some("c1"), None, Ok(Some("c1"))),
            (Some("c1"), Some("c1"), Ok(Some("c1"))),
            (Some("c1"), Some("c2"), Err(())),
        ];
        for (bound, requested, expected) in cases {
            let got = conversation(&caller("member", None, bound), requested.map(String::from));
            assert_eq!(
                got.map_err(|_| ()),
                expected.map(|c| c.map(String::from)),
                "{bound:?} {requested:?}"
            );
        }
    }
}
