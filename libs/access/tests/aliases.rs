//! Files reached through an in-root symlink (DESIGN.md section 5: "decided under both
//! its link path and its real path; the stricter wins"). The order of decisions, least
//! permissive first: hidden < disabled < manual < opt-in < active.

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::{
    AccessSnapshot, Caller, Capabilities, DecisionCode, EvaluationRequest, FileOverrides, PathRule,
    UriPolicy, evaluate,
};
use neuralis_layout::Category;
use proptest::prelude::*;
use proptest::sample::select;
use support::{batch, caller, floor, read_all, rule, snapshot};

const CODES: [DecisionCode; 5] = [
    DecisionCode::Hidden,
    DecisionCode::VisibleDisabled,
    DecisionCode::VisibleManual,
    DecisionCode::VisibleOptIn,
    DecisionCode::VisibleActive,
];

#[test]
fn the_stricter_decision_is_the_lesser_of_a_total_order() {
    for (rank, code) in CODES.iter().enumerate() {
        assert_eq!(usize::from(code.permissiveness()), rank, "{code:?}");
    }
    for a in CODES {
        assert_eq!(a.stricter(a), a);
        for b in CODES {
            let stricter = a.stricter(b);
            assert_eq!(stricter, b.stricter(a), "{a:?} {b:?}");
            assert!(stricter == a || stricter == b);
            assert!(stricter.permissiveness() <= a.permissiveness().min(b.permissiveness()));
            assert_eq!(stricter.is_visible(), a.is_visible() && b.is_visible());
        }
    }
}

/// The decision of the one file of a batch at the source root: `path`, through `real`.
fn decide_at(
    who: &Caller,
    state: &AccessSnapshot,
    path: &str,
    real: Option<&str>,
    category: Category,
) -> DecisionCode {
    let mut request = batch("", &[(path, category)]);
    request.files[0].real_path = real.map(String::from);
    evaluate(who, state, &request).unwrap().files[0].code
}

#[test]
fn a_link_is_decided_under_its_path_and_its_real_path_and_the_stricter_wins() {
    let policy = UriPolicy {
        paths: vec![
            rule("agents/**", false),
            rule("private/*.md", false),
            floor("vault/**"),
            rule("vault/open.md", true),
        ],
        ..read_all()
    };
    let state = snapshot(policy);
    let who = caller();
    let cases = [
        // (link path, real path, expected)
        ("shared/a.md", None, DecisionCode::VisibleActive),
        (
            "shared/a.md",
            Some("docs/a.md"),
            DecisionCode::VisibleActive,
        ),
        (
            "shared/leak.md",
            Some("agents/alice/secret.md"),
            DecisionCode::Hidden,
        ),
        (
            "shared/leak.md",
            Some("private/notes.md"),
            DecisionCode::Hidden,
        ),
        (
            "shared/leak.md",
            Some("vault/open.md"),
            DecisionCode::Hidden,
        ),
        (
            "agents/alice/x.md",
            Some("shared/x.md"),
            DecisionCode::Hidden,
        ),
        (
            "shared/self.md",
            Some("shared/self.md"),
            DecisionCode::VisibleActive,
        ),
    ];
    for (path, real, expected) in cases {
        let got = decide_at(&who, &state, path, real, Category::Skill);
        assert_eq!(got, expected, "{path} -> {real:?}");
    }
}

#[test]
fn a_real_path_outside_the_package_root_is_decided_and_a_malformed_one_is_invalid() {
    let state = snapshot(UriPolicy {
        paths: vec![rule("agents/**", false)],
        ..read_all()
    });
    let mut request = batch(".claude", &[(".claude/skills/a/SKILL.md", Category::Skill)]);
    request.files[0].real_path = Some("agents/alice/skills/a/SKILL.md".into());
    let decided = evaluate(&caller(), &state, &request).unwrap();
    assert_eq!(decided.files[0].code, DecisionCode::Hidden);
    for bad in ["", "/etc/passwd", "../outside.md", "a//b.md", "a/./b.md"] {
        request.files[0].real_path = Some(bad.into());
        let error = evaluate(&caller(), &state, &request).unwrap_err();
        assert!(
            error.to_string().contains("files[0].real_path: "),
            "{bad:?}: {error}"
        );
        assert!(!error.to_string().contains("outside"), "no value echoed");
    }
}

