//! The global tool-name rule (seed 002 "Tool names are global"). A tool name is one
//! key for the whole deployment; each agent answers a contested name with one
//! claimant, chosen by a fixed rule rather than by load order:
//!
//! 1. a claimant the caller cannot use drops out first;
//! 2. the first-party claimant wins (the platform's own tools included);
//! 3. otherwise the lexically-smaller package id;
//! 4. any package before an MCP server offering the same name.
//!
//! Nothing is renamed, the loser keeps its other tools, and a collision never stops
//! the start: it is reported (owner and shadowed ids) and listed with its claimants.

use neuralis_layout::Trust;
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Who offers a tool.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Claimant {
    /// A loaded package (the platform's own tools are a first-party package too).
    Package { id: String, trust: Trust },
    /// An MCP server offering a tool of the same name.
    McpServer { id: String },
}

impl Claimant {
    /// The package id or MCP server id.
    pub fn id(&self) -> &str {
        match self {
            Claimant::Package { id, .. } | Claimant::McpServer { id } => id,
        }
    }

    /// The fixed precedence: first-party packages, then other packages, then MCP
    /// servers; within a class the lexically-smaller id. The last element only keeps
    /// the order total (consistent with equality); it never decides between two ids.
    fn rank(&self) -> (u8, &str, u8) {
        match self {
            Claimant::Package {
                id,
                trust: Trust::FirstParty,
            } => (0, id, 0),
            Claimant::Package {
                id,
                trust: Trust::Trusted,
            } => (1, id, 0),
            Claimant::Package {
                id,
                trust: Trust::Untrusted,
            } => (1, id, 1),
            Claimant::McpServer { id } => (2, id, 0),
        }
    }
}

impl Ord for Claimant {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl PartialOrd for Claimant {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The claimant that answers a name among those the caller can use, or `None` when
/// the caller can use none of them.
pub fn choose(claimants: &[Claimant], usable: impl Fn(&Claimant) -> bool) -> Option<&Claimant> {
    claimants.iter().filter(|c| usable(c)).min()
}

/// A name claimed by more than one claimant, as the tool catalog lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Contest {
    pub name: String,
    /// Every claimant, in precedence order (the first owns the name when all are usable).
    pub claimants: Vec<Claimant>,
}

impl Contest {
    /// The claimant that owns the name when every claimant is usable.
    pub fn owner(&self) -> Option<&Claimant> {
        self.claimants.first()
    }

    /// The claimants shadowed by the owner.
    pub fn shadowed(&self) -> &[Claimant] {
        self.claimants.get(1..).unwrap_or_default()
    }
}

/// Every tool name and its claimants.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ToolNames {
    names: BTreeMap<String, Vec<Claimant>>,
}

impl ToolNames {
    /// Records that `claimant` offers `name`; a claimant offering one name twice counts once.
    pub fn claim(&mut self, name: &str, claimant: Claimant) {
        let claimants = self.names.entry(name.to_owned()).or_default();
        if !claimants.contains(&claimant) {
            claimants.push(claimant);
            claimants.sort();
        }
    }

    /// The claimants of `name`, in precedence order (empty when nobody offers it).
    pub fn claimants(&self, name: &str) -> &[Claimant] {
        self.names.get(name).map(Vec::as_slice).unwrap_or_default()
    }

    /// Who answers `name` for a caller; `usable` says which claimants the caller can
    /// use (package enabled, in scope, features held).
    pub fn resolve(&self, name: &str, usable: impl Fn(&Claimant) -> bool) -> Option<&Claimant> {
        choose(self.claimants(name), usable)
    }

    /// Every name with more than one claimant, by name.
    pub fn contested(&self) -> Vec<Contest> {
        self.names
            .iter()
            .filter(|(_, claimants)| claimants.len() > 1)
            .map(|(name, claimants)| Contest {
                name: name.clone(),
                claimants: claimants.clone(),
            })
            .collect()
    }

