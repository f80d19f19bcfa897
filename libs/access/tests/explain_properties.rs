//! The explanation's state equals `evaluate`'s for random policies, callers and files
//! (issue 30 item 1), and it always names a deciding step of the matching effect.
#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::{
    AccessSnapshot, Caller, Capabilities, DecisionCode, Effect, EvaluationRequest, FileOverrides,
    PathRule, Scope, SourceRecord, UriPolicy, evaluate, explain,
};
use neuralis_layout::Category;
use proptest::prelude::*;
use proptest::sample::select;
use support::{PROJECT, SOURCE, file, project_header, source_package};

const PATTERNS: [&str; 8] = [
    "**",
    "pkg/**",
    "pkg/rules/**",
    "pkg/*/a.md",
    "pkg/docs/*",
    "other/**",
    "pkg/skills/**",
    "*",
];
const PATHS: [&str; 5] = [
    "pkg/rules/a.md",
    "pkg/docs/a.md",
    "pkg/skills/x/SKILL.md",
    "pkg/rules/b.md",
    "pkg/AGENTS.md",
];
const NAMES: [&str; 3] = ["a1", "a2", "member"];

fn path_rule() -> impl Strategy<Value = PathRule> {
    (
        select(PATTERNS.to_vec()),
        any::<bool>(),
        0u8..6,
        select(NAMES.to_vec()),
    )
        .prop_map(|(pattern, read, shape, name)| match shape {
            0 => PathRule {
                read: Some(false),
                floor: true,
                ..PathRule::new(pattern)
            },
            1 => PathRule {
                read: Some(read),
                override_rule: true,
                ..PathRule::new(pattern)
            },
            2 => PathRule {
                read: Some(read),
                roles: vec![name.into()],
                ..PathRule::new(pattern)
            },
            3 => PathRule {
                read: Some(read),
                agents: vec![name.into()],
                ..PathRule::new(pattern)
            },
            _ => PathRule {
                read: Some(read),
                ..PathRule::new(pattern)
            },
        })
}

fn switch() -> impl Strategy<Value = Option<bool>> {
    prop_oneof![2 => Just(None), 1 => any::<bool>().prop_map(Some)]
}

prop_compose! {
    fn case()(
        rules in prop::collection::vec(path_rule(), 0..6),
        default_read in any::<bool>(),
        hide_flagged in any::<bool>(),
        source in (any::<bool>(), any::<bool>(), 0u8..3),
        role in select(NAMES.to_vec()),
        agent in prop::option::of(select(vec!["a1", "a2"])),
        path in select(PATHS.to_vec()),
        real in prop::option::of(select(PATHS.to_vec())),
        category in select(vec![Category::Rule, Category::Docs, Category::Skill, Category::Instruction]),
        gates in (any::<bool>(), any::<bool>(), prop::option::of(select(vec!["a1", "a2"])), any::<bool>(), any::<bool>()),
        switches in (any::<bool>(), switch(), switch()),
    ) -> (Caller, AccessSnapshot, EvaluationRequest) {
        let caller = Caller {
            subject: "ada".into(),
            role: role.into(),
            agent: agent.map(String::from),
            project: Some(PROJECT.into()),
            features: if gates.4 { ["f.x".to_owned()].into() } else { Default::default() },
            ..Caller::default()
        };
        let policy = UriPolicy {
            hide_flagged_files: hide_flagged,
            default: Capabilities { read: default_read, write: false, exec: false },
            paths: rules,
        };
        let mut snapshot = AccessSnapshot::default();
        snapshot.sources.insert(SOURCE.into(), SourceRecord {
            enabled: source.0,
            policy: source.1.then_some(policy),
        });
        if gates.3 {
            snapshot.role_features.insert("f.pkg".into());
        }
        let key = format!("{SOURCE}:pkg");
        snapshot.package_enabled.insert(key.clone(), switches.0);
        let set = |state: Option<bool>| -> FileOverrides {
            state.map(|on| (key.clone(), path.to_owned(), on)).into_iter().collect()
        };
        snapshot.agent_overrides = set(switches.1);
        snapshot.conversation_chain = vec![FileOverrides::default(), set(switches.2)];
        let mut header = project_header();
        header.scope.scope = [Scope::Project, Scope::Agent, Scope::User][source.2 as usize];
        if source.2 != 0 {
            header.scope.owner = "a1".into();
        }
        let mut package = source_package("pkg");
        package.access_feature = gates.0.then(|| "f.pkg".to_owned());
        let mut candidate = file(0, path, category);
        candidate.required_features = if gates.1 { vec!["f.x".into()] } else { Vec::new() };
        candidate.private_owner = gates.2.map(String::from);
        candidate.real_path = real.map(String::from);
        candidate.content_flagged = gates.4;
        let request = EvaluationRequest {
            project: PROJECT.into(),
            sources: vec![header],
            data_sources: Vec::new(),
            packages: vec![package],
            files: vec![candidate],
        };
        (caller, snapshot, request)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_explanations_state_is_evaluates_for_random_policies_and_callers(
        (caller, snapshot, request) in case()
    ) {
        let decided = evaluate(&caller, &snapshot, &request).unwrap().files[0].code;
        let checked = request.check().unwrap();
        let explanation = explain(&caller, &snapshot, &checked, None).unwrap();
        prop_assert_eq!(explanation.code, decided);
        let step = explanation.deciding_step();
        prop_assert!(step.is_some(), "{:#?}", explanation);
        let expected = if decided == DecisionCode::Hidden { Effect::Hides } else { Effect::Decides(decided) };
        prop_assert_eq!(step.unwrap().effect, expected);
    }
}