// === properties ===

const SEGMENTS: [&str; 5] = ["alpha", "beta", "docs", "rules", "agents"];

fn path() -> impl Strategy<Value = String> {
    // One or two segments: the switches below cover every such path.
    prop::collection::vec(select(SEGMENTS.to_vec()), 1..3).prop_map(|parts| parts.join("/"))
}

fn pattern() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        4 => select(SEGMENTS.to_vec()).prop_map(String::from),
        1 => Just("*".to_owned()),
        1 => Just("**".to_owned()),
    ];
    prop::collection::vec(part, 1..4).prop_map(|parts| parts.join("/"))
}

fn path_rule() -> impl Strategy<Value = PathRule> {
    (
        pattern(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(pattern, read, members_only, override_rule, is_floor)| {
            if is_floor {
                return floor(&pattern);
            }
            PathRule {
                read: Some(read),
                roles: if members_only {
                    vec!["member".into()]
                } else {
                    Vec::new()
                },
                override_rule,
                ..PathRule::new(&pattern)
            }
        })
}

fn state() -> impl Strategy<Value = AccessSnapshot> {
    (
        any::<bool>(),
        prop::collection::vec(path_rule(), 0..8),
        any::<bool>(),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(read, paths, package_on, file_switch)| {
            (
                UriPolicy {
                    hide_flagged_files: false,
                    default: Capabilities {
                        read,
                        ..Capabilities::default()
                    },
                    paths,
                },
                package_on,
                file_switch,
            )
        })
        .prop_map(|(policy, package_on, file_switch)| {
            let mut state = snapshot(policy);
            state.package_enabled.insert("repo:".into(), package_on);
            state.agent_overrides = FileOverrides::default();
            if let Some(on) = file_switch {
                // The same switch under every path, so both paths read the same switches.
                state.agent_overrides = SEGMENTS
                    .iter()
                    .flat_map(|a| SEGMENTS.iter().map(move |b| format!("{a}/{b}")))
                    .chain(SEGMENTS.iter().map(|a| (*a).to_owned()))
                    .map(|p| ("repo:".to_owned(), p, on))
                    .collect();
            }
            state
        })
}

fn who() -> impl Strategy<Value = Caller> {
    (select(vec!["member", "admin"]), any::<bool>()).prop_map(|(role, agent)| Caller {
        role: role.into(),
        agent: agent.then(|| "a1".to_owned()),
        ..caller()
    })
}

fn category() -> impl Strategy<Value = Category> {
    select(vec![
        Category::Skill,
        Category::Rule,
        Category::Docs,
        Category::Instruction,
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_link_is_never_more_permissive_than_its_path_or_its_real_path_alone(
        who in who(), state in state(), link in path(), real in path(), category in category(),
    ) {
        let linked = decide_at(&who, &state, &link, Some(&real), category);
        let under_link = decide_at(&who, &state, &link, None, category);
        let under_real = decide_at(&who, &state, &real, None, category);
        prop_assert!(linked.permissiveness() <= under_link.permissiveness());
        prop_assert!(linked.permissiveness() <= under_real.permissiveness());
        prop_assert_eq!(linked, under_link.stricter(under_real));
    }

    #[test]
    fn a_file_without_a_real_path_or_linked_to_itself_decides_as_its_path(
        who in who(), state in state(), link in path(), category in category(),
    ) {
        let plain = decide_at(&who, &state, &link, None, category);
        prop_assert_eq!(decide_at(&who, &state, &link, Some(&link), category), plain);
        let mut request: EvaluationRequest = batch("", &[(&link, category)]);
        request.files[0].real_path = None;
        prop_assert_eq!(evaluate(&who, &state, &request).unwrap().files[0].code, plain);
    }
}
