//! The contribution vocabulary shared by every package form, and the category defaults
//! (DESIGN.md section 4, "Defaults"; seed 000 "Defaults and per-file control").

use serde::{Deserialize, Serialize};

/// The category of a contribution. It is set from the folder, never from frontmatter
/// (seed 001, "Category comes from the folder").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Skill,
    Instruction,
    Rule,
    Agent,
    Docs,
    Command,
}

impl Category {
    /// The name used in every output (`skill`, `instruction`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Skill => "skill",
            Category::Instruction => "instruction",
            Category::Rule => "rule",
            Category::Agent => "agent",
            Category::Docs => "docs",
            Category::Command => "command",
        }
    }

    /// Categories injected into the prompt by hydration (seed 000: "Prompt-injected
    /// categories (rules, instructions, agents) hydrate per stream").
    pub fn is_prompt_injected(self) -> bool {
        matches!(
            self,
            Category::Rule | Category::Instruction | Category::Agent
        )
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Category {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "skill" => Category::Skill,
            "instruction" => Category::Instruction,
            "rule" => Category::Rule,
            "agent" => Category::Agent,
            "docs" => Category::Docs,
            "command" => Category::Command,
            other => return Err(format!("unknown category {other:?}")),
        })
    }
}

/// How a contribution is invoked: `auto` may be injected or activated by the agent,
/// `manual` is listed and readable but never injected (docs are pinned to it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Invocation {
    Auto,
    Manual,
}

/// The trust tier of a package, lowest to highest (DESIGN.md section 4, "Trust tiers").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trust {
    Untrusted,
    Trusted,
    FirstParty,
}

impl std::str::FromStr for Trust {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "untrusted" => Trust::Untrusted,
            "trusted" => Trust::Trusted,
            "first-party" => Trust::FirstParty,
            other => return Err(format!("unknown trust tier {other:?}")),
        })
    }
}

/// The server-pinned default of a contribution: identity files and rules are opt-in,
/// docs are listed with manual invocation, everything else is on. Frontmatter cannot
/// change it.
pub fn default_state(category: Category, identity: bool) -> (bool, Invocation) {
    let enabled = !(identity || category == Category::Rule);
    let invocation = if category == Category::Docs {
        Invocation::Manual
    } else {
        Invocation::Auto
    };
    (enabled, invocation)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every category with the name every output uses (the folder vocabulary of seed 001)
    /// and whether hydration injects it (seed 000: "Prompt-injected categories (rules,
    /// instructions, agents) hydrate per stream").
    const CATEGORIES: [(Category, &str, bool); 6] = [
        (Category::Skill, "skill", false),
        (Category::Instruction, "instruction", true),
        (Category::Rule, "rule", true),
        (Category::Agent, "agent", true),
        (Category::Docs, "docs", false),
        (Category::Command, "command", false),
    ];

    #[test]
    fn every_category_has_one_name_in_every_output() {
        for (category, name, _) in CATEGORIES {
            assert_eq!(category.as_str(), name);
            assert_eq!(category.to_string(), name, "Display");
            assert_eq!(serde_json::to_value(category).unwrap(), name, "serde");
            assert_eq!(name.parse::<Category>(), Ok(category), "FromStr");
        }
        assert!("skills".parse::<Category>().is_err());
    }

    #[test]
    fn only_rules_instructions_and_agents_are_prompt_injected() {
        for (category, name, injected) in CATEGORIES {
            assert_eq!(category.is_prompt_injected(), injected, "{name}");
        }
    }
}
