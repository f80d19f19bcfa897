//! Source scope (DESIGN.md section 4, "Scope"): a source is scoped `project`, `user` or
//! `agent` with an owner; a user- or agent-scoped source is visible to that user or agent
//! alone. The scope and owner belong to the sync service's source record, so they arrive
//! with the candidates; the policy service decides whether the caller's scope reaches it.

use crate::{AccessError, Caller};

/// Who a source belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Shared by the project named by the owner.
    Project,
    /// Private to the user (token subject) named by the owner.
    User,
    /// Private to the agent named by the owner.
    Agent,
}

/// A source's scope with its owner.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceScope {
    /// The kind of owner.
    pub scope: Scope,
    /// The project id, user subject or agent id that owns the source.
    pub owner: String,
}

impl SourceScope {
    /// Checks that the owner is present, naming `field`.
    pub fn validate(&self, field: &str) -> Result<(), AccessError> {
        if self.owner.trim().is_empty() {
            return Err(AccessError::invalid(format!("{field}.owner"), "is empty"));
        }
        Ok(())
    }

    /// Whether `caller`, asking in `project`, is reached by this source.
    pub fn reaches(&self, caller: &Caller, project: &str) -> bool {
        match self.scope {
            Scope::Project => self.owner == project,
            Scope::User => self.owner == caller.subject,
            Scope::Agent => caller.is_agent(&self.owner),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_or_agent_scoped_source_is_visible_to_that_user_or_agent_alone() {
        let caller = Caller {
            subject: "ada".into(),
            agent: Some("helper".into()),
            ..Caller::default()
        };
        let cases = [
            (Scope::Project, "p1", true),
            (Scope::Project, "p2", false),
            (Scope::User, "ada", true),
            (Scope::User, "bob", false),
            (Scope::Agent, "helper", true),
            (Scope::Agent, "other", false),
        ];
        for (scope, owner, expected) in cases {
            let source = SourceScope {
                scope,
                owner: owner.into(),
            };
            assert_eq!(source.reaches(&caller, "p1"), expected, "{source:?}");
        }
        let without_agent = Caller {
            agent: None,
            ..caller
        };
        let agent_source = SourceScope {
            scope: Scope::Agent,
            owner: "helper".into(),
        };
        assert!(!agent_source.reaches(&without_agent, "p1"));
    }
}
