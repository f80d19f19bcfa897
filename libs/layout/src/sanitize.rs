//! Trust-tier sanitization at discovery (seed 001, "Trust-tier sanitization"; DESIGN.md
//! section 4, "Trust tiers"). Below first-party: `overwrite` is stripped and an
//! `activation.target: prompt-context` is retargeted to `workspace`; installed rules
//! are downgraded to docs. Source packages are sanitized the same way, except that
//! their rules stay rules (with the rule default: off).

use crate::category::{Category, Trust, default_state};
use crate::layout::Contribution;

/// The activation target that injects into the system prompt.
pub const PROMPT_CONTEXT_TARGET: &str = "prompt-context";
/// Where a non-first-party `prompt-context` declaration is retargeted.
pub const WORKSPACE_TARGET: &str = "workspace";

/// Whose contribution is being sanitized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Posture {
    /// A contribution of a synced source package.
    Source,
    /// A contribution of an installed package of this trust tier.
    Installed(Trust),
}

/// Applies the trust tier to one contribution. A first-party installed package keeps
/// everything it declares, and its `rules/*.md` are always-on (seed 001's directory
/// contract: "always-on rule contributions"; the off-by-default rule floor is seed 000's
/// for synced sources, where a sync must never silently change agent behavior).
pub fn sanitize(contribution: &mut Contribution, posture: Posture) {
    if posture == Posture::Installed(Trust::FirstParty) {
        if contribution.category == Category::Rule && !contribution.identity {
            contribution.default_enabled = true;
        }
        return;
    }
    contribution.overwrite = false;
    if contribution.activation_target.as_deref() == Some(PROMPT_CONTEXT_TARGET) {
        contribution.activation_target = Some(WORKSPACE_TARGET.to_owned());
    }
    if matches!(posture, Posture::Installed(_)) && contribution.category == Category::Rule {
        // "a non-first-party package cannot inject always-on behavioral constraints"
        contribution.category = Category::Docs;
        contribution.downgraded_from = Some(Category::Rule);
        (contribution.default_enabled, contribution.invocation) =
            default_state(Category::Docs, contribution.identity);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::category::Invocation;

    fn rule() -> Contribution {
        Contribution {
            path: "rules/r.md".into(),
            category: Category::Rule,
            id: "r".into(),
            title: "r".into(),
            description: None,
            identity: false,
            default_enabled: false,
            invocation: Invocation::Auto,
            required_features: Vec::new(),
            credentials: None,
            allowed_tools: Vec::new(),
            metadata: None,
            bundle: Vec::new(),
            overwrite: true,
            activation_target: Some(PROMPT_CONTEXT_TARGET.into()),
            downgraded_from: None,
        }
    }

    #[test]
    fn non_first_party_installed_rules_become_docs_without_overwrite_or_prompt_context() {
        for trust in [Trust::Untrusted, Trust::Trusted] {
            let mut c = rule();
            sanitize(&mut c, Posture::Installed(trust));
            assert_eq!(c.category, Category::Docs);
            assert_eq!(c.downgraded_from, Some(Category::Rule));
            assert_eq!(c.invocation, Invocation::Manual);
            assert!(!c.overwrite);
            assert_eq!(c.activation_target.as_deref(), Some(WORKSPACE_TARGET));
        }
    }

    #[test]
    fn first_party_installed_rules_are_always_on_and_otherwise_untouched() {
        let mut c = rule();
        sanitize(&mut c, Posture::Installed(Trust::FirstParty));
        assert_eq!(
            c,
            Contribution {
                default_enabled: true,
                ..rule()
            }
        );
        let mut skill = Contribution {
            category: Category::Skill,
            default_enabled: true,
            ..rule()
        };
        let before = skill.clone();
        sanitize(&mut skill, Posture::Installed(Trust::FirstParty));
        assert_eq!(skill, before);
    }

    /// Only a first-party rule that is not an identity file is turned on: an identity
    /// rule, or anything else declared off, stays off.
    #[test]
    fn first_party_turns_on_only_rules_that_are_not_identity_files() {
        let cases = [
            // (category, identity, default_enabled after)
            (Category::Rule, false, true),
            (Category::Rule, true, false),
            (Category::Skill, false, false),
            (Category::Agent, true, false),
        ];
        for (category, identity, enabled) in cases {
            let mut c = Contribution {
                category,
                identity,
                default_enabled: false,
                ..rule()
            };
            sanitize(&mut c, Posture::Installed(Trust::FirstParty));
            assert_eq!(
                c.default_enabled, enabled,
                "{category:?} identity {identity}"
            );
        }
    }

    #[test]
    fn source_rules_stay_rules_default_off_but_lose_overwrite_and_prompt_context() {
        let mut c = rule();
        sanitize(&mut c, Posture::Source);
        assert_eq!(c.category, Category::Rule);
        assert!(!c.default_enabled && !c.overwrite);
        assert_eq!(c.activation_target.as_deref(), Some(WORKSPACE_TARGET));
    }

    #[test]
    fn other_activation_targets_are_kept() {
        let mut c = rule();
        c.activation_target = Some("workspace-panel".into());
        sanitize(&mut c, Posture::Source);
        assert_eq!(c.activation_target.as_deref(), Some("workspace-panel"));
    }
}
