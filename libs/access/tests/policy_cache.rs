//! Reusing a compiled policy across requests (issue 13) without reusing anything about
//! access (seed 000, "How current the answer is": "nothing about it is ever reused.
//! Every request re-reads the source's persisted configuration and re-evaluates ...
//! every URI-policy rule, so a revoked permission ... takes effect on the next
//! request"). The cache keeps only the compiled form of a policy text and is checked
//! against the policy each request reads: a changed policy decides the next request.

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::policy_cache::MAX_CACHED_POLICIES;
use neuralis_access::{
    AccessSnapshot, Caller, Capabilities, DecisionCode, PathRule, PolicyCache, UriPolicy, evaluate,
    evaluate_cached,
};
use neuralis_layout::Category;
use proptest::prelude::*;
use proptest::sample::select;
use support::{batch, caller, floor, read_all, rule, snapshot};

fn codes(who: &Caller, state: &AccessSnapshot, cache: &PolicyCache) -> Vec<DecisionCode> {
    let request = batch(
        "tools/t1",
        &[
            ("tools/t1/skills/a/SKILL.md", Category::Skill),
            ("tools/t1/secret/b.md", Category::Rule),
        ],
    );
    let evaluation = evaluate_cached(who, state, &request, cache).unwrap();
    assert_eq!(evaluation, evaluate(who, state, &request).unwrap());
    evaluation
        .files
        .iter()
        .map(|decision| decision.code)
        .collect()
}

fn with_rules(paths: Vec<PathRule>) -> UriPolicy {
    UriPolicy {
        paths,
        ..read_all()
    }
}

#[test]
fn a_revoked_permission_takes_effect_on_the_next_request_through_the_same_cache() {
    use DecisionCode::{Hidden, VisibleActive, VisibleOptIn};
    let cache = PolicyCache::new();
    let open = snapshot(read_all());
    let revoked = snapshot(with_rules(vec![rule("tools/t1/skills/**", false)]));
    let floored = snapshot(with_rules(vec![floor("tools/t1/secret/**")]));
    let who = caller();
    assert_eq!(codes(&who, &open, &cache), [VisibleActive, VisibleOptIn]);
    assert_eq!(codes(&who, &revoked, &cache), [Hidden, VisibleOptIn]);
    assert_eq!(codes(&who, &floored, &cache), [VisibleActive, Hidden]);
    assert_eq!(codes(&who, &open, &cache), [VisibleActive, VisibleOptIn]);
    // One entry per source, replaced as its policy changes.
    assert_eq!(cache.len(), 1);
}

#[test]
fn the_cache_keeps_every_key_up_to_its_bound_and_starts_over_only_for_a_new_key_beyond_it() {
    let cache = PolicyCache::new();
    let open = read_all();
    for i in 0..MAX_CACHED_POLICIES {
        cache.compiled(&format!("source-{i}"), &open).unwrap();
    }
    assert_eq!(
        cache.len(),
        MAX_CACHED_POLICIES,
        "each key kept beside the others"
    );
    assert!(!cache.is_empty());
    // A kept key whose policy changed is replaced in place: the bound is not passed.
    let changed = with_rules(vec![rule("tools/**", false)]);
    cache.compiled("source-0", &changed).unwrap();
    assert_eq!(cache.len(), MAX_CACHED_POLICIES);
    cache.compiled("one-more", &open).unwrap();
    assert_eq!(cache.len(), 1, "a new key beyond the bound starts over");
}

#[test]
fn a_stored_policy_that_no_longer_validates_is_never_kept_and_hides_everything() {
    let cache = PolicyCache::new();
    let invalid = snapshot(with_rules(vec![rule("/absolute/**", true)]));
    let who = caller();
    for _ in 0..2 {
        assert_eq!(
            codes(&who, &invalid, &cache),
            [DecisionCode::Hidden, DecisionCode::Hidden]
        );
    }
    assert!(cache.is_empty());
}

#[test]
fn one_compilation_serves_callers_of_other_roles_and_agents_each_by_its_own_rules() {
    use DecisionCode::{Hidden, VisibleActive, VisibleOptIn};
    let cache = PolicyCache::new();
    let state = snapshot(with_rules(vec![
        PathRule {
            read: Some(false),
            roles: vec!["member".into()],
            // Below the package root, which stays readable.
            ..PathRule::new("tools/t1/*/**")
        },
        PathRule {
            read: Some(true),
            agents: vec!["a1".into()],
            ..PathRule::new("tools/t1/skills/**")
        },
    ]));
    let member_a1 = caller();
    let member_a2 = Caller {
        agent: Some("a2".into()),
        ..caller()
    };
    let admin = Caller {
        role: "admin".into(),
        ..caller()
    };
    assert_eq!(codes(&member_a2, &state, &cache), [Hidden, Hidden]);
    assert_eq!(codes(&member_a1, &state, &cache), [VisibleActive, Hidden]);
    assert_eq!(codes(&admin, &state, &cache), [VisibleActive, VisibleOptIn]);
    assert_eq!(cache.len(), 1);
}

/// A few policies over the batch's paths, so a random sequence revisits and changes them.
fn policy() -> impl Strategy<Value = UriPolicy> {
    let pattern = select(vec![
        "**",
        "tools/**",
        "tools/t1/skills/**",
        "**/secret/**",
        "tools/*/secret/*.md",
        "tools/t1/skills/a/SKILL.md",
    ]);
    let grant = (
        pattern.clone(),
        any::<bool>(),
        prop::option::of(select(vec!["member", "admin"])),
    )
        .prop_map(|(pattern, read, role)| PathRule {
            read: Some(read),
            roles: role.into_iter().map(String::from).collect(),
            ..PathRule::new(pattern)
        });
    let rules = prop::collection::vec(prop_oneof![4 => grant, 1 => pattern.prop_map(floor)], 0..4);
    (any::<bool>(), rules).prop_map(|(read, paths)| UriPolicy {
        default: Capabilities {
            read,
            ..Capabilities::default()
        },
        paths,
        hide_flagged_files: false,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Requests in any order of changing policies and callers, through one cache, decide
    /// as compiling every policy afresh for every request (`codes` compares both).
    #[test]
    fn decisions_through_one_cache_equal_decisions_compiled_afresh(
        steps in prop::collection::vec((policy(), select(vec!["member", "admin"])), 1..12),
    ) {
        let cache = PolicyCache::new();
        for (policy, role) in steps {
            let who = Caller { role: role.into(), ..caller() };
            codes(&who, &snapshot(policy), &cache);
        }
    }
}
