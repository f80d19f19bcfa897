//! Per-agent privacy (seed 000, "Security model"): "Files in an agent's private data
//! subtree are visible only to that agent — another agent never sees them, not even their
//! names." A source declares private subtrees as patterns with an `{agent}` placeholder
//! (default for an agent data tree: `agents/{agent}/**`); sync marks matching rows with
//! the owning agent and evaluation shows them to that agent alone.

use crate::{AccessError, Caller, PathPattern};

/// The placeholder standing for the owning agent's id in a private-subtree pattern.
pub const AGENT_PLACEHOLDER: &str = "{agent}";

/// Whether a candidate marked with `owner` (if any) may be seen by `caller`.
pub fn visible_to(owner: Option<&str>, caller: &Caller) -> bool {
    match owner {
        None => true,
        Some(owner) => caller.is_agent(owner),
    }
}

/// A private-subtree declaration such as `agents/{agent}/**`: `{agent}` is one whole
/// segment standing for the owner; the rest is a path pattern.
#[derive(Debug, Clone)]
pub struct PrivateSubtree {
    /// The index of the `{agent}` segment.
    agent_segment: usize,
    /// The pattern with `{agent}` read as `*`.
    pattern: PathPattern,
}

impl PrivateSubtree {
    /// Parses a declaration, naming `field` in any error.
    pub fn parse(text: &str, field: &str) -> Result<Self, AccessError> {
        let segments: Vec<&str> = text.split('/').collect();
        let mut at = segments
            .iter()
            .enumerate()
            .filter(|(_, s)| s.contains(AGENT_PLACEHOLDER));
        let agent_segment = match (at.next(), at.next()) {
            (Some((index, segment)), None) if *segment == AGENT_PLACEHOLDER => index,
            _ => {
                return Err(AccessError::invalid(
                    field,
                    "needs exactly one whole `{agent}` segment",
                ));
            }
        };
        if segments[..agent_segment].contains(&"**") {
            return Err(AccessError::invalid(
                field,
                "cannot have `**` before `{agent}`",
            ));
        }
        let pattern = PathPattern::parse(&text.replace(AGENT_PLACEHOLDER, "*"), field)?;
        Ok(PrivateSubtree {
            agent_segment,
            pattern,
        })
    }

    /// The agent that owns `path` (given as segments), if it lies in the subtree.
    pub fn owner_of<'a>(&self, path: &[&'a str]) -> Option<&'a str> {
        if self.pattern.matches(path) {
            path.get(self.agent_segment).copied()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_in_an_agent_private_subtree_belong_to_that_agent() {
        let subtree = PrivateSubtree::parse("agents/{agent}/**", "privacy[0]").unwrap();
        let cases = [
            (vec!["agents", "a1", "rules", "x.md"], Some("a1")),
            (vec!["agents", "a1"], Some("a1")),
            (vec!["agents"], None),
            (vec!["shared", "a1", "x.md"], None),
        ];
        for (path, expected) in cases {
            assert_eq!(subtree.owner_of(&path), expected, "{path:?}");
        }
    }

    #[test]
    fn a_private_file_is_visible_only_to_its_agent() {
        let owner = Caller {
            agent: Some("a1".into()),
            ..Caller::default()
        };
        let other = Caller {
            agent: Some("a2".into()),
            ..Caller::default()
        };
        let nobody = Caller::default();
        assert!(visible_to(Some("a1"), &owner));
        assert!(!visible_to(Some("a1"), &other));
        assert!(!visible_to(Some("a1"), &nobody));
        assert!(visible_to(None, &other));
    }

    #[test]
    fn malformed_declarations_are_rejected() {
        for text in [
            "agents/**",
            "agents/x{agent}/**",
            "{agent}/{agent}",
            "**/{agent}",
        ] {
            assert!(PrivateSubtree::parse(text, "privacy[0]").is_err(), "{text}");
        }
    }
}
