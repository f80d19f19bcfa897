//! The caller: a verified identity, never a claim taken on trust.

use std::collections::BTreeSet;

/// Who is asking. Built only by verifying a signed token (the `neuralis-identity` crate);
/// the access rules read the role, agent and features from here and nowhere else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// The token's subject (`sub`): the user, for user-scoped sources.
    pub subject: String,
    /// The caller's role (`role`), matched by policy rules and role grants.
    pub role: String,
    /// Extra features carried by the token itself (`features`).
    pub features: BTreeSet<String>,
    /// The agent the caller acts as (`agent`), for agent scope, privacy and agent overrides.
    pub agent: Option<String>,
    /// The project the token is bound to (`project`), if any.
    pub project: Option<String>,
    /// The conversation the token is bound to (`conversation`), if any.
    pub conversation: Option<String>,
}

impl Caller {
    /// Whether the caller acts as `agent`.
    pub fn is_agent(&self, agent: &str) -> bool {
        self.agent.as_deref() == Some(agent)
    }
}
