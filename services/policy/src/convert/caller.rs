//! The caller an Evaluate batch is decided for, on the wire: the claims of its token as
//! the calling service verified them.

use neuralis_access::Caller;
use neuralis_proto::policy::v1 as pb;

use super::{optional, required};
use crate::PolicyError;

/// The caller named by a request; subject and role are required.
pub fn caller_from_proto(caller: Option<pb::CallerScope>) -> Result<Caller, PolicyError> {
    let caller = caller.ok_or_else(|| PolicyError::invalid("caller", "is required"))?;
    if caller.features.iter().any(|f| f.trim().is_empty()) {
        return Err(PolicyError::invalid(
            "caller.features",
            "holds an empty feature",
        ));
    }
    Ok(Caller {
        subject: required(caller.subject, "caller.subject")?,
        role: required(caller.role, "caller.role")?,
        features: caller.features.into_iter().collect(),
        agent: optional(caller.agent_id),
        project: optional(caller.project_id),
        conversation: super::conversation_id(caller.conversation_id, "caller.conversation_id")?,
    })
}

/// A caller on the wire.
pub fn caller_to_proto(caller: &Caller) -> pb::CallerScope {
    pb::CallerScope {
        subject: caller.subject.clone(),
        role: caller.role.clone(),
        features: caller.features.iter().cloned().collect(),
        agent_id: caller.agent.clone().unwrap_or_default(),
        project_id: caller.project.clone().unwrap_or_default(),
        conversation_id: caller.conversation.clone().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caller_round_trips_and_needs_a_subject_and_a_role() {
        let caller = Caller {
            subject: "ada".into(),
            role: "member".into(),
            features: ["beta".to_owned()].into_iter().collect(),
            agent: Some("a1".into()),
            project: Some("p1".into()),
            conversation: None,
        };
        assert_eq!(
            caller_from_proto(Some(caller_to_proto(&caller))),
            Ok(caller.clone())
        );
        let no_role = pb::CallerScope {
            role: String::new(),
            ..caller_to_proto(&caller)
        };
        assert_eq!(
            caller_from_proto(Some(no_role)),
            Err(PolicyError::invalid("caller.role", "is required"))
        );
        assert_eq!(
            caller_from_proto(None),
            Err(PolicyError::invalid("caller", "is required"))
        );
    }
}
