//! Evaluate's caller scope: the caller in the request (verified by the calling service)
//! must belong to the project asked in, and a caller bound to a conversation reads that
//! conversation's overrides only. Discovery checks both before it calls; policy checks
//! again, since the rule is about what a batch may read, whoever sends it.

use neuralis_access::Caller;

use crate::PolicyError;

/// A caller bound to a project acts in that project only.
pub(crate) fn check_project(caller: &Caller, project: &str) -> Result<(), PolicyError> {
    match &caller.project {
        Some(bound) if bound != project => Err(PolicyError::PermissionDenied(
            "the caller is bound to another project".into(),
        )),
        _ => Ok(()),
    }
}

/// The conversation an evaluation reads overrides for: the requested one, which must
/// be the caller's when the caller is bound to one; the caller's when none is requested.
pub(crate) fn conversation(
    caller: &Caller,
    requested: Option<String>,
) -> Result<Option<String>, PolicyError> {
    match (&caller.conversation, requested) {
        (Some(bound), Some(requested)) if *bound != requested => Err(
            PolicyError::PermissionDenied("the caller is bound to another conversation".into()),
        ),
        (bound, requested) => Ok(requested.or_else(|| bound.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(project: Option<&str>, conversation: Option<&str>) -> Caller {
        Caller {
            role: "member".into(),
            project: project.map(String::from),
            conversation: conversation.map(String::from),
            ..Caller::default()
        }
    }

    #[test]
    fn a_bound_caller_is_decided_in_its_own_project_and_conversation_only() {
        assert!(check_project(&caller(Some("p1"), None), "p1").is_ok());
        assert!(check_project(&caller(None, None), "p1").is_ok());
        assert!(check_project(&caller(Some("p2"), None), "p1").is_err());
        let cases = [
            (None, None, Ok(None)),
            (None, Some("c1"), Ok(Some("c1"))),
            (Some("c1"), None, Ok(Some("c1"))),
            (Some("c1"), Some("c1"), Ok(Some("c1"))),
            (Some("c1"), Some("c2"), Err(())),
        ];
        for (bound, requested, expected) in cases {
            let got = conversation(&caller(None, bound), requested.map(String::from));
            assert_eq!(
                got.map_err(|_| ()),
                expected.map(|c| c.map(String::from)),
                "{bound:?} {requested:?}"
            );
        }
    }
}