    /// Every claimed name.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pkg(id: &str, trust: Trust) -> Claimant {
        Claimant::Package {
            id: id.into(),
            trust,
        }
    }

    fn mcp(id: &str) -> Claimant {
        Claimant::McpServer { id: id.into() }
    }

    #[test]
    fn tool_name_rule_first_party_then_smaller_id_then_packages_before_mcp() {
        let cases: Vec<(Vec<Claimant>, &str)> = vec![
            // "the first-party claimant when there is one (the platform's own tools included)"
            (
                vec![
                    pkg("a-pkg", Trust::Untrusted),
                    pkg("z-platform", Trust::FirstParty),
                ],
                "z-platform",
            ),
            // "Both of those count as first-party, so between them the lexically-smaller package id wins"
            (
                vec![
                    pkg("neuralis-platform", Trust::FirstParty),
                    pkg("acme-added", Trust::FirstParty),
                ],
                "acme-added",
            ),
            // "otherwise the lexically-smaller package id"
            (
                vec![pkg("zeta", Trust::Trusted), pkg("alpha", Trust::Untrusted)],
                "alpha",
            ),
            // "any package before an MCP server offering the same name"
            (vec![mcp("aaa-server"), pkg("zzz", Trust::Untrusted)], "zzz"),
            (vec![mcp("b"), mcp("a")], "a"),
        ];
        for (claimants, owner) in cases {
            let mut sorted = claimants.clone();
            sorted.sort();
            assert_eq!(
                choose(&sorted, |_| true).map(Claimant::id),
                Some(owner),
                "{claimants:?}"
            );
        }
    }

    #[test]
    fn an_unusable_claimant_drops_out_before_the_rule_runs() {
        // "A claimant the caller cannot use ... drops out before the rule runs, so it
        // never takes the name from anyone."
        let mut names = ToolNames::default();
        names.claim("status", pkg("platform", Trust::FirstParty));
        names.claim("status", pkg("acme", Trust::Untrusted));
        names.claim("status", mcp("github"));
        assert_eq!(
            names.resolve("status", |_| true).map(Claimant::id),
            Some("platform")
        );
        assert_eq!(
            names
                .resolve("status", |c| c.id() != "platform")
                .map(Claimant::id),
            Some("acme")
        );
        assert_eq!(
            names
                .resolve("status", |c| matches!(c, Claimant::McpServer { .. }))
                .map(Claimant::id),
            Some("github")
        );
        assert_eq!(names.resolve("status", |_| false), None);
        assert_eq!(names.resolve("unknown", |_| true), None);
    }

    #[test]
    fn the_catalog_lists_every_contested_name_with_its_claimants() {
        let mut names = ToolNames::default();
        names.claim("status", pkg("b", Trust::Untrusted));
        names.claim("status", pkg("a", Trust::Untrusted));
        names.claim("alone", pkg("a", Trust::Untrusted));
        names.claim("alone", pkg("a", Trust::Untrusted));
        let contested = names.contested();
        assert_eq!(contested.len(), 1);
        assert_eq!(contested[0].name, "status");
        assert_eq!(contested[0].owner().map(Claimant::id), Some("a"));
        assert_eq!(
            contested[0]
                .shadowed()
                .iter()
                .map(Claimant::id)
                .collect::<Vec<_>>(),
            ["b"]
        );
    }

    fn arb_claimant() -> impl Strategy<Value = Claimant> {
        let trust = prop_oneof![
            Just(Trust::Untrusted),
            Just(Trust::Trusted),
            Just(Trust::FirstParty)
        ];
        prop_oneof![
            ("[a-d]{1,3}", trust).prop_map(|(id, trust)| Claimant::Package { id, trust }),
            "[a-d]{1,3}".prop_map(|id| Claimant::McpServer { id }),
        ]
    }

    proptest! {
        #[test]
        fn the_rule_does_not_depend_on_load_order(mut claimants in prop::collection::vec(arb_claimant(), 1..8), seed in any::<u64>()) {
            // "chosen by a fixed rule rather than by load order"
            let mut forward = ToolNames::default();
            for c in &claimants { forward.claim("t", c.clone()); }
            let len = claimants.len();
            claimants.rotate_left((seed as usize) % len);
            claimants.reverse();
            let mut shuffled = ToolNames::default();
            for c in &claimants { shuffled.claim("t", c.clone()); }
            prop_assert_eq!(forward.resolve("t", |_| true), shuffled.resolve("t", |_| true));
        }

        #[test]
        fn the_winner_is_usable_and_no_usable_claimant_outranks_it(claimants in prop::collection::vec(arb_claimant(), 1..8), mask in any::<u8>()) {
            let mut names = ToolNames::default();
            for c in &claimants { names.claim("t", c.clone()); }
            let usable = |c: &Claimant| claimants.iter().position(|x| x == c).is_some_and(|i| mask & (1 << (i % 8)) != 0);
            match names.resolve("t", usable) {
                Some(winner) => {
                    prop_assert!(usable(winner));
                    prop_assert!(names.claimants("t").iter().filter(|c| usable(c)).all(|c| winner <= c));
                }
                None => prop_assert!(!names.claimants("t").iter().any(usable)),
            }
        }
    }
}
