//! Every URI-policy rule kind (DESIGN.md section 4): "Start from `default`; apply matching
//! rules whose roles/agents include the caller (empty means everyone) from least to most
//! specific (literal segments), declaration order breaking ties, `override: true` rules
//! last; then every matching floor forces its false capabilities."

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::pattern::split_path;
use neuralis_access::{Caller, Capabilities, CompiledPolicy, PathRule, UriPolicy};
use support::{caller, floor, rule};

fn can_read(policy: &UriPolicy, who: &Caller, path: &str) -> bool {
    let compiled = CompiledPolicy::new(policy).unwrap().for_caller(who);
    compiled.can_read(&split_path(path, "path").unwrap())
}

fn policy(default_read: bool, paths: Vec<PathRule>) -> UriPolicy {
    UriPolicy {
        hide_flagged_files: false,
        default: Capabilities {
            read: default_read,
            ..Capabilities::default()
        },
        paths,
    }
}

fn roles(pattern: &str, read: bool, roles: &[&str]) -> PathRule {
    PathRule {
        roles: roles.iter().map(|r| r.to_string()).collect(),
        ..rule(pattern, read)
    }
}

fn agents(pattern: &str, read: bool, agents: &[&str]) -> PathRule {
    PathRule {
        agents: agents.iter().map(|a| a.to_string()).collect(),
        ..rule(pattern, read)
    }
}

fn overriding(rule: PathRule) -> PathRule {
    PathRule {
        override_rule: true,
        ..rule
    }
}

#[test]
fn each_rule_kind_decides_read_as_the_design_orders_them() {
    let admin = Caller {
        role: "admin".into(),
        ..caller()
    };
    let other_agent = Caller {
        agent: Some("a2".into()),
        ..caller()
    };
    let no_agent = Caller {
        agent: None,
        ..caller()
    };
    let member = caller();
    #[rustfmt::skip]
    let cases: Vec<(&str, UriPolicy, &Caller, &str, bool)> = vec![
        ("start from default: allow", policy(true, vec![]), &member, "docs/a.md", true),
        ("start from default: deny by default", policy(false, vec![]), &member, "docs/a.md", false),
        ("a matching rule applies", policy(false, vec![rule("docs/**", true)]), &member, "docs/a.md", true),
        ("a rule that does not match is skipped", policy(false, vec![rule("docs/**", true)]), &member, "rules/a.md", false),
        ("empty roles and agents mean everyone", policy(true, vec![rule("**", false)]), &admin, "x", false),
        ("a rule for the caller's role applies", policy(false, vec![roles("**", true, &["member"])]), &member, "x", true),
        ("a rule for another role does not", policy(false, vec![roles("**", true, &["admin"])]), &member, "x", false),
        ("a rule for the caller's agent applies", policy(false, vec![agents("**", true, &["a1"])]), &member, "x", true),
        ("a rule for another agent does not", policy(false, vec![agents("**", true, &["a1"])]), &other_agent, "x", false),
        ("an agent rule never applies to a caller with no agent", policy(false, vec![agents("**", true, &["a1"])]), &no_agent, "x", false),
        ("more specific wins whatever the declaration order",
            policy(false, vec![rule("docs/secret/*", false), rule("docs/**", true)]), &member, "docs/secret/a.md", false),
        ("less specific loses to the later, more specific",
            policy(false, vec![rule("docs/**", false), rule("docs/open/*", true)]), &member, "docs/open/a.md", true),
        ("declaration order breaks ties: the later one applies last",
            policy(false, vec![rule("docs/*", true), rule("*/a.md", false)]), &member, "docs/a.md", false),
        ("declaration order breaks ties, the other way",
            policy(false, vec![rule("*/a.md", false), rule("docs/*", true)]), &member, "docs/a.md", true),
        ("an override applies after more specific rules",
            policy(false, vec![overriding(rule("**", true)), rule("docs/secret/a.md", false)]), &member, "docs/secret/a.md", true),
        ("an override for another role does not apply",
            policy(false, vec![overriding(roles("**", true, &["admin"])), rule("docs/**", false)]), &member, "docs/a.md", false),
        ("overrides order among themselves by specificity",
            policy(false, vec![overriding(rule("docs/a.md", false)), overriding(rule("**", true))]), &member, "docs/a.md", false),
        ("a floor forces its false capability over the default", policy(true, vec![floor("secret/**")]), &member, "secret/a.md", false),
        ("a floor no rule can lift", policy(true, vec![floor("secret/**"), rule("secret/a.md", true)]), &member, "secret/a.md", false),
        ("a floor no override can lift", policy(true, vec![floor("secret/**"), overriding(rule("**", true))]), &admin, "secret/a.md", false),
        ("a floor no role rule can lift", policy(true, vec![floor("secret/**"), overriding(roles("secret/**", true, &["admin"]))]), &admin, "secret/a.md", false),
        ("a floor only touches what it matches", policy(true, vec![floor("secret/**")]), &member, "open/a.md", true),
        ("`**` matches the folder itself, so a floor hides the root", policy(true, vec![floor("secret/**")]), &member, "secret", false),
        ("the source root is the empty path", policy(false, vec![rule("**", true)]), &member, "", true),
    ];
    for (name, policy, who, path, expected) in cases {
        assert_eq!(can_read(&policy, who, path), expected, "{name}");
    }
}

#[test]
fn a_rule_sets_only_the_capabilities_it_names() {
    let all = Capabilities {
        read: true,
        write: true,
        exec: true,
    };
    let policy = UriPolicy {
        hide_flagged_files: false,
        default: all,
        paths: vec![
            PathRule {
                write: Some(false),
                ..PathRule::new("docs/**")
            },
            PathRule {
                exec: Some(false),
                floor: true,
                ..PathRule::new("**")
            },
        ],
    };
    let compiled = CompiledPolicy::new(&policy).unwrap().for_caller(&caller());
    assert_eq!(
        compiled.capabilities(&["docs", "a.md"]),
        Capabilities {
            read: true,
            write: false,
            exec: false
        }
    );
    assert_eq!(
        compiled.capabilities(&["x"]),
        Capabilities {
            read: true,
            write: true,
            exec: false
        }
    );
}

#[test]
fn a_floor_with_a_grant_or_an_override_is_rejected_at_validation() {
    let bad = [
        PathRule {
            read: Some(true),
            ..floor("a")
        },
        PathRule {
            override_rule: true,
            ..floor("a")
        },
        PathRule {
            roles: vec!["admin".into()],
            ..floor("a")
        },
        PathRule {
            agents: vec!["a1".into()],
            ..floor("a")
        },
    ];
    for rule in bad {
        assert!(
            CompiledPolicy::new(&policy(true, vec![rule.clone()])).is_err(),
            "{rule:?}"
        );
    }
}
