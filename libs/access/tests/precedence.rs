//! The per-file precedence predicate, end to end through `evaluate` (seed 000, "Defaults
//! and per-file control"): "a disabled package turns everything off; an agent-level
//! per-file off is final (a conversation cannot re-enable it); a conversation-level off
//! wins next; and an opt-in (default-off) file activates only with an explicit enable at
//! either scope. Delegate child runs inherit the parent conversation's file overrides."

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::{AccessSnapshot, DecisionCode, FileOverrides, evaluate};
use neuralis_layout::Category;
use support::{batch, caller, read_all, snapshot};

use DecisionCode::{
    VisibleActive as Active, VisibleDisabled as Disabled, VisibleManual as Manual,
    VisibleOptIn as OptIn,
};

const PACKAGE: &str = "repo:.claude";

fn overrides(path: &str, state: Option<bool>) -> FileOverrides {
    state.map(|on| (PACKAGE, path, on)).into_iter().collect()
}

/// Decides one file of category `category` with the given switches.
fn decide(
    category: Category,
    package_on: bool,
    agent: Option<bool>,
    chain: &[Option<bool>],
) -> DecisionCode {
    let path = match category {
        Category::Rule => ".claude/rules/style.md",
        Category::Docs => ".claude/docs/guide.md",
        _ => ".claude/skills/review/SKILL.md",
    };
    let mut state: AccessSnapshot = snapshot(read_all());
    state.package_enabled.insert(PACKAGE.into(), package_on);
    state.agent_overrides = overrides(path, agent);
    state.conversation_chain = chain.iter().map(|c| overrides(path, *c)).collect();
    let request = batch(".claude", &[(path, category)]);
    evaluate(&caller(), &state, &request).unwrap().files[0].code
}

#[test]
fn package_agent_conversation_and_default_in_every_combination() {
    // (package on, agent override, conversation override, default on, expected)
    #[rustfmt::skip]
    let table = [
        (true, None       , None       , true , Active),
        (true, None       , None       , false, OptIn),
        (true, None       , Some(true) , true , Active),
        (true, None       , Some(true) , false, Active),
        (true, None       , Some(false), true , Disabled),
        (true, None       , Some(false), false, Disabled),
        (true, Some(true) , None       , true , Active),
        (true, Some(true) , None       , false, Active),
        (true, Some(true) , Some(true) , true , Active),
        (true, Some(true) , Some(true) , false, Active),
        (true, Some(true) , Some(false), true , Disabled),
        (true, Some(true) , Some(false), false, Disabled),
        (true, Some(false), None       , true , Disabled),
        (true, Some(false), None       , false, Disabled),
        (true, Some(false), Some(true) , true , Disabled),
        (true, Some(false), Some(true) , false, Disabled),
        (true, Some(false), Some(false), true , Disabled),
        (true, Some(false), Some(false), false, Disabled),
        (false, None       , None       , true , Disabled),
        (false, None       , None       , false, Disabled),
        (false, None       , Some(true) , true , Disabled),
        (false, None       , Some(true) , false, Disabled),
        (false, None       , Some(false), true , Disabled),
        (false, None       , Some(false), false, Disabled),
        (false, Some(true) , None       , true , Disabled),
        (false, Some(true) , None       , false, Disabled),
        (false, Some(true) , Some(true) , true , Disabled),
        (false, Some(true) , Some(true) , false, Disabled),
        (false, Some(true) , Some(false), true , Disabled),
        (false, Some(true) , Some(false), false, Disabled),
        (false, Some(false), None       , true , Disabled),
        (false, Some(false), None       , false, Disabled),
        (false, Some(false), Some(true) , true , Disabled),
        (false, Some(false), Some(true) , false, Disabled),
        (false, Some(false), Some(false), true , Disabled),
        (false, Some(false), Some(false), false, Disabled),
    ];
    for (package_on, agent, conversation, default_on, expected) in table {
        // A skill is on by default; a rule is opt-in.
        let category = if default_on {
            Category::Skill
        } else {
            Category::Rule
        };
        let got = decide(category, package_on, agent, &[conversation]);
        assert_eq!(
            got, expected,
            "package {package_on}, agent {agent:?}, conversation {conversation:?}, default {default_on}"
        );
    }
}

