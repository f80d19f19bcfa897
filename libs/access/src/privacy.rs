//! Per-agent privacy (seed 000, "Security model"): "Files in an agent's private data
//! subtree are visible only to that agent — another agent never sees them, not even their
//! names." A source declares private subtrees as patterns with an `{agent}` placeholder
//! (default for an agent data tree: `agents/{agent}/**`); the owner of a path is computed
//! from the source's current patterns at each request ([`owner_of`], [`owner_of_alias`]),
//! never kept from a sync, and evaluation shows a marked candidate to that agent alone.
//! Nothing here, nor in the policy service, caches an owner: the candidate carries it.

use crate::Caller;

/// The agent that owns `path` (relative to the source root) under `patterns`, by the
/// first pattern that matches; `None` when none does. The matcher is the layout core's,
/// the one sync uses, so both read a pattern alike.
pub use neuralis_layout::privacy_owner as owner_of;

pub use neuralis_layout::DEFAULT_AGENT_PRIVATE_PATTERN;

/// Who may see a file reached through an in-root symlink, by the owners of both paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    /// Neither path is private.
    Shared,
    /// One agent owns one path or both: that agent alone sees the file.
    Agent(String),
    /// Two agents own the two paths: no caller is both, so nobody sees the file. One
    /// owner field cannot say so; the caller of [`owner_of_alias`] drops the file.
    Conflicting,
}

impl Ownership {
    /// Whether `caller` may see a file of this ownership.
    pub fn visible_to(&self, caller: &Caller) -> bool {
        match self {
            Ownership::Shared => true,
            Ownership::Agent(owner) => caller.is_agent(owner),
            Ownership::Conflicting => false,
        }
    }
}

/// The ownership of a file at `path`, reached through a symlink to `real_path` when
/// given: a path private to an agent keeps the file private to it, whichever side of the
/// link it lies on.
pub fn owner_of_alias(path: &str, real_path: Option<&str>, patterns: &[String]) -> Ownership {
    let under_path = owner_of(path, patterns);
    let under_real = real_path.and_then(|real| owner_of(real, patterns));
    match (under_path, under_real) {
        (None, None) => Ownership::Shared,
        (Some(owner), None) | (None, Some(owner)) => Ownership::Agent(owner),
        (Some(a), Some(b)) if a == b => Ownership::Agent(a),
        (Some(_), Some(_)) => Ownership::Conflicting,
    }
}

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

    fn agent(id: &str) -> Caller {
        Caller {
            agent: Some(id.into()),
            ..Caller::default()
        }
    }

    #[test]
    fn a_private_file_is_visible_only_to_its_agent() {
        let nobody = Caller::default();
        assert!(visible_to(Some("a1"), &agent("a1")));
        assert!(!visible_to(Some("a1"), &agent("a2")));
        assert!(!visible_to(Some("a1"), &nobody));
        assert!(visible_to(None, &agent("a2")));
    }

    #[test]
    fn a_link_keeps_private_whatever_either_side_makes_private() {
        let patterns = vec![DEFAULT_AGENT_PRIVATE_PATTERN.to_owned()];
        let cases = [
            ("shared/a.md", None, Ownership::Shared),
            ("shared/a.md", Some("docs/a.md"), Ownership::Shared),
            (
                "shared/rules/leak.md",
                Some("agents/alice/rules/secret.md"),
                Ownership::Agent("alice".into()),
            ),
            (
                "agents/alice/x.md",
                Some("shared/x.md"),
                Ownership::Agent("alice".into()),
            ),
            (
                "agents/alice/x.md",
                Some("agents/alice/y.md"),
                Ownership::Agent("alice".into()),
            ),
            (
                "agents/bob/x.md",
                Some("agents/alice/y.md"),
                Ownership::Conflicting,
            ),
        ];
        for (path, real, expected) in cases {
            assert_eq!(owner_of_alias(path, real, &patterns), expected, "{path}");
        }
        assert!(!Ownership::Conflicting.visible_to(&agent("alice")));
        assert!(Ownership::Agent("alice".into()).visible_to(&agent("alice")));
        assert!(!Ownership::Agent("alice".into()).visible_to(&agent("bob")));
    }
}
