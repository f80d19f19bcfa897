//! Privacy follows the current configuration (DESIGN.md section 5: "a privacy marker
//! computed from the source's current privacy configuration"): the owner of a path is a
//! pure function of the path and the patterns, so whoever computes it per request
//! (discovery) honours a changed pattern at the next request; and a symlink never
//! widens who sees a file.

#![allow(clippy::unwrap_used)]

use neuralis_access::Caller;
use neuralis_access::privacy::{
    DEFAULT_AGENT_PRIVATE_PATTERN, Ownership, owner_of, owner_of_alias, visible_to,
};
use proptest::prelude::*;
use proptest::sample::select;

fn agent_id() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_-]{0,11}"
}

fn tail() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[a-z]{1,6}(\\.md)?", 0..4)
}

fn path() -> impl Strategy<Value = String> {
    let segment = select(vec!["agents", "team", "alice", "bob", "shared", "x.md"]);
    prop::collection::vec(segment, 1..5).prop_map(|parts| parts.join("/"))
}

fn patterns() -> impl Strategy<Value = Vec<String>> {
    let pattern = select(vec![
        DEFAULT_AGENT_PRIVATE_PATTERN,
        "team/{agent}/**",
        "**/{agent}/x.md",
        "shared/**",
        "*/{agent}",
    ]);
    prop::collection::vec(pattern.prop_map(String::from), 0..3)
}

fn acting_as(agent: Option<&str>) -> Caller {
    Caller {
        role: "member".into(),
        agent: agent.map(String::from),
        ..Caller::default()
    }
}

proptest! {
    #[test]
    fn under_the_default_pattern_an_agents_subtree_is_owned_by_that_agent(
        agent in agent_id(), tail in tail(),
    ) {
        prop_assume!(agent != "." && agent != "..");
        let default = vec![DEFAULT_AGENT_PRIVATE_PATTERN.to_owned()];
        let path = std::iter::once(format!("agents/{agent}"))
            .chain(tail.iter().cloned())
            .collect::<Vec<_>>()
            .join("/");
        prop_assert_eq!(owner_of(&path, &default), Some(agent.clone()));
        let elsewhere = format!("shared/{path}");
        prop_assert_eq!(owner_of(&elsewhere, &default), None);
        // Another configuration: the same path is no longer private.
        prop_assert_eq!(owner_of(&path, &["team/{agent}/**".to_owned()]), None);
        prop_assert_eq!(owner_of(&path, &[]), None);
    }

    #[test]
    fn the_owner_is_a_pure_function_of_path_and_patterns(path in path(), patterns in patterns()) {
        prop_assert_eq!(owner_of(&path, &patterns), owner_of(&path, &patterns.clone()));
        // A pattern that names no agent never makes an owner.
        let without: Vec<String> = patterns.iter().filter(|p| !p.contains("{agent}")).cloned().collect();
        prop_assert_eq!(owner_of(&path, &without), None);
    }

    #[test]
    fn a_symlink_never_shows_a_file_to_a_caller_either_path_would_hide_it_from(
        link in path(), real in path(), patterns in patterns(),
        agent in prop::option::of(select(vec!["alice", "bob", "team", "agents"])),
    ) {
        let caller = acting_as(agent);
        let ownership = owner_of_alias(&link, Some(&real), &patterns);
        if ownership.visible_to(&caller) {
            prop_assert!(visible_to(owner_of(&link, &patterns).as_deref(), &caller));
            prop_assert!(visible_to(owner_of(&real, &patterns).as_deref(), &caller));
        }
        let alone = owner_of_alias(&link, None, &patterns);
        let expected = match owner_of(&link, &patterns) {
            None => Ownership::Shared,
            Some(owner) => Ownership::Agent(owner),
        };
        prop_assert_eq!(alone, expected);
    }
}