#[test]
fn a_delegate_child_inherits_along_a_chain_of_depth_three() {
    // An opt-in rule; the chain is child, parent, grandparent.
    #[rustfmt::skip]
    let table = [
        (None,        [None,        None,        None       ], OptIn),
        (None,        [None,        None,        Some(true) ], Active),
        (None,        [None,        Some(true),  None       ], Active),
        (None,        [None,        None,        Some(false)], Disabled),
        (None,        [None,        Some(false), Some(true) ], Disabled),
        (None,        [None,        Some(true),  Some(false)], Active),
        (None,        [Some(false), Some(true),  Some(true) ], Disabled),
        (None,        [Some(true),  Some(false), Some(false)], Active),
        (Some(false), [Some(true),  Some(true),  Some(true) ], Disabled),
        (Some(false), [None,        None,        Some(true) ], Disabled),
        (Some(true),  [None,        None,        Some(false)], Disabled),
        (Some(true),  [None,        None,        None       ], Active),
    ];
    for (agent, chain, expected) in table {
        assert_eq!(
            decide(Category::Rule, true, agent, &chain),
            expected,
            "agent {agent:?}, chain {chain:?}"
        );
    }
}

#[test]
fn docs_are_listed_but_never_injectable() {
    let cases = [
        (true, None, None, Manual),
        (true, Some(true), Some(true), Manual),
        (true, None, Some(false), Disabled),
        (true, Some(false), None, Disabled),
        (false, None, None, Disabled),
    ];
    for (package_on, agent, conversation, expected) in cases {
        let got = decide(Category::Docs, package_on, agent, &[conversation]);
        assert_eq!(
            got, expected,
            "package {package_on}, agent {agent:?}, conversation {conversation:?}"
        );
        assert!(!got.is_active());
    }
}

#[test]
fn a_source_default_cannot_be_widened_by_the_candidate() {
    // "defaultEnabled: false is applied to rule files and identity files only": a rule
    // claiming default on stays opt-in; an identity file too.
    let mut request = batch(
        "",
        &[
            ("rules/a.md", Category::Rule),
            ("AGENTS.md", Category::Instruction),
        ],
    );
    for file in &mut request.files {
        file.default_enabled = true;
    }
    let decisions = evaluate(&caller(), &snapshot(read_all()), &request).unwrap();
    assert_eq!(
        decisions.files.iter().map(|d| d.code).collect::<Vec<_>>(),
        vec![OptIn, OptIn]
    );
}

#[test]
fn an_installed_package_keeps_the_catalog_default_and_a_source_default_can_only_narrow() {
    // Source files: the server-pinned default, narrowed (never widened) by the candidate.
    // Installed files: the catalog's default as given, either way.
    let cases = [
        (false, Category::Skill, true, Active),
        (false, Category::Skill, false, OptIn),
        (false, Category::Rule, true, OptIn),
        (true, Category::Skill, false, OptIn),
        (true, Category::Rule, true, Active),
        (true, Category::Rule, false, OptIn),
    ];
    for (installed, category, default_enabled, expected) in cases {
        let path = match category {
            Category::Rule => "rules/style.md",
            _ => "skills/review/SKILL.md",
        };
        let mut request = batch("", &[(path, category)]);
        request.files[0].default_enabled = default_enabled;
        if installed {
            request.sources.clear();
            request.packages[0].origin = neuralis_access::Origin::Installed;
        }
        let got = evaluate(&caller(), &snapshot(read_all()), &request)
            .unwrap()
            .files[0]
            .code;
        assert_eq!(
            got, expected,
            "installed {installed}, {category:?}, candidate default {default_enabled}"
        );
    }
}

#[test]
fn only_a_visible_active_file_is_in_use_and_only_a_hidden_one_is_absent() {
    use DecisionCode::Hidden;
    let cases = [
        (Hidden, false, false),
        (Active, true, true),
        (OptIn, true, false),
        (Disabled, true, false),
        (Manual, true, false),
    ];
    for (code, visible, active) in cases {
        assert_eq!(
            (code.is_visible(), code.is_active()),
            (visible, active),
            "{code:?}"
        );
    }
}

#[test]
fn an_override_set_is_empty_until_a_switch_is_recorded() {
    let mut switches = FileOverrides::default();
    assert!(switches.is_empty());
    switches.insert(PACKAGE, "rules/a.md", false);
    assert!(!switches.is_empty());
    assert_eq!(switches.get(PACKAGE, "rules/a.md"), Some(false));
}
