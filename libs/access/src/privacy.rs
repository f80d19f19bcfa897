//! Per-agent privacy (seed 000, "Security model"): "Files in an agent's private data
//! subtree are visible only to that agent — another agent never sees them, not even their
//! names." A source declares private subtrees as patterns with an `{agent}` placeholder
//! (default for an agent data tree: `agents/{agent}/**`); sync marks matching rows with
//! the owning agent (the layout core's `privacy_owner`) and evaluation shows them to
//! that agent alone.

use crate::Caller;

/// Whether a candidate marked with `owner` (if any) may be seen by `caller`.
pub fn visible_to(owner: Option<&str>, caller: &Caller) -> bool {
    match owner {
        None => true,
        Some(owner) => caller.is_agent(owner),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
